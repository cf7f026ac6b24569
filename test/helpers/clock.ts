import type { Clock } from '../../src/api/rate/clock.js';

interface Sleeper {
  at: number;
  seq: number;
  wake: () => void;
}

/**
 * What a wake sets off runs in microtasks (nothing driven by this clock may wait on real I/O):
 * promise chains a few dozen deep at most here (a limiter's acquire inside a queue's slot inside
 * a retry). After a wake the clock turns the microtask queue until the woken work sleeps again,
 * then QUIET turns more for what it set off beside it, TURNS at most: far cheaper than a
 * macrotask turn per wake, and the same turns every run.
 */
const TURNS = 64;
const QUIET = 8;

/**
 * A simulated clock: time moves only when everything it drives is asleep. `run(work)` lets the
 * work's promises settle, then jumps to the earliest sleeper's instant and wakes it (ties in the
 * order they went to sleep), again and again until the work is done: minutes of traffic in
 * milliseconds, the same way on an idle machine and a loaded one.
 */
export class SimClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly sleepers: Sleeper[] = [];

  constructor(start = 1_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => {
      this.sleepers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, wake });
    });
  }

  /** Drives the clock until `work` is done; fails if it waits on nothing or outlives `limitMs` of simulated time. */
  async run<T>(work: Promise<T>, limitMs = 3_600_000): Promise<T> {
    let done = false;
    const watched = work.finally(() => {
      done = true;
    });
    watched.catch(() => undefined);
    const end = this.t + limitMs;
    for (;;) {
      await this.settle();
      if (done) return watched;
      this.sleepers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.sleepers.shift();
      if (next === undefined) throw new Error('the simulated work waits on nothing the clock can wake');
      if (next.at > end) throw new Error(`the simulated work outlived ${limitMs} ms`);
      this.t = Math.max(this.t, next.at);
      next.wake();
    }
  }

  private async settle(): Promise<void> {
    const asleep = this.sleepers.length;
    for (let i = 0, quiet = 0; i < TURNS && quiet < QUIET; i++) {
      await undefined;
      if (this.sleepers.length > asleep) quiet++;
    }
  }
}
