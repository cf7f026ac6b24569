import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { reports } from '../../src/reports/index.js';

/**
 * src/render draws any report and knows none: its code (comments aside) names no report of the
 * registry and none of the codes a report declares words for. A report's words, colours and
 * charts are in its folder; the renderer is handed them (the declaration's `words`, `html`).
 */
const renderDir = resolve(import.meta.dirname, '../../src/render');

/** A source file's code without its comments (TypeScript's printer), strings kept. */
function codeOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** Where a word stands alone in `code` (not part of a longer name: `changes` in `changesCount` is not). */
function namesOf(code: string, words: readonly string[]): string[] {
  return words.filter((w) => new RegExp(`(?<![\\w-])${w.replace(/[-/]/g, '\\$&')}(?![\\w-])`).test(code));
}

const names = reports.map((r) => r.name);
const codes = [...new Set(reports.flatMap((r) => Object.keys(r.words)))];

describe('src/render names no report', () => {
  const files = readdirSync(renderDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort();

  it('reads every file of src/render, and every report has a name and codes to look for', () => {
    expect(files.length).toBeGreaterThan(10);
    expect(names).toContain('changes');
    expect(codes).toContain('ON_TRACK');
  });

  it.each(files)('%s: no report name, no report code', (file) => {
    const code = codeOf(join(renderDir, file));
    expect({ file, names: namesOf(code, names), codes: namesOf(code, codes) }).toEqual({
      file,
      names: [],
      codes: [],
    });
  });

  it('would see one planted', () => {
    const planted = codeOf(join(renderDir, 'html/charts.ts')).concat(
      "\nconst colour = { ON_TRACK: 'blue' };\nconst lead = 'changes';\n",
    );
    expect(namesOf(planted, names)).toEqual(['changes']);
    expect(namesOf(planted, codes)).toEqual(['ON_TRACK']);
    // A comment is no code: the same words there are not found.
    expect(namesOf(codeOf(join(renderDir, 'html/words.ts')), codes)).toEqual([]);
    expect(readFileSync(join(renderDir, 'html/words.ts'), 'utf8')).toContain('STOPPED_TESTING');
  });
});
