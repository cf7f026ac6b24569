import { sql } from 'kysely';
import { describe, it } from 'vitest';
import type { SimOptions } from '../../src/sim/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, one, streamTables, syncInto, withMirror } from '../helpers/mirror.js';
import { FAULTY_AND_LIMITED, withSim } from '../helpers/sim.js';

type Setting = Pick<SimOptions, 'envelope' | 'pageCap' | 'defaultOrder'>;

/**
 * Every reading of the gaps that changes how lists come back: envelope (array / object), page
 * cap (250 / 0 / 37) and default order (hash / id). Six settings cover every pair of values
 * (each envelope with each cap, each cap with each order, each envelope with each order), which
 * is where a paging bug shows, at half the run time of all twelve.
 */
const settings: Setting[] = [
  { envelope: 'array', pageCap: 250, defaultOrder: 'hash' },
  { envelope: 'object', pageCap: 250, defaultOrder: 'id' },
  { envelope: 'array', pageCap: 0, defaultOrder: 'id' },
  { envelope: 'object', pageCap: 0, defaultOrder: 'hash' },
  { envelope: 'array', pageCap: 37, defaultOrder: 'hash' },
  { envelope: 'object', pageCap: 37, defaultOrder: 'id' },
];

describe('a full sync through faults and a rate limit: the mirror equals the truth', () => {
  // 20% of the requests let through fail (503, 500, connection dropped, body cut short), and a
  // token bucket of 800 requests/s (burst 4) answers 429 beyond it. Hangs are tested in
  // full-sync-more.test.ts (each stalls a batch of id reads for the client's timeout).
  // The burst is small so that 429s come from the client's 8 requests at once, whatever the
  // machine's load: a larger one was only met when the client ran fast enough.
  // Each sync has its own sandbox (its own rate limit and stats), so the twelve run at once (up
  // to vitest's maxConcurrency): each spends most of its time waiting out the rate it learned from
  // the first 429s (CUBIC climbing back from a cut taken on a few answers), not on CPU.
  describe.concurrent.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    describe.concurrent.each(settings)(
      'envelope $envelope, page cap $pageCap, default order $defaultOrder',
      (setting) => {
        const sim = withSim({
          ...FAULTY_AND_LIMITED,
          rateBurst: 4,
          ...setting,
        });

        it('the mirror equals the truth', async ({ expect }) => {
          const file = await target();
          const report = await syncInto(sim(), file, { full: true }, { maxRetries: 12 });
          expect(report.error, String(report.error)).toBeUndefined();
          expect(report.outcome).toBe('ok');
          expect(report.streams.map((s) => s.outcome)).toEqual(streamTables.map(() => 'ok'));

          // The run met what it was meant to meet.
          const stats = sim().stats;
          const faults = Object.values(stats.faults).reduce((a, b) => a + b, 0);
          expect(faults / (stats.requests - stats.rateLimited)).toBeGreaterThan(0.12);
          expect(stats.rateLimited).toBeGreaterThan(0);

          const truth = sim().truth();
          await withMirror(file, async (m) => {
            expect(m.engine).toBe(engine);
            await expectMirrorEqualsTruth(m, truth);
            const run = await m.db
              .selectFrom('sync_run')
              .selectAll()
              .where('id', '=', report.runId)
              .executeTakeFirstOrThrow();
            expect(run).toMatchObject({ outcome: 'ok', mode: 'full', error_code: null });
            expect(run.retries).toBeGreaterThan(0);
            expect(await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toEqual({ n: 0 });
          });
        });
      },
    );
  });
});
