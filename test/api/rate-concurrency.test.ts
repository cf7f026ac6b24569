import { describe, expect, it } from 'vitest';
import { clientFor } from '../helpers/client.js';
import { loadStaff } from '../helpers/rate.js';
import { withSim } from '../helpers/sim.js';

/**
 * Adaptive concurrency (src/api/rate/concurrency.ts) over real HTTP: against a service answering
 * in 100 ms, the requests in flight rise from the 4 the client starts with (by Little's law, 4 in
 * flight at 100 ms cap it at 40 req/s); when the service's latency inflates with load, they fall.
 * Assertions are on the limit the client reports, never on times.
 */

describe('adaptive concurrency', () => {
  const sim = withSim({ scale: 0.1, latencyMs: 100, latencyJitterMs: 10 });

  it('rises with the latency the service shows, and falls when latency inflates', async (ctx) => {
    const s = sim();
    const client = clientFor(s, { concurrency: 4, maxConcurrency: 32, requestsPerSecond: 'auto' });
    try {
      await loadStaff(s, client, 800, 48);
      const risen = client.metrics().concurrency;
      expect(risen?.highest, JSON.stringify(risen)).toBeGreaterThanOrEqual(16);
      expect(risen?.limit).toBeGreaterThanOrEqual(12);

      // The service now slows with load: past 40 req/s each answer waits 1 s more per 40 req/s
      // (beyond the 1.5x of latency that counts as no queue).
      s.configure({ loadKnee: 40, loadLatencyMs: 1000 });
      s.resetStats();
      await loadStaff(s, client, 400, 48);
      const fallen = client.metrics().concurrency;
      // A machine too loaded to send over the knee in any second never saw the service slow.
      const busiest = Math.max(0, ...Object.values(s.stats.bySecond));
      if (busiest <= 40 && fallen?.limit === risen?.limit) {
        ctx.skip(
          `the client never sent over the knee (busiest second ${busiest} requests): no inflation to see`,
        );
        return;
      }
      expect(fallen?.limit, JSON.stringify({ risen, fallen })).toBeLessThan(risen?.limit ?? 0);
      expect(fallen?.lowest).toBeLessThan(risen?.limit ?? 0);
    } finally {
      await client.close();
      s.configure({ loadKnee: 0 });
    }
  });

  it('stays fixed when the ceiling is the start (maxConcurrency = concurrency)', async () => {
    const s = sim();
    const client = clientFor(s, { concurrency: 4, requestsPerSecond: 'auto' });
    try {
      await loadStaff(s, client, 200, 48);
      expect(client.metrics().concurrency).toEqual({ limit: 4, highest: 4, lowest: 4 });
    } finally {
      await client.close();
    }
  });
});
