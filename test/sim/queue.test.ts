import { describe, expect, it } from 'vitest';
import { SERVICE_PAGE_RECORDS } from '../../src/sim/queue.js';
import { call, withSim } from '../helpers/sim.js';
import { asList, asObj, num, pathOf, query } from '../helpers/sim-data.js';

/**
 * `workers` and `serviceMs`: the sandbox serves N requests at a time, each holding a worker for
 * its service time, and the rest wait in a FIFO queue. Only lower bounds on time are asserted (a
 * worker is held at least its service time, whatever the machine's load); the queue's own
 * invariants (never more than N served at once) are exact.
 */
describe('server queue', () => {
  const sim = withSim({ scale: 0.1, workers: 2, serviceMs: 50 });

  it('serves 2 at a time: 8 requests at once take 4 service times, 6 wait', async () => {
    const s = sim();
    s.resetStats();
    const started = Date.now();
    const ends = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await call(s, 'POST', pathOf('queryRole'), { pageSize: 1 });
        expect(res.status).toBe(200);
        return Date.now() - started;
      }),
    );
    // 8 requests, 2 at a time, 50 ms each: the last ends after 4 rounds at least.
    expect(Math.max(...ends)).toBeGreaterThanOrEqual(4 * 50 - 5);
    const q = s.stats.queue;
    expect(q.served).toBe(8);
    expect(q.peakBusy).toBe(2);
    expect(q.peakDepth).toBeGreaterThanOrEqual(1);
    expect(q.peakDepth).toBeLessThanOrEqual(6);
    expect(q.busyMs).toBeGreaterThanOrEqual(8 * 50 - 8);
    expect(q.waitMs).toBeGreaterThan(0);
  });

  it('reports the queue in the stats hook', async () => {
    const s = sim();
    const res = await call(s, 'GET', '/__sim/stats');
    const q = asObj(asObj(res.body, 'stats').queue, 'stats.queue');
    expect(num(q.served, 'served')).toBe(s.stats.queue.served);
    expect(num(q.peakDepth, 'peakDepth')).toBe(s.stats.queue.peakDepth);
    expect(num(q.busyMs, 'busyMs')).toBe(s.stats.queue.busyMs);
  });

  it('holds a worker longer for a bigger page', async () => {
    const s = sim();
    s.resetStats();
    const records = await query(s, 'queryOrderItem', { pageSize: 250 });
    expect(records.length).toBe(250);
    expect(s.stats.queue.busyMs).toBeGreaterThanOrEqual((50 * 250) / SERVICE_PAGE_RECORDS - 2);
  });

  it('changes while running: workers 0 is no queue, and waiting requests go on', async () => {
    const s = sim();
    s.configure({ workers: 1, serviceMs: 200 });
    s.resetStats();
    const pending = Array.from({ length: 3 }, () => query(s, 'queryRole', { pageSize: 1 }));
    // Opened to every request at once while they wait: none is left behind.
    await new Promise((resolve) => setTimeout(resolve, 50));
    s.configure({ workers: 0 });
    const answers = await Promise.all(pending);
    expect(answers.map((a) => asList(a, 'answer').length)).toEqual([1, 1, 1]);
    expect(s.stats.queue.served).toBe(3);
    s.configure({ workers: 2, serviceMs: 50 });
  });
});

describe('no queue by default', () => {
  const sim = withSim({ scale: 0.1 });

  it('serves every request at once with no service time', async () => {
    const s = sim();
    expect(s.options.workers).toBe(0);
    expect(s.options.serviceMs).toBe(0);
    await Promise.all(Array.from({ length: 8 }, () => query(s, 'queryRole', { pageSize: 1 })));
    expect(s.stats.queue.served).toBe(8);
    expect(s.stats.queue.peakDepth).toBe(0);
  });
});
