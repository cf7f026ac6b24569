import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './helpers/doc-lines.js';

/**
 * The suite's file-time budget (CONTRIBUTING.md, "What keeps the suite short"): every test file
 * has its seconds in test/file-times.json (the longest-first order reads them; a file without a
 * line would start among the first as an unknown 30 s), no line names a file that is gone, and
 * no file is over BUDGET_S at idle. A file over it is split, or its syncs shared (one beforeAll, a
 * copy of the run's synced mirror), its data made as small as its point, its waits cut to the
 * event they wait for.
 */
const BUDGET_S = 240;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.test.ts') ? [relative(REPO, path)] : [];
  });
}

describe('test/file-times.json', () => {
  const times = JSON.parse(readFileSync(join(REPO, 'test', 'file-times.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const files = testFiles(join(REPO, 'test'));

  it('has a line for every test file, and none for a file that is gone', () => {
    expect(files.filter((f) => times[f] === undefined)).toEqual([]);
    expect(Object.keys(times).filter((f) => !files.includes(f))).toEqual([]);
  });

  it(`holds seconds, none over the budget of ${BUDGET_S} s`, () => {
    expect(Object.entries(times).filter(([, s]) => typeof s !== 'number' || !(s >= 0))).toEqual([]);
    expect(Object.entries(times).filter(([, s]) => (s as number) > BUDGET_S)).toEqual([]);
  });
});
