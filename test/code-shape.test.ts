import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Rooms of one concept: no file of src/, test/ or bench/ over 600 lines and no function over 120,
 * read with the TypeScript compiler's own parser (a function: a declaration, method, accessor,
 * constructor, arrow function or function expression; its lines from its first to its last).
 * The sandbox (src/sim) is held to the function limit; its files may be longer (a route family
 * or a resource's seed reads best whole), as may the test files listed in `longFilesListed`. The
 * callback of a `describe` groups cases and is not a function in this sense (its cases are).
 *
 * A clone stands on its own: no file of src/, docs/, test/, bench/, README.md or CONTRIBUTING.md
 * cites a document outside the repository or a tracker's issue; what a test relies on is in docs/.
 */
const root = join(import.meta.dirname, '..');
const longFilesAllowed = ['src/sim/'];
/** Files over the line limit until they are split (each a list of cases of one report's rules). */
const longFilesListed = [
  'test/reports/compliance.test.ts',
  'test/reports/evidence.test.ts',
  'test/reports/order-ageing.test.ts',
];
const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 120;
/** Test files with one case over the function limit, until it is split. */
const longCasesListed = [
  'test/mirror/history-cli.test.ts',
  'test/reports/act-on.test.ts',
  'test/reports/evidence.test.ts',
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every text file under a folder (the schema pins and fixtures included). */
function textFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return textFiles(path);
    return /\.(ts|md|txt|json|csv|mjs|cjs|js)$/.test(e.name) && e.name !== 'code-shape.test.ts' ? [path] : [];
  });
}

const files = ['src', 'test', 'bench']
  .flatMap((dir) => sourceFiles(join(root, dir)))
  .map((path) => ({ path, name: relative(root, path) }));

/**
 * The callback of `describe(...)`, `describe.each(...)(...)` or a name starting with `describe`
 * that stands for one of them: a group of cases.
 */
function groupsCases(node: ts.Node): boolean {
  const call = node.parent;
  if (call === undefined || !ts.isCallExpression(call)) return false;
  let callee: ts.Expression = call.expression;
  while (ts.isCallExpression(callee) || ts.isPropertyAccessExpression(callee)) callee = callee.expression;
  return ts.isIdentifier(callee) && callee.text.startsWith('describe');
}

function longFunctions(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined && !groupsCases(node)) {
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
      .filter((f) => !longFilesListed.includes(f.name))
      .map((f) => ({ name: f.name, lines: readFileSync(f.path, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `${f.name}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = files.flatMap((f) => longFunctions(f.name, readFileSync(f.path, 'utf8')));
    // A listed file may keep one case over the limit (the one it has now), no more.
    const counted = new Map<string, number>();
    for (const l of long) {
      const file = l.slice(0, l.indexOf(':'));
      counted.set(file, (counted.get(file) ?? 0) + 1);
    }
    expect(
      long.filter((l) => {
        const file = l.slice(0, l.indexOf(':'));
        return !(longCasesListed.includes(file) && counted.get(file) === 1 && / \(anonymous\): /.test(l));
      }),
    ).toEqual([]);
  });

  it('cites nothing outside the repository: no outside document, no issue of a tracker', () => {
    const outside = /\.\.\/shared|REPORTS\.md|DESIGN\.md|service-interface\.md/;
    const issue = /\b[Ii]ssues? #?[0-9]+|\b[Tt]urn [0-9]\b/;
    const docs = [
      ...['src', 'docs', 'test', 'bench'].flatMap((dir) => textFiles(join(root, dir))),
      join(root, 'README.md'),
      join(root, 'CONTRIBUTING.md'),
    ];
    const found = docs.flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          outside.test(line) || issue.test(line) ? [`${relative(root, path)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
