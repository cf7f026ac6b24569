import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engines, withTargets } from '../helpers/engines.js';
import { activeCounts, expectMirrorEqualsTruth, one, syncInto, withMirror } from '../helpers/mirror.js';
import { FAULTY_AND_LIMITED, withSim } from '../helpers/sim.js';

describe('a full sync: hangs past the client timeout, and a second pass over an unchanged service', () => {
  // A sandbox per engine, so the engines run at once (each sync mostly waits: hangs, the rate
  // climbing back after its first 429s); within an engine the tests run in turn, each configuring
  // the sandbox before its syncs.
  describe.concurrent.each(engines)('%s', (engine) => {
    const sim = withSim({
      ...FAULTY_AND_LIMITED,
      rateBurst: 20,
    });
    const target = withTargets(engine);
    describe.sequential('in turn', () => {
      it('requests held past the client timeout (hang) are retried: the mirror still equals the truth', async () => {
        // A 400 ms hang against a 150 ms client timeout: the request times out and is retried.
        sim().configure({
          faultRate: 0.1,
          envelope: 'object',
          pageCap: 37,
          defaultOrder: 'id',
          faultKinds: ['503', 'drop', 'truncate', 'hang'],
          hangMs: 400,
          rateLimit: 0,
        });
        sim().resetStats();
        const file = await target();
        const report = await syncInto(sim(), file, { full: true }, { timeoutMs: 150, maxRetries: 12 });
        expect(report.error, String(report.error)).toBeUndefined();
        expect(sim().stats.faults.hang).toBeGreaterThan(0);
        await withMirror(file, async (m) => {
          expect(m.engine).toBe(engine);
          await expectMirrorEqualsTruth(m, sim().truth());
        });
      });

      it('a second full pass over an unchanged service changes nothing and deletes nothing', async () => {
        sim().configure({ faultRate: 0.2, faultKinds: ['503', '500', 'drop', 'truncate'], rateLimit: 800 });
        const file = await target();
        await syncInto(sim(), file, { full: true }, { maxRetries: 12 });
        const before = await withMirror(file, (m) => activeCounts(m));
        const report = await syncInto(sim(), file, { full: true }, { maxRetries: 12 });
        expect(report.outcome).toBe('ok');
        for (const s of report.streams) {
          expect(s.stats, s.stream).toMatchObject({ mode: 'full', inserted: 0, updated: 0, deleted: 0 });
          expect(s.stats.unchanged, s.stream).toBe(before[s.stream]);
        }
        await withMirror(file, async (m) => {
          await expectMirrorEqualsTruth(m, sim().truth());
          // One history row per order item: seeing the same status again adds none.
          const h = (await one(
            m,
            sql`SELECT count(*) AS n, count(DISTINCT orderitem_id) AS items FROM orderitem_status_history`,
          )) as { n: number; items: number };
          expect(h).toEqual({ n: before.orderitem, items: before.orderitem });
        });
      });
    });
  });
});
