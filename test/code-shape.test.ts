import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Rooms of one concept: no source file over 600 lines and no function over 120, read with the
 * TypeScript compiler's own parser (a function: a declaration, method, accessor, constructor,
 * arrow function or function expression; its lines from its first to its last).
 * The sandbox (src/sim) is held to the function limit; its files may be longer (a route family
 * or a resource's seed reads best whole).
 */
const root = join(import.meta.dirname, '..');
const longFilesAllowed = ['src/sim/'];
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 120;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(join(root, 'src')).map((path) => ({ path, name: relative(root, path) }));

function longFunctions(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const id = node.name !== undefined ? node.name.getText(source) : '(anonymous)';
        found.push(`${name}:${first + 1} ${id}: ${lines} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('code shape', () => {
  it(`has no source file over ${MAX_FILE_LINES} lines`, () => {
    const long = files
      .filter((f) => !longFilesAllowed.some((x) => f.name.startsWith(x)))
      .map((f) => ({ name: f.name, lines: readFileSync(f.path, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap((f) => longFunctions(f.name, readFileSync(f.path, 'utf8')))).toEqual([]);
  });
});
