import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order the test files start in: longest first, so that with two workers the last files to
 * start are short ones and both workers finish together (a long file started last keeps one
 * worker busy alone at the end). vitest's own order uses the durations of the previous run on
 * this machine, and, in a clean clone (CI), the files' sizes, which put the 87-second
 * `full-sync.test.ts` (73 lines) near the end. `test/file-times.json` holds each file's seconds
 * from a measured run (regenerate it from `OHS_TEST_TIMING` output, see CONTRIBUTING.md); a file not in
 * it counts as `UNKNOWN_S`, among the first so that a new slow file is never the last.
 */
const UNKNOWN_S = 30;

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const path = `${root}/test/file-times.json`;
    const times = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>) : {};
    const weight = (f: TestSpecification) => times[relative(root, f.moduleId)] ?? UNKNOWN_S;
    // Stable for equal weights: vitest's own order among them.
    const base = await super.sort(files);
    return base
      .map((f, i) => ({ f, i, w: weight(f) }))
      .sort((a, b) => b.w - a.w || a.i - b.i)
      .map((x) => x.f);
  }
}
