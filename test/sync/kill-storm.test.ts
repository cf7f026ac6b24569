import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engines, withTargets } from '../helpers/engines.js';
import { killHarness } from '../helpers/kill.js';
import { expectMirrorEqualsTruth, one, withMirror } from '../helpers/mirror.js';
import { seededRng } from '../helpers/seed.js';

/**
 * Kill storms: `ohs sync` SIGKILLed again and again at random instants, against a
 * sandbox failing 5% of requests and changing its data as it is read, then one run to the end:
 * the mirror equals the sandbox's truth, with no pass, stage or lock left behind. Kill instants
 * are counted in service requests, never in wall-clock time, so a loaded machine changes nothing,
 * and drawn from a seeded PRNG (OHS_TEST_SEED to replay another; failures name the seed).
 */
describe('kill storms', () => {
  // Scale 0.02 (about 500 requests a fresh sync, the order items still two pages): a storm is a
  // dozen runs, and its kills are drawn as shares of a fresh sync's requests, whatever its size.
  const { sim, sync, syncKilledAfter, fresh } = killHarness({ scale: 0.02 });

  /** Kills `ohs sync ARGS` after a random share (5% to 60%) of a fresh sync's requests. */
  async function killAtRandom(
    file: string,
    { rng, seed }: ReturnType<typeof seededRng>,
    times: number,
    ...args: string[]
  ): Promise<number[]> {
    const at: number[] = [];
    for (let i = 0; i < times; i++) {
      const after = Math.max(5, Math.round((0.05 + rng.next() * 0.55) * fresh()));
      at.push(after);
      const r = await syncKilledAfter(file, after, ...args);
      // A run may end before its kill instant (a resumed pass has less to do): that is fine.
      expect([null, 'SIGKILL'], `killed after ${after} requests (seed ${seed})`).toContain(r.signal);
    }
    return at;
  }

  async function expectSettled(file: string, note: string) {
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth());
      for (const t of ['sync_checkpoint', 'sync_lock', 'sync_pass_stage', 'sync_pass_seen']) {
        expect(await one(m, sql`SELECT count(*) AS n FROM ${sql.table(t)}`), `${t} (${note})`).toEqual({
          n: 0,
        });
      }
    });
  }

  /**
   * Kills `ohs sync ARGS` `times` times with 5% faults and live mutation, then (mutation off,
   * faults on) runs `ohs sync --full` to the end: the mirror equals the truth.
   */
  async function storm(file: string, random: ReturnType<typeof seededRng>, times: number, ...args: string[]) {
    const { seed } = random;
    sim().configure({ faultRate: 0.05, mutateEveryRequests: 60, mutationSize: 2 });
    let at: number[] = [];
    try {
      at = await killAtRandom(file, random, times, ...args);
    } finally {
      sim().configure({ mutateEveryRequests: 0 });
    }
    try {
      const r = await sync(file, '--full');
      expect(r.code, `${r.stderr} (killed after ${at.join(', ')} requests, seed ${seed})`).toBe(0);
      await expectSettled(file, `killed after ${at.join(', ')}, seed ${seed}`);
    } finally {
      sim().configure({ faultRate: 0 });
    }
  }

  // One sandbox for both engines (each storm leaves it static, its faults off, again).
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('--full killed at 10 random instants with faults and live mutation, then run to the end', async () => {
      await storm(await target(), seededRng(1126), 10, '--full');
    }, 600_000);

    it('an incremental run killed three times, then --full', async () => {
      const file = await target();
      const first = await sync(file);
      expect(first.code, first.stderr).toBe(0);
      await storm(file, seededRng(2511), 3);
    }, 600_000);
  });
});
