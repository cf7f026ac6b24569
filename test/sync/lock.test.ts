import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * One sync at a time per mirror (exit 6, LOCKED, for the second). SQLite: a lock left by a dead
 * process, or whose heartbeat stopped, is taken over. PostgreSQL: the lock is a session's
 * advisory lock, gone with its connection; rows left in sync_lock (informational there) never
 * block a sync.
 */
describe('ohs sync: one at a time per mirror', () => {
  // One sandbox for both engines (the tests only slow it down for a while).
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir();
  let config = '';
  /** A client held to 250 requests/s, so its sync lasts long enough for a second one to meet it. */
  let slowConfig = '';
  const sync = (file: string, ...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], { env: cliEnv(sim()), timeoutMs: 120_000 });

  beforeAll(() => {
    config = cliConfig(dirname(tmp()));
    slowConfig = cliConfig(dirname(tmp()), { requestsPerSecond: 250 });
  });

  /** Writes the lock row of a sync that is not running (or is), as another process would have. */
  async function plantLock(file: string, lock: { pid: number; host: string; heartbeatAgoMs: number }) {
    await withMirror(file, async (m) => {
      const beat = new Date(Date.now() - lock.heartbeatAgoMs).toISOString();
      const row = { pid: lock.pid, host: lock.host, acquired_at: beat, heartbeat_at: beat };
      await m.db
        .insertInto('sync_lock')
        .values({ name: 'sync', ...row })
        .onConflict((oc) => oc.column('name').doUpdateSet(row))
        .execute();
    });
  }

  /** The pid of a process that has exited. */
  async function deadPid(): Promise<number> {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    await once(child, 'exit');
    return child.pid as number;
  }

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('a second sync on the same mirror exits at once with LOCKED (exit 6); the first completes', async () => {
      const file = await target();
      const first = spawn(process.execPath, [OHS_BIN, 'sync', '--db', file, '--config', slowConfig], {
        env: { ...process.env, ...cliEnv(sim()) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let firstErr = '';
      first.stderr?.on('data', (d: Buffer) => {
        firstErr += d.toString();
      });
      const exited = once(first, 'exit');
      // Wait until the first sync is under way (the service sees its requests).
      const start = sim().stats.requests;
      while (sim().stats.requests - start < 20) await new Promise((r) => setTimeout(r, 10));
      // Then hold it there: every answer takes 2 s while the second sync starts, so a loaded
      // machine (a slow `node` start) cannot let the first finish before the second meets it.
      sim().configure({ latencyMs: 2_000 });
      let second: Awaited<ReturnType<typeof sync>>;
      let took: number;
      try {
        const t0 = Date.now();
        second = await sync(file);
        took = Date.now() - t0;
      } finally {
        sim().configure({ latencyMs: 0 });
      }
      expect(second.code, second.stderr).toBe(6);
      expect(second.stderr.trim()).toMatch(
        new RegExp(
          `^ohs: LOCKED: another sync is running on .+ \\(pid ${first.pid} on ${hostname()}, since `,
        ),
      );
      // It did not wait for the first (which had minutes of 2-second answers ahead of it).
      expect(took).toBeLessThan(30_000);
      expect(first.exitCode, 'the first sync was still running').toBeNull();

      const [code] = (await exited) as [number | null];
      expect(code, firstErr).toBe(0);
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth());
        // The locked-out sync recorded no run and left no lock.
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_run`)).toEqual({ n: 1 });
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 });
      });
    });

    // The lock rows of sync_lock are the SQLite engine's lock; PostgreSQL's is tested below.
    it.runIf(engine === 'sqlite')(
      'a lock left by a dead process, or with a stale heartbeat, is taken over; a live one is not',
      async () => {
        const file = await target();
        expect((await sync(file, 'role')).code).toBe(0);

        // Held by a live process on this host (this test runner), heartbeat fresh: LOCKED.
        await plantLock(file, { pid: process.pid, host: hostname(), heartbeatAgoMs: 0 });
        const live = await sync(file, 'role');
        expect(live.code).toBe(6);
        expect(live.stderr).toContain(`ohs: LOCKED: another sync is running on ${file} (pid ${process.pid}`);

        // Held by another host with a fresh heartbeat: it may be running there, LOCKED.
        await plantLock(file, { pid: 4242, host: 'elsewhere.example', heartbeatAgoMs: 5_000 });
        const remote = await sync(file, 'role');
        expect(remote.code).toBe(6);
        expect(remote.stderr).toContain('(pid 4242 on elsewhere.example');

        // The other host's heartbeat stopped over 2 minutes ago: stale, taken over.
        await plantLock(file, { pid: 4242, host: 'elsewhere.example', heartbeatAgoMs: 180_000 });
        const stale = await sync(file, 'role');
        expect(stale.code, stale.stderr).toBe(0);

        // A dead process on this host, heartbeat fresh (killed a moment ago): taken over.
        await plantLock(file, { pid: await deadPid(), host: hostname(), heartbeatAgoMs: 0 });
        const dead = await sync(file);
        expect(dead.code, dead.stderr).toBe(0);
        await withMirror(file, async (m) => {
          await expectMirrorEqualsTruth(m, sim().truth());
          expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 });
        });
      },
    );

    it.runIf(engine === 'postgres')(
      'a lock held by a live session refuses a sync; rows left in sync_lock by others do not',
      async () => {
        const file = await target();
        expect((await sync(file, 'role')).code).toBe(0);

        // Held by a live session of this process: LOCKED, naming it.
        const holder = await openMirror(file);
        try {
          const lock = await holder.lock('sync');
          try {
            const live = await sync(file, 'role');
            expect(live.code, live.stderr).toBe(6);
            expect(live.stderr).toContain(
              `ohs: LOCKED: another sync is running on ${holder.location} (pid ${process.pid} on ${hostname()}, since `,
            );
          } finally {
            await lock.release();
          }
        } finally {
          await holder.close();
        }

        // Rows no session holds the lock for: a live process's, another host's with a fresh
        // heartbeat, a dead process's. None blocks a sync, which leaves no row behind.
        for (const lock of [
          { pid: process.pid, host: hostname(), heartbeatAgoMs: 0 },
          { pid: 4242, host: 'elsewhere.example', heartbeatAgoMs: 5_000 },
          { pid: await deadPid(), host: hostname(), heartbeatAgoMs: 0 },
        ]) {
          await plantLock(file, lock);
          const r = await sync(file, 'role');
          expect(r.code, `${JSON.stringify(lock)}: ${r.stderr}`).toBe(0);
          await withMirror(file, async (m) =>
            expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 }),
          );
        }
        const all = await sync(file);
        expect(all.code, all.stderr).toBe(0);
        await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
      },
    );
  });
});
