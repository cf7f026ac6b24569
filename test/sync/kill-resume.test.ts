import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/sim/server.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  streamTables,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * `ohs sync` killed with SIGKILL (no chance to checkpoint or release its lock) at points spread
 * over a run, then run again: the rerun resumes from the page checkpoints, takes over the dead
 * process's lock, ends equal to the truth with nothing duplicated and nothing wrongly deleted,
 * and asks the service for less than a fresh sync does.
 */
let onRequest: ((info: RequestInfo) => void) | undefined;

describe('a sync killed with SIGKILL, then rerun', () => {
  const sim = withSim({ scale: 0.05, onRequest: (info) => onRequest?.(info) });
  const tmp = withTmpDir();
  let config = '';
  /** Service requests of a fresh sync into an empty mirror. */
  let fresh = 0;

  const sync = (file: string, ...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], { env: cliEnv(sim()), timeoutMs: 30_000 });

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
    return withMirror(file, (m) => {
      // Nothing was deleted upstream: a resumed pass must not soft-delete what the killed run saw.
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_deletion').get()).toEqual({ n: 0 });
      // Nothing moved either: one history row per order item, whatever the runs.
      const h = m.sqlite
        .prepare('SELECT count(*) AS n, count(DISTINCT orderitem_id) AS items FROM orderitem_status_history')
        .get() as { n: number; items: number };
      const items = sim().tables.OrderItem.size;
      expect(h).toEqual({ n: items, items });
      for (const t of ['applicant_info', 'applicant_info_item']) {
        const r = m.sqlite.prepare(`SELECT count(*) AS n, count(DISTINCT id) AS ids FROM ${t}`).get() as {
          n: number;
          ids: number;
        };
        expect(r.n, t).toBe(r.ids);
      }
      // No pass is left under way, and the dead process's lock is gone.
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_checkpoint').get()).toEqual({ n: 0 });
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_lock').get()).toEqual({ n: 0 });
    });
  }

  beforeAll(async () => {
    config = cliConfig(dirname(tmp()));
    const file = tmp();
    const before = sim().stats.requests;
    const r = await sync(file);
    expect(r.code, r.stderr).toBe(0);
    fresh = sim().stats.requests - before;
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });

  // Kill points as shares of a fresh sync's requests, spread from early (the first pages of each
  // stream) to late (the id streams probing past their last ids).
  it.each([0.1, 0.3, 0.5, 0.7, 0.9])('killed after %s of the requests', async (share) => {
    const file = tmp();
    const killedAt = Math.round(share * fresh);
    const killed = await syncKilledAfter(file, killedAt);
    expect(killed.signal, 'the sync was still running when killed').toBe('SIGKILL');

    // The killed run left its rows, its checkpoints and a lock held by a dead process.
    await withMirror(file, (m) => {
      const rows = streamTables.reduce(
        (n, { table }) =>
          n + (m.sqlite.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n,
        0,
      );
      expect(rows).toBeGreaterThan(0);
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_lock').get()).toEqual({ n: 1 });
      const run = m.sqlite.prepare('SELECT outcome, ended_at FROM sync_run').all();
      expect(run).toEqual([{ outcome: 'running', ended_at: null }]);
    });

    const before = sim().stats.requests;
    const r = await sync(file);
    expect(r.code, r.stderr).toBe(0);
    const rerun = sim().stats.requests - before;
    expect(rerun, `rerun asked ${rerun} requests, a fresh sync ${fresh}`).toBeLessThan(fresh);
    // What the killed run fetched is kept: the two runs together ask little more than one fresh
    // sync (the rerun also re-asks what was in flight, and catches up incrementally on the
    // streams the killed run finished).
    expect(killedAt + rerun - fresh).toBeLessThan(0.2 * fresh);

    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
    await expectNoDuplicates(file);
  });

  it('SIGTERM stops after the page under way: exit 0, run recorded as interrupted, lock released', async () => {
    const file = tmp();
    const start = sim().stats.requests;
    const child = spawn(process.execPath, [OHS_BIN, 'sync', '--db', file, '--config', config], {
      env: { ...process.env, ...cliEnv(sim()) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    let signalledAt = 0;
    onRequest = () => {
      if (signalledAt === 0 && sim().stats.requests - start >= Math.round(0.3 * fresh)) {
        signalledAt = Date.now();
        child.kill('SIGTERM');
      }
    };
    try {
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code, stderr).toBe(0);
    } finally {
      onRequest = undefined;
    }
    expect(signalledAt).toBeGreaterThan(0);
    expect(Date.now() - signalledAt).toBeLessThan(5_000);
    await withMirror(file, (m) => {
      expect(m.sqlite.prepare('SELECT outcome FROM sync_run').all()).toEqual([{ outcome: 'interrupted' }]);
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_lock').get()).toEqual({ n: 0 });
      const open = m.sqlite
        .prepare('SELECT count(*) AS n FROM sync_stream_state WHERE pass_id IS NOT NULL')
        .get() as {
        n: number;
      };
      expect(open.n).toBeGreaterThan(0);
    });
    const r = await sync(file);
    expect(r.code, r.stderr).toBe(0);
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });
});
