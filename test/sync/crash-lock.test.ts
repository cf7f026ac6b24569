import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engines, withTargets } from '../helpers/engines.js';
import { killHarness } from '../helpers/kill.js';
import { cliEnv, expectMirrorEqualsTruth, one, withMirror } from '../helpers/mirror.js';
import { procState, startUnreaped } from '../helpers/unreaped.js';

/**
 * A sync killed with SIGKILL under a parent that never reaps it (a container without
 * an init) stays a zombie, which kill(pid, 0) still finds. Its lock must not block the next sync:
 * on SQLite the lock's holder is judged by its process state (Z: dead), on PostgreSQL the
 * session's advisory lock went with its connection. The next sync runs at once.
 */
describe('syncs killed under a parent that does not reap them', () => {
  const { sim, sync, config, setOnRequest } = killHarness();

  /** Starts `ohs sync ARGS` unreaped, SIGKILLs it once the service saw `after` more requests. */
  async function syncKilledUnreaped(file: string, after: number, ...args: string[]) {
    const start = sim().stats.requests;
    let killed = false;
    const run = await startUnreaped(['sync', '--db', file, '--config', config(), ...args], {
      env: cliEnv(sim()),
    });
    setOnRequest(() => {
      if (!killed && sim().stats.requests - start >= after) {
        killed = true;
        process.kill(run.pid, 'SIGKILL');
      }
    });
    // Ends when the process is a zombie: killed by the line above, or (a test error) done early.
    for (let i = 0; i < 6000 && procState(run.pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    setOnRequest(undefined);
    expect(killed, `the sync ended before ${after} requests`).toBe(true);
    expect(procState(run.pid)).toBe('Z');
    return run;
  }

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('kill -9 of a sync under a non-reaping parent, then ohs sync at once: it runs, the mirror equals the truth', async () => {
      const file = await target();
      const run = await syncKilledUnreaped(file, 40);
      try {
        // The zombie's lock row is still there: the next sync must see through it.
        await withMirror(file, async (m) => {
          expect(await one(m, sql`SELECT pid FROM sync_lock WHERE name = 'sync'`)).toEqual({ pid: run.pid });
        });
        const r = await sync(file);
        expect(r.stderr).not.toContain('LOCKED');
        expect(r.code, r.stderr).toBe(0);
        await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
      } finally {
        await run.close();
      }
    });

    it('--full after three killed incrementals (each followed at once by the next) equals the truth', async () => {
      const file = await target();
      expect((await sync(file)).code).toBe(0);
      sim().mutate(40);
      const runs = [];
      try {
        for (const after of [5, 20, 12]) runs.push(await syncKilledUnreaped(file, after));
        const r = await sync(file, '--full');
        expect(r.code, r.stderr).toBe(0);
        await withMirror(file, async (m) => {
          await expectMirrorEqualsTruth(m, sim().truth());
          const outcomes = await m.db.selectFrom('sync_run').select('outcome').orderBy('id').execute();
          expect(outcomes.map((o) => o.outcome)).toEqual([
            'ok',
            'interrupted',
            'interrupted',
            'interrupted',
            'ok',
          ]);
        });
      } finally {
        for (const run of runs) await run.close();
      }
    });
  });
});
