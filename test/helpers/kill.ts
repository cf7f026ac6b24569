import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, expect } from 'vitest';
import type { RequestInfo } from '../../src/sim/server.js';
import { OHS_BIN, runOhs } from './cli.js';
import { engines, withTargets } from './engines.js';
import { cliConfig, cliEnv, expectMirrorEqualsTruth, one, withMirror, withTmpDir } from './mirror.js';
import { withSim } from './sim.js';

/**
 * The fixture of the SIGKILL tests: a sandbox, `ohs sync` run to the end or killed with SIGKILL
 * once the service has seen some requests, and the checks that a resumed mirror holds nothing
 * twice. `fresh()` is the requests of a fresh sync into an empty mirror (of the first engine
 * under test: the requests do not depend on the engine). Call it outside `describe.each(engines)`
 * so the engines share the sandbox; the tests take their mirrors from `withTargets(engine)`.
 * `scale` is the sandbox's (0.05 unless said: the bounds of kill-resume.test.ts on what a rerun
 * asks are measured there).
 */
export function killHarness({ scale = 0.05 }: { scale?: number } = {}) {
  let onRequest: ((info: RequestInfo) => void) | undefined;
  const sim = withSim({ scale, onRequest: (info) => onRequest?.(info) });
  const tmp = withTmpDir();
  let config = '';
  /** Service requests of a fresh sync into an empty mirror. */
  let fresh = 0;

  const sync = (file: string, ...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], { env: cliEnv(sim()), timeoutMs: 120_000 });

  /** Starts `ohs sync` and kills it with SIGKILL once the service has seen `after` more requests. */
  async function syncKilledAfter(
    file: string,
    after: number,
    ...args: string[]
  ): Promise<{ signal: string | null }> {
    const start = sim().stats.requests;
    const child = spawn(process.execPath, [OHS_BIN, 'sync', '--db', file, '--config', config, ...args], {
      env: { ...process.env, ...cliEnv(sim()) },
      stdio: 'ignore',
    });
    onRequest = () => {
      if (sim().stats.requests - start >= after) child.kill('SIGKILL');
    };
    try {
      const [, signal] = (await once(child, 'exit')) as [number | null, string | null];
      return { signal };
    } finally {
      onRequest = undefined;
    }
  }

  function expectNoDuplicates(file: string) {
    return withMirror(file, async (m) => {
      // Nothing was deleted upstream: a resumed pass must not soft-delete what the killed run saw.
      expect(await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toEqual({ n: 0 });
      // Nothing moved either: one history row per order item, whatever the runs.
      const h = (await one(
        m,
        sql`SELECT count(*) AS n, count(DISTINCT orderitem_id) AS items FROM orderitem_status_history`,
      )) as { n: number; items: number };
      const items = sim().tables.OrderItem.size;
      expect(h).toEqual({ n: items, items });
      for (const t of ['applicant_info', 'applicant_info_item']) {
        const r = (await one(
          m,
          sql`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM ${sql.table(t)}`,
        )) as {
          n: number;
          ids: number;
        };
        expect(r.n, t).toBe(r.ids);
      }
      // No pass is left under way, and the dead process's lock is gone.
      expect(await one(m, sql`SELECT count(*) AS n FROM sync_checkpoint`)).toEqual({ n: 0 });
      expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 });
    });
  }

  const baseline = withTargets(engines[0] ?? 'sqlite');

  beforeAll(async () => {
    config = cliConfig(dirname(tmp()));
    const file = await baseline();
    const before = sim().stats.requests;
    const r = await sync(file);
    expect(r.code, r.stderr).toBe(0);
    fresh = sim().stats.requests - before;
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });

  /** Watches the service's requests (undefined: stop watching). */
  const setOnRequest = (fn: ((info: RequestInfo) => void) | undefined) => {
    onRequest = fn;
  };
  return {
    sim,
    sync,
    syncKilledAfter,
    expectNoDuplicates,
    setOnRequest,
    fresh: () => fresh,
    config: () => config,
  };
}
