import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { OHS_BIN } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { killHarness } from '../helpers/kill.js';
import { cliEnv, expectMirrorEqualsTruth, one, rows, streamTables, withMirror } from '../helpers/mirror.js';

/**
 * `ohs sync` killed with SIGKILL (no chance to checkpoint or release its lock) at points spread
 * over a run, then run again: the rerun resumes from the page checkpoints, takes over the dead
 * process's lock, ends equal to the truth with nothing duplicated and nothing wrongly deleted,
 * and asks the service for less than a fresh sync does.
 */
describe('a sync killed with SIGKILL, then rerun', () => {
  const { sim, sync, syncKilledAfter, expectNoDuplicates, setOnRequest, fresh, config } = killHarness();

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    // Kill points as shares of a fresh sync's requests, spread from early (the first pages of each
    // stream) to late (the id streams probing past their last ids).
    it.each([0.1, 0.3, 0.5, 0.7, 0.9])('killed after %s of the requests', async (share) => {
      const file = await target();
      const killedAt = Math.round(share * fresh());
      const killed = await syncKilledAfter(file, killedAt);
      expect(killed.signal, 'the sync was still running when killed').toBe('SIGKILL');

      // The killed run left its rows, its checkpoints and a lock held by a dead process.
      await withMirror(file, async (m) => {
        expect(m.engine).toBe(engine);
        let written = 0;
        for (const { table } of streamTables)
          written += ((await one(m, sql`SELECT count(*) AS n FROM ${sql.table(table)}`)) as { n: number }).n;
        expect(written).toBeGreaterThan(0);
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 1 });
        const run = await rows(m, sql`SELECT outcome, ended_at FROM sync_run`);
        expect(run).toEqual([{ outcome: 'running', ended_at: null }]);
      });

      const before = sim().stats.requests;
      const r = await sync(file);
      expect(r.code, r.stderr).toBe(0);
      const rerun = sim().stats.requests - before;
      // Resuming keeps what the killed run wrote; what it had in flight (up to api.maxConcurrency
      // requests) is asked again, and so are the streams it finished, incrementally. A kill at a
      // tenth can lose as much as it kept (measured under load: a rerun of 871 after a fresh 869,
      // on both Nodes): its bound is a fresh sync plus what may be in flight. Later kills save.
      const inFlight = defaults.api.maxConcurrency;
      expect(rerun, `rerun asked ${rerun} requests, a fresh sync ${fresh()}`).toBeLessThan(
        share < 0.3 ? fresh() + inFlight : fresh(),
      );
      // What the killed run fetched is kept: the two runs together ask little more than one fresh
      // sync (the rerun also re-asks what was in flight, up to api.maxConcurrency, asks its
      // service check, confirms the 404s of an unfinished id pass before they count, and catches
      // up incrementally on the streams the killed run finished). Measured: up to 0.25 at 0.9.
      expect(killedAt + rerun - fresh()).toBeLessThan(0.3 * fresh());

      await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
      await expectNoDuplicates(file);
    });

    it('SIGTERM stops after the page under way: exit 0, run recorded as interrupted, lock released', async () => {
      const file = await target();
      const start = sim().stats.requests;
      const child = spawn(process.execPath, [OHS_BIN, 'sync', '--db', file, '--config', config()], {
        env: { ...process.env, ...cliEnv(sim()) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      let signalledAt = 0;
      setOnRequest(() => {
        if (signalledAt === 0 && sim().stats.requests - start >= Math.round(0.3 * fresh())) {
          signalledAt = Date.now();
          child.kill('SIGTERM');
        }
      });
      try {
        const [code] = (await once(child, 'exit')) as [number | null];
        expect(code, stderr).toBe(0);
      } finally {
        setOnRequest(undefined);
      }
      expect(signalledAt).toBeGreaterThan(0);
      // It stopped after the page under way (the run is recorded interrupted, below), not after the
      // whole sync; the bound is loose on purpose, a loaded machine is slow to start and stop.
      expect(Date.now() - signalledAt).toBeLessThan(30_000);
      await withMirror(file, async (m) => {
        expect(await rows(m, sql`SELECT outcome FROM sync_run`)).toEqual([{ outcome: 'interrupted' }]);
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 });
        const open = (await one(
          m,
          sql`SELECT count(*) AS n FROM sync_stream_state WHERE pass_id IS NOT NULL`,
        )) as {
          n: number;
        };
        expect(open.n).toBeGreaterThan(0);
      });
      const r = await sync(file);
      expect(r.code, r.stderr).toBe(0);
      await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
    });
  });
});
