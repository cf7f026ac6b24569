import type { RunningSim } from '../../src/sim/index.js';
import { type CliResult, runOhs } from './cli.js';
import { cliConfig, cliEnv } from './mirror.js';
import { TEST_ANCHOR } from './sim.js';

/** `ohs report NAME` as of the test anchor on mirror `db` into `out`, configured in `dir`. */
export function reportCli(
  sim: RunningSim,
  db: string,
  dir: string,
  out: string,
  name = 'unpaid-invoices',
  extra: readonly string[] = [],
): Promise<CliResult> {
  return runOhs(
    [
      'report',
      name,
      '--as-of',
      TEST_ANCHOR,
      '--present',
      '--db',
      db,
      '--config',
      cliConfig(dir),
      '--out',
      out,
      ...extra,
    ],
    { env: cliEnv(sim), timeoutMs: 120_000 },
  );
}
