import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SimRecord } from '../../src/sim/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { syncInto, values, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The incremental run's deletion sweep of order items by position (src/sync/sweep.ts), over real
 * HTTP against the sandbox, with and without a `total` in list responses: one request when
 * nothing was deleted; closed items deleted upstream found by narrowing the ranges that differ,
 * with fewer requests than a scan of every id.
 */
const PAGE_CAP = 250;

async function deleteClosed(sim: ReturnType<ReturnType<typeof withSim>>, n: number): Promise<SimRecord[]> {
  const closed = sim.tables.OrderItem.all().filter((r) => r.isNotModifiable === true);
  // Spread over the id range: each in a different part of the first split.
  const step = Math.floor(closed.length / n);
  const removed = Array.from({ length: n }, (_, k) => closed[k * step] as SimRecord);
  for (const r of removed) sim.tables.OrderItem.delete(r.id);
  return removed;
}

function deletedIds(file: string): Promise<number[]> {
  return withMirror(file, (m) =>
    values<number>(m, sql`SELECT id FROM orderitem WHERE deleted_at IS NOT NULL ORDER BY id`),
  );
}

describe.each(['object', 'array'] as const)('incremental order item sweep, envelope %s', (envelope) => {
  // Scale 0.3: 9,000 order items, enough ids for the sweep to split its range (docs/sync.md, sweep.ts).
  const sim = withSim({ scale: 0.3, envelope, pageCap: PAGE_CAP });
  // One sandbox per envelope for both engines: each test puts back what it deleted.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('finds closed items deleted upstream, in fewer requests than a scan of every id', async () => {
      const file = await target();
      const s = sim();
      expect((await syncInto(s, file, { streams: ['orderitem'] })).outcome).toBe('ok');
      const items = s.tables.OrderItem.size;
      const scanPages = Math.ceil(items / PAGE_CAP);

      const quiet = await syncInto(s, file, { streams: ['orderitem'] });
      const stream = quiet.streams[0];
      expect(stream?.stats.mode).toBe('incremental');
      expect(stream?.stats.deleted).toBe(0);
      // The run's one service check (docs/sync.md: a wrong base URL stops before any stream), then
      // sweep + rows above the top + re-poll of the open rows (one page each at this scale).
      expect(stream?.requests).toBeLessThanOrEqual(5);

      const removed = await deleteClosed(s, 2);
      try {
        const after = await syncInto(s, file, { streams: ['orderitem'] });
        const swept = after.streams[0];
        expect(swept?.outcome).toBe('ok');
        expect(swept?.stats.deleted).toBe(2);
        expect(await deletedIds(file)).toEqual(removed.map((r) => Number(r.id)).sort((a, b) => a - b));
        expect(swept?.requests).toBeLessThan(scanPages);
      } finally {
        for (const r of removed) s.tables.OrderItem.insert(r);
      }
    });
  });
});
