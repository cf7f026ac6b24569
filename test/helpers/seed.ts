import { Rng } from '../../src/sim/rng.js';

/**
 * A seeded PRNG for a test's random choices (the sandbox's mulberry32): the same choices on every
 * run and machine. The seed is `OHS_TEST_SEED` when set (to replay a failure or explore others),
 * else the test's own; put `seed` in failure messages so a failing run can be replayed.
 */
export function seededRng(fallback: number): { rng: Rng; seed: number } {
  const fromEnv = Number(process.env.OHS_TEST_SEED);
  const seed = Number.isSafeInteger(fromEnv) && process.env.OHS_TEST_SEED !== '' ? fromEnv : fallback;
  return { rng: new Rng(seed), seed };
}
