import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { cliConfig, cliEnv, one, streamTables, withMirror, withTmpDir } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * A service that trickles its answers (one byte every 5 s: no idle timeout ever
 * trips) must not hold the sync for half an hour. With the default deadlines (an attempt's total
 * deadline max(30 s, 10 x p99 seen), tried again once), the whole sync ends on its own with one
 * clear error: runOhs kills it after 2 minutes, which the test would see as a null exit code.
 */
describe.concurrent('a trickling service', () => {
  const tmp = withTmpDir();

  // The engines side by side, each with its own sandbox (the test counts the role queries its
  // sync sends), and beside the slow link below: the minute of each is spent waiting on the
  // trickle, not computing.
  describe.concurrent.each(engines)('%s', (engine) => {
    const sim = withSim({ scale: 0.02, trickleMs: 5000 });
    const target = withTargets(engine);

    it('the whole sync ends on its own within 2 minutes with a clear error, nothing written (no SQLite file created)', async () => {
      const file = await target();
      // The client's defaults for the timeouts (30 s idle); only the deadline can end an attempt.
      const config = cliConfig(dirname(tmp()), { timeoutMs: 30_000 });
      const before = sim().stats.byOperation.queryRole ?? 0;
      const r = await runOhs(['sync', '--db', file, '--config', config], {
        env: cliEnv(sim()),
        timeoutMs: 120_000,
      });
      expect(r.code, `killed at the 2-minute bound: ${r.stderr}`).not.toBeNull();
      expect(r.code).toBe(4);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('ohs: '));
      expect(errors).toEqual([
        'ohs: NETWORK: no complete answer within the request deadline (30000 ms) on 2 attempts: the service is too slow or trickling its answers (api.deadlineFloorMs, api.deadlineP99Multiple, api.requestDeadlineMs): POST /v2/query/core/role',
      ]);
      // The service check's own look (cut at its 10 s), then the attempt and its one retry, no more.
      expect((sim().stats.byOperation.queryRole ?? 0) - before).toBe(3);
      if (engine === 'sqlite') {
        // No mirror yet: the service check met the trickle before anything was created.
        expect(existsSync(file)).toBe(false);
        return;
      }
      // A database that may hold a mirror: the run makes the check itself and records its failure.
      await withMirror(file, async (m) => {
        expect(await one(m, sql`SELECT outcome, error_code FROM sync_run`)).toEqual({
          outcome: 'failed',
          error_code: 'NETWORK',
        });
        for (const { table } of streamTables)
          expect(await one(m, sql`SELECT count(*) AS n FROM ${sql.table(table)}`), table).toEqual({ n: 0 });
      });
    }, 180_000);
  });
});

/**
 * A large list is not a slow service: the org-month and user lists grow with the data (about
 * 120 MB at 20 times the sandbox) and are poured as a stream, so their attempt is granted its
 * deadline again while the body keeps coming at 1 KiB/s or more (up to api.requestDeadlineMs).
 * Here the sandbox sends every body at about 12.8 KB/s (512 bytes every 40 ms) and the deadline
 * of an attempt is 3 s (floor 3 s, 1 x the p99 of small answers): the org-month list (about
 * 125 KB) takes about 10 s, over three deadlines, and the sync completes with each list asked
 * once. A deadline of seconds, not a fraction of one: the service check's one small answer must
 * meet it on a loaded machine. The trickle above (a byte every 5 s) still ends at its first
 * deadline.
 */
describe.concurrent('a slow but steady link', () => {
  const tmp = withTmpDir();

  // The engines side by side, each with its own sandbox (the test counts the lists asked).
  describe.concurrent.each(engines)('%s', (engine) => {
    const sim = withSim({ scale: 0.02, trickleMs: 40, trickleBytes: 512 });
    const target = withTargets(engine);

    it('a list poured for longer than the deadline of pages is read whole, asked once', async () => {
      const file = await target();
      const config = cliConfig(dirname(tmp()), {
        timeoutMs: 30_000,
        deadlineFloorMs: 3000,
        deadlineP99Multiple: 1,
        requestDeadlineMs: 120_000,
        maxRetries: 0,
      });
      const before = { ...sim().stats.byOperation };
      const r = await runOhs(['sync', '--db', file, '--config', config, 'orgmonth', 'user'], {
        env: cliEnv(sim()),
        timeoutMs: 120_000,
      });
      expect(r.code, r.stderr).toBe(0);
      const asked = (op: string) => (sim().stats.byOperation[op] ?? 0) - (before[op] ?? 0);
      expect(asked('listOrgMonth')).toBe(1);
      expect(asked('listUser')).toBe(1);
      const truth = sim().truth();
      await withMirror(file, async (m) => {
        expect(await one(m, sql`SELECT count(*) AS n FROM orgmonth`)).toEqual({ n: truth.OrgMonth.length });
        expect(await one(m, sql`SELECT count(*) AS n FROM "user"`)).toEqual({ n: truth.User.length });
      });
    }, 180_000);
  });
});
