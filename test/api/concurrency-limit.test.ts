import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit } from '../../src/api/rate/concurrency.js';
import { alternating, drive, fifo, type Served, timer } from '../helpers/served.js';

/**
 * The concurrency limit (src/api/rate/concurrency.ts) driven through servers on a simulated
 * clock (the class is pure): it climbs while more in flight brings more answers a second, holds
 * at the knee of a server that queues, follows a service that slows down and speeds up, and is
 * not pinned low by answers that alternate fast and slow. Each run is compared with the same
 * server at fixed concurrencies. Over real HTTP: rate-concurrency.test.ts.
 */
const LEVELS = [1, 2, 4, 8, 16, 24, 32, 48];
const adaptive = () => new ConcurrencyLimit({ initial: 8, max: 48 });
const fixed = (n: number) => new ConcurrencyLimit({ initial: n, min: n, max: n });

/** The most answers any fixed concurrency gets from a fresh `server()` in `ms`. */
const bestFixed = (server: () => Served, ms: number) =>
  Math.max(...LEVELS.map((n) => drive(fixed(n), server(), ms).answers));

/** Every half second over `ms`. */
const halves = (ms: number) => Array.from({ length: ms / 500 }, (_, i) => (i + 1) * 500);

describe('ConcurrencyLimit, on a simulated clock', () => {
  it('climbs to the ceiling while more in flight brings more answers (a timer, 40 ms)', () => {
    const limit = adaptive();
    const run = drive(
      limit,
      timer(() => 40),
      10_000,
      halves(10_000),
    );
    // The ceiling within the first second, and kept.
    expect(run.limits.slice(1), run.limits.join(',')).toEqual(run.limits.slice(1).map(() => 48));
    expect(run.answers / bestFixed(() => timer(() => 40), 10_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('is not pinned low by answers alternating 3, 44, 8, 47 ms per connection', () => {
    const server = () => alternating([3, 44, 8, 47]);
    const limit = adaptive();
    const run = drive(limit, server(), 10_000, halves(10_000));
    expect(Math.min(...run.limits.slice(2)), run.limits.join(',')).toBeGreaterThanOrEqual(32);
    expect(run.meanInFlight).toBeGreaterThan(40);
    // The baseline is a window's mean (about 25 ms), not the fastest answer (3 ms).
    expect(limit.baseline('get')).toBeGreaterThan(15);
    expect(run.answers / bestFixed(server, 10_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('holds at the knee of a server that queues (4 workers, 5 ms each): as many answers, a short queue', () => {
    const server = () => fifo(4, () => 5);
    const limit = adaptive();
    const run = drive(limit, server(), 10_000, halves(10_000));
    const settled = run.limits.slice(4);
    expect(Math.max(...settled), run.limits.join(',')).toBeLessThanOrEqual(10);
    expect(Math.min(...settled), run.limits.join(',')).toBeGreaterThanOrEqual(4);
    // Twice the workers at most, on average, and as many answers as the best fixed concurrency.
    expect(run.meanInFlight).toBeLessThanOrEqual(8);
    expect(run.answers / bestFixed(server, 10_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('follows a service that slows down and speeds up (its baseline expires and is renewed)', () => {
    // 4 workers at 5 ms, then 20 ms from the 4th second, then 5 ms again from the 10th.
    const service = (t: number) => (t >= 4000 && t < 10_000 ? 20 : 5);
    const limit = adaptive();
    const at = [3500, 9500, 15_500];
    const bases: number[] = [];
    const served = fifo(4, service);
    const watched: Served = {
      answer: (sent, c) => {
        if (bases.length < at.length && sent >= (at[bases.length] ?? 0))
          bases.push(limit.baseline('get') ?? 0);
        return served.answer(sent, c);
      },
    };
    const run = drive(limit, watched, 16_000, halves(16_000));
    const [fast, slow, again] = bases;
    expect(fast, bases.join(',')).toBeLessThan(10);
    expect(slow, bases.join(',')).toBeGreaterThan(15);
    expect(again, bases.join(',')).toBeLessThan(10);
    // Through all of it, about the workers in flight: never the ceiling, never the floor.
    expect(Math.max(...run.limits.slice(4)), run.limits.join(',')).toBeLessThanOrEqual(12);
    expect(Math.min(...run.limits.slice(4)), run.limits.join(',')).toBeGreaterThanOrEqual(3);
    expect(run.answers / bestFixed(() => fifo(4, service), 16_000)).toBeGreaterThanOrEqual(0.9);
  });

  it('does not shrink on latency alone: a service five times slower with no queue keeps it up', () => {
    const limit = adaptive();
    const run = drive(
      limit,
      timer((t) => (t < 4000 ? 100 : 500)),
      16_000,
      halves(16_000),
    );
    // More in flight still brings more answers a second: the ceiling, at the end as before.
    expect(run.limits.at(-1), run.limits.join(',')).toBe(48);
    expect(limit.snapshot().lowest).toBeGreaterThanOrEqual(8);
  });

  it('does not grow while the process asks for less (app-limited)', () => {
    const limit = adaptive();
    drive(
      limit,
      timer(() => 20),
      5000,
      [],
      4,
    );
    expect(limit.snapshot()).toEqual({ limit: 8, highest: 8, lowest: 8 });
  });

  it('stays put when fixed (floor = ceiling)', () => {
    const limit = fixed(6);
    drive(
      limit,
      fifo(2, () => 10),
      3000,
    );
    expect(limit.snapshot()).toEqual({ limit: 6, highest: 6, lowest: 6 });
  });
});
