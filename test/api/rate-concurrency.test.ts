import { describe, expect, it } from 'vitest';
import { clientFor } from '../helpers/client.js';
import { loadStaff } from '../helpers/rate.js';
import { withSim } from '../helpers/sim.js';

/**
 * Adaptive concurrency (src/api/rate/concurrency.ts) over real HTTP: against a service answering
 * in 100 ms, the requests in flight rise from the 4 the client starts with (by Little's law, 4 in
 * flight at 100 ms cap it at 40 req/s); when the service's latency inflates, they fall.
 * Assertions are on the limit the client reports, never on times.
 */

describe('adaptive concurrency', () => {
  const sim = withSim({ scale: 0.1, latencyMs: 100, latencyJitterMs: 10 });

  it('rises with the latency the service shows, and falls when latency inflates', async () => {
    const s = sim();
    const client = clientFor(s, { concurrency: 4, maxConcurrency: 32, requestsPerSecond: 'auto' });
    try {
      await loadStaff(s, client, 800, 48);
      const risen = client.metrics().concurrency;
      expect(risen?.highest, JSON.stringify(risen)).toBeGreaterThanOrEqual(16);

      // The service now answers in 500 ms instead of 100: five times the long average, however
      // loaded the machine, so the windows show a queue and the limit falls. Its lowest while the
      // service was slow is what is asserted, read every 10 ms as the client reports it.
      s.configure({ latencyMs: 500 });
      const before = client.transport.concurrency;
      let lowest = before;
      const watch = setInterval(() => {
        lowest = Math.min(lowest, client.transport.concurrency);
      }, 10);
      try {
        await loadStaff(s, client, 240, 48);
      } finally {
        clearInterval(watch);
      }
      lowest = Math.min(lowest, client.transport.concurrency);
      // Below where it stood (unless a machine loaded to the point of noise had already brought it
      // to its floor of 2).
      const seen = JSON.stringify({ risen, before, now: client.metrics().concurrency });
      expect(lowest, seen).toBeLessThan(Math.max(3, before));
      // Latency is the concurrency's signal alone: the rate was never cut.
      expect(client.metrics().rate?.cuts).toEqual({ throttled: 0, unavailable: 0 });
    } finally {
      await client.close();
      s.configure({ latencyMs: 100 });
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

/**
 * A server serving 4 requests at a time, each holding a worker for 30 ms, and the rest waiting in
 * its queue: at 32 in flight an answer waits about 200 ms, far above what a loaded client machine
 * adds (tens of ms of its own event-loop delay), so the queue is what the limit sees. (At 5 ms of
 * service, the queue at 32 in flight adds 35 ms, which a loaded machine's own delay swamps.)
 */
const WORKERS = 4;

describe('against a server that queues (4 workers, 30 ms each), no rate limit', () => {
  const sim = withSim({ scale: 0.1, workers: WORKERS, serviceMs: 30 });

  it('the rate is never cut, and the concurrency limit settles near the workers', async () => {
    const s = sim();
    // Starting at the workers: the limit's long-term average is seeded by its first answers, and
    // answers that already queued would make a queue the baseline it is judged by.
    const client = clientFor(s, { concurrency: WORKERS, maxConcurrency: 48, requestsPerSecond: 'auto' });
    try {
      // 64 callers: the client could keep the whole ceiling (48) in flight; a server serving 4 at
      // a time answers the rest after a wait in its queue, so latency grows with what is in flight.
      // The first 400 answers (about 3 s) let the limit rise and settle.
      await loadStaff(s, client, 400, 64);
      const limits: number[] = [];
      const watch = setInterval(() => limits.push(client.transport.concurrency), 20);
      try {
        await loadStaff(s, client, 600, 64);
      } finally {
        clearInterval(watch);
      }
      const m = client.metrics();
      expect(s.stats.rateLimited).toBe(0);
      expect(m.rate?.cuts).toEqual({ throttled: 0, unavailable: 0 });
      expect(m.rate?.rate).toBeNull();
      // Settled: over the second run, the limit the client kept most of the time is near the
      // server's 4 workers (Gradient2 keeps the queue its tolerance allows, a few times them),
      // well below the 48 it could have kept. Generous for a loaded machine: at most 5 × workers.
      limits.sort((a, b) => a - b);
      const median = limits[Math.floor(limits.length / 2)] ?? 0;
      const seen = JSON.stringify({
        median,
        low: limits[0],
        high: limits.at(-1),
        concurrency: m.concurrency,
      });
      expect(median, seen).toBeGreaterThanOrEqual(2);
      expect(median, seen).toBeLessThanOrEqual(5 * WORKERS);
      expect(s.stats.queue.peakBusy).toBe(WORKERS);
    } finally {
      await client.close();
    }
  });
});
