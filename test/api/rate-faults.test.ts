import { describe, expect, it } from 'vitest';
import { adaptiveClient, cutLog, loadStaff } from '../helpers/rate.js';
import { withSim } from '../helpers/sim.js';

/**
 * Throttles told apart from faults (docs/rate.md), over real HTTP against the sandbox: a 429 and a
 * burst of 503s cut the rate; a lone 503 (with its Retry-After), a dropped connection and a body
 * cut short are retried alone, with no cut and no hold of the client; a cut soon after a hold
 * starts from what was answered outside the hold. Bounds are counts, nothing is timed.
 */

describe.concurrent('throttles told apart from faults', () => {
  describe('faults', () => {
    // No rate limit; 4% of requests fail: 503 with Retry-After 1, dropped, or cut short.
    const sim = withSim({
      scale: 0.1,
      faultRate: 0.04,
      faultKinds: ['503', 'drop', 'truncate'],
      faultRetryAfter: 1,
    });

    it('a lone 503, a dropped connection, a truncated body: retried, no cut, no hold', async () => {
      const s = sim();
      const client = adaptiveClient(s, { maxRetries: 10, retryMaxMs: 3000 });
      try {
        await loadStaff(s, client, 400);
        const m = client.metrics();
        expect(s.stats.faults['503']).toBeGreaterThanOrEqual(2);
        expect(s.stats.faults.drop + s.stats.faults.truncate).toBeGreaterThanOrEqual(2);
        expect(m.rate?.cuts).toEqual({ throttled: 0, unavailable: 0 });
        expect(m.rate?.holds).toBe(0);
        expect(m.rate?.rate).toBeNull(); // still no limit: nothing said there is one
        const faults = s.stats.faults['503'] + s.stats.faults.drop + s.stats.faults.truncate;
        expect(m.rate?.faults).toBe(faults);
      } finally {
        await client.close();
      }
    });
  });

  describe('a burst of 503s', () => {
    // An overloaded service: past 40 req/s it answers 503 (Retry-After 1), never 429.
    const sim = withSim({ scale: 0.1, rateLimit: 40, overloadStatus: '503', retryAfter: 1 });

    it('cuts the rate, as a 429 would, and holds no one', async () => {
      const s = sim();
      const client = adaptiveClient(s, { maxRetries: 10, retryMaxMs: 3000 });
      try {
        await loadStaff(s, client, 240);
        const rate = client.metrics().rate;
        expect(s.stats.byStatus['503'], JSON.stringify({ stats: s.stats, rate })).toBeGreaterThanOrEqual(3);
        expect(rate?.cuts.unavailable).toBeGreaterThanOrEqual(1);
        expect(rate?.cuts.throttled).toBe(0);
        expect(rate?.holds).toBe(0);
        expect(rate?.rate).toBeGreaterThan(5);
        expect(rate?.rate).toBeLessThan(120);
      } finally {
        await client.close();
      }
    });
  });

  describe('a hold', () => {
    // 429 with Retry-After 2: each holds the whole client two seconds, during which it answers
    // nothing; a shallow bucket (4), so the first requests after a hold may be refused again.
    const sim = withSim({ scale: 0.1, rateLimit: 40, rateBurst: 4, retryAfter: 2 });

    it('does not deflate the next cut: cuts start from what was answered outside the hold', async () => {
      const s = sim();
      const { cuts, logger } = cutLog();
      const client = adaptiveClient(s, { maxRetries: 10, retryMaxMs: 3000, logger });
      try {
        await loadStaff(s, client, 300);
        const rate = client.metrics().rate;
        expect(rate?.holds).toBeGreaterThanOrEqual(2);
        // The first cuts are the start-up burst's (4 answered at once, from no rate at all). Later
        // cuts come right after holds: what was answered in the second after a 2 s hold is near 0,
        // and a cut from it landed at 0.7 x 4 req/s. Outside the hold the service answered about
        // 40 req/s: 0.7 x 40 = 28.
        const later = cuts.slice(cuts.findIndex((r) => r >= 10));
        expect(later.length).toBeGreaterThanOrEqual(2);
        expect(Math.min(...later), JSON.stringify(cuts)).toBeGreaterThan(10);
        expect(s.stats.rateLimited).toBeLessThanOrEqual(0.15 * s.stats.requests);
      } finally {
        await client.close();
      }
    });
  });
});
