/**
 * Time as the rate limiter sees it: the current instant and a way to wait. The limiter reads no
 * clock of its own, so a simulated clock can drive it (its tests run hours of traffic in
 * milliseconds, the same way each time); the transport passes `systemClock`.
 */
export interface Clock {
  /** Milliseconds since the epoch (or since the simulation's start). */
  now(): number;
  /** Resolves once `ms` have passed on this clock. */
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms))),
};
