import { describe, expect, it } from 'vitest';
import { CONCURRENCY, ConcurrencyLimit } from '../../src/api/rate/concurrency.js';

/**
 * The gradient limit's growth (src/api/rate/concurrency.ts), fed answers on a clock of the test's
 * own (the class is pure): slow start doubles the limit per window until a window shows a queue;
 * from then on it grows by √limit. Over real HTTP: rate-concurrency.test.ts.
 */
describe('ConcurrencyLimit growth', () => {
  /** Answers 7 ms apart: a window (16 answers and 100 ms) is exactly 16 answers. */
  const STEP = Math.ceil(CONCURRENCY.WINDOW_MS / (CONCURRENCY.WINDOW - 1));
  let t = 0;
  const tick = () => {
    t += STEP;
    return t;
  };
  /** One window of answers of `ms` each, with `inFlight` (the whole limit by default) in flight. */
  const window = (limit: ConcurrencyLimit, ms: number, inFlight = limit.limit) => {
    for (let i = 0; i < CONCURRENCY.WINDOW; i++) limit.add('get', ms, 0, inFlight, tick());
  };
  const fresh = (initial: number, max: number) => {
    const limit = new ConcurrencyLimit({ initial, max });
    // The first answer of a kind only sets its long average.
    limit.add('get', 20, 0, initial, tick());
    return limit;
  };

  it('doubles per window while no window showed a queue (slow start), up to the ceiling', () => {
    const limit = fresh(8, 48);
    const seen: number[] = [];
    for (let k = 0; k < 4; k++) {
      window(limit, 20);
      seen.push(limit.limit);
    }
    expect(seen).toEqual([16, 32, 48, 48]);
  });

  it('after a window with a queue, grows by √limit a window, not twice', () => {
    const limit = fresh(16, 400);
    window(limit, 20);
    expect(limit.limit).toBe(32);
    // Latency five times its long average: a queue; the limit falls, and slow start is over.
    window(limit, 100);
    const fallen = limit.limit;
    expect(fallen).toBeLessThan(32);
    window(limit, 20);
    expect(limit.limit).toBeGreaterThan(fallen);
    expect(limit.limit).toBeLessThanOrEqual(Math.floor(fallen + Math.sqrt(fallen) + 1));
  });

  it('in slow start a window is a round trip (the long average latency), after it WINDOW_MS', () => {
    // Answers 2 ms apart at 20 ms each: 16 of them span 30 ms, a round trip but not WINDOW_MS.
    let now = 0;
    const answers = (limit: ConcurrencyLimit, n: number, ms: number) => {
      for (let i = 0; i < n; i++) {
        now += 2;
        limit.add('get', ms, 0, limit.limit, now);
      }
    };
    const limit = new ConcurrencyLimit({ initial: 8, max: 400 });
    answers(limit, 1, 20);
    answers(limit, CONCURRENCY.WINDOW, 20);
    expect(limit.limit).toBe(16);
    answers(limit, CONCURRENCY.WINDOW, 20);
    expect(limit.limit).toBe(32);
    // A queue (latency five times the long average) ends slow start: windows are WINDOW_MS again.
    answers(limit, CONCURRENCY.WINDOW, 100);
    const fallen = limit.limit;
    expect(fallen).toBeLessThan(32);
    answers(limit, CONCURRENCY.WINDOW, 20);
    expect(limit.limit).toBe(fallen);
    answers(limit, CONCURRENCY.WINDOW_MS / 2, 20);
    expect(limit.limit).toBeGreaterThan(fallen);
  });

  it('does not grow while fewer than half of it are in use (the process asks for less)', () => {
    const limit = fresh(16, 48);
    window(limit, 20, 4);
    window(limit, 20, 4);
    expect(limit.limit).toBe(16);
  });
});
