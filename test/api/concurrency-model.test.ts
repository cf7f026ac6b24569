import { describe, expect, it } from 'vitest';
import { LOADED, MODEL_CASES, simulate } from '../../bench/rate-model.js';

/**
 * The client's two controllers as they are (ConcurrencyLimit, RateControl) against every server
 * model of the rate bench, on a simulated clock (bench/rate-model.ts): idle, and on a loaded
 * machine modelled as processes running in slices (answers noticed in bursts). Each adaptive run
 * is compared with the same server at each fixed concurrency from 1 to 48.
 */
const LEVELS = [1, 2, 4, 8, 16, 24, 32, 48];
const MS = 20_000;
const SEEDS = [1, 2, 3];

const bestFixed = (
  c: (typeof MODEL_CASES)[number],
  load: typeof LOADED | undefined,
  seed: number,
  ms: number = MS,
) => Math.max(...LEVELS.map((n) => simulate(c.server(), ms, n, load, seed).answers));

describe.each([
  ['idle', undefined, 0.9],
  ['loaded', LOADED, 0.85],
] as const)('adaptive concurrency on a simulated clock, %s machine', (_, load, target) => {
  it.each(MODEL_CASES)(
    '$what: at least the target share of the best fixed concurrency, at most 3 in 100 answered 429',
    (c) => {
      let share = 0;
      let refused = 0;
      let sent = 0;
      const seeds = load === undefined ? [1] : SEEDS;
      for (const seed of seeds) {
        const run = simulate(c.server(), MS, undefined, load, seed);
        share += run.answers / bestFixed(c, load, seed);
        refused += run.rateLimited;
        sent += run.sent;
        if (c.limit !== undefined)
          expect(run.answers / (MS / 1000) / c.limit, `seed ${seed}`).toBeGreaterThanOrEqual(0.85);
      }
      expect(share / seeds.length).toBeGreaterThanOrEqual(target);
      expect(refused / sent).toBeLessThanOrEqual(0.03);
    },
  );
});

describe('against FIFO workers on an idle machine', () => {
  it('keeps no more than twice the workers in flight on average, with all the answers of the best fixed level', () => {
    const fifo = MODEL_CASES.find((c) => c.name === 'fifo');
    if (fifo === undefined) throw new Error('no fifo model');
    const run = simulate(fifo.server(), MS);
    expect(run.meanInFlight).toBeLessThanOrEqual(8);
    expect(run.answers / bestFixed(fifo, undefined, 1)).toBeGreaterThanOrEqual(0.95);
  });

  it('on a loaded machine, where more in flight still brings more answers, follows them above the workers', () => {
    const fifo = MODEL_CASES.find((c) => c.name === 'fifo');
    if (fifo === undefined) throw new Error('no fifo model');
    // The processes' slices, not the four workers, are the bottleneck: 48 in flight answers
    // several times what 8 does, and the limit goes there.
    const at8 = simulate(fifo.server(), MS, 8, LOADED).answers;
    const at48 = simulate(fifo.server(), MS, 48, LOADED).answers;
    expect(at48).toBeGreaterThan(2 * at8);
    expect(simulate(fifo.server(), MS, undefined, LOADED).meanInFlight).toBeGreaterThan(16);
  });
});

describe('a short sync against a server with no queue (two simulated seconds, idle)', () => {
  // The climb from 8 to 48 in flight is most of a short sync: a step that delivered in
  // proportion to what it added is followed by a longer one (8, 16, then 48, not 32 first).
  it.each(MODEL_CASES.filter((c) => c.name === 'timer' || c.name === 'alternating'))(
    '$what: at least 0.8 of the best fixed concurrency',
    (c) => {
      const run = simulate(c.server(), 2000);
      expect(run.answers / bestFixed(c, undefined, 1, 2000)).toBeGreaterThanOrEqual(0.8);
      expect(run.limit.highest).toBe(48);
    },
  );
});
