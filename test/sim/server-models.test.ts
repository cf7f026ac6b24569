import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { pathOf } from '../helpers/sim-data.js';

/**
 * The servers the field has, beside `latencyMs` and the FIFO workers: answers that alternate
 * fast and slow per connection (`latencyCycleMs`), and a CPU every request in progress shares
 * (`cpuMs`, `cpus`). Only lower bounds on time are asserted, far apart (a loaded machine only
 * adds time), and the sandbox's own count of requests in progress.
 */
describe('alternating latency per connection', () => {
  const sim = withSim({ scale: 0.05, latencyCycleMs: [600, 0] });

  it('answers in turn fast and slow on each connection, with no queue', async () => {
    const s = sim();
    const url = new URL(s.url);
    // One connection: its answers take 600 and 0 ms in turn.
    const one = new Pool(url.origin, { connections: 1, pipelining: 1 });
    try {
      const took: number[] = [];
      for (let i = 0; i < 4; i++) {
        const started = Date.now();
        const res = await one.request({
          method: 'POST',
          path: `${url.pathname.replace(/\/+$/, '')}${pathOf('queryRole')}`,
          headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ pageSize: 1 }),
        });
        await res.body.text();
        expect(res.statusCode).toBe(200);
        took.push(Date.now() - started);
      }
      const [a = 0, b = 0, c = 0, d = 0] = took;
      expect(a, took.join(',')).toBeGreaterThanOrEqual(590);
      expect(c, took.join(',')).toBeGreaterThanOrEqual(590);
      // The fast ones, fast: far less than the slow ones beside them.
      expect(Math.max(b, d), took.join(',')).toBeLessThan(Math.min(a, c));
    } finally {
      await one.close();
    }
    // No queue: eight requests on eight new connections at once (each its first, slow turn) end
    // together, not one after another.
    s.resetStats();
    const started = Date.now();
    await Promise.all(Array.from({ length: 8 }, () => call(s, 'POST', pathOf('queryRole'), { pageSize: 1 })));
    expect(Date.now() - started).toBeLessThan(8 * 600);
    expect(s.stats.inFlight.peak).toBeGreaterThanOrEqual(2);
  });
});

describe('a shared CPU', () => {
  const sim = withSim({ scale: 0.1, cpuMs: 400, cpus: 1 });

  it('runs every request in progress at once, each slower: three at once take three times the work', async () => {
    const s = sim();
    s.resetStats();
    const started = Date.now();
    const ends = await Promise.all(
      Array.from({ length: 3 }, async () => {
        const res = await call(s, 'POST', pathOf('queryRole'), { pageSize: 1 });
        expect(res.status).toBe(200);
        return Date.now() - started;
      }),
    );
    // 3 × 400 ms of one core's work, shared: none ends before most of 1200 ms (a queue would end one at 400).
    expect(Math.min(...ends), ends.join(',')).toBeGreaterThanOrEqual(3 * 400 - 40);
    expect(s.stats.inFlight.peak).toBe(3);
    expect(s.stats.queue.peakDepth).toBe(0);
  });

  it('a big page slows the small request beside it', async () => {
    const s = sim();
    const started = Date.now();
    // A page of 250 records: 1000 ms of work; beside it, a page of one: 400 ms, shared at half speed.
    const [small] = await Promise.all([
      call(s, 'POST', pathOf('queryRole'), { pageSize: 1 }).then(() => Date.now() - started),
      call(s, 'POST', pathOf('queryOrderItem'), { pageSize: 250 }),
    ]);
    // Alone it would take 400 ms; the page's records are read before its work starts, so the two
    // share the core for a little less than all of the small one's work.
    expect(small).toBeGreaterThanOrEqual(1.5 * 400);
  });
});
