import type { StartSimOptions } from '../../src/sim/index.js';

/**
 * The tests' sandbox settings, apart from sim.ts (which imports vitest's test API) so that the
 * global setup, in vitest's main process, starts the same sandbox as `withSim`.
 */

/** Fixed so that tests see the same data set whatever the day. */
export const TEST_ANCHOR = '2026-06-15';
export const WRITE_TOKEN = 'test-write-token';
export const READ_TOKEN = 'test-read-token';

/** `withSim`'s options: the fixed anchor, the test tokens, hooks on, then the file's own. */
export function testSimOptions(options: StartSimOptions = {}): StartSimOptions {
  return { anchorDate: TEST_ANCHOR, token: WRITE_TOKEN, readonlyToken: READ_TOKEN, hooks: true, ...options };
}
