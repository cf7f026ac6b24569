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
  /**
   * Resolves once what has already arrived has been handled (the system's: one turn of the event
   * loop, after the I/O of this one). Absent: nothing to wait for (a simulated clock).
   */
  drain?(): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms))),
  drain: () => new Promise<void>((resolve) => setImmediate(resolve)),
};
