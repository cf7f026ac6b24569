import type { Logger } from '../../log.js';
import { budgetKey, type RateBudgetStore } from './budget.js';
import { type Clock, systemClock } from './clock.js';
import { type Observation, type RateAnswer, RateControl, type RateCounts } from './control.js';
import { SharedBudget } from './shared.js';

export interface RateLimiterOptions {
  /** `'auto'`: adaptive; a number: adaptive below that ceiling. */
  requestsPerSecond: number | 'auto';
  /** Shared budget of every process on the mirror; absent: this process only. */
  budget?: RateBudgetStore | undefined;
  baseUrl: string;
  token: string;
  /** Longest hold honoured (Retry-After, an exhausted quota), ms. */
  maxHoldMs: number;
  /** Time and waiting (the system's by default; a simulated clock in tests). */
  clock?: Clock | undefined;
  logger?: Logger | undefined;
}

export interface RateSnapshot extends RateCounts {
  /** Requests per second in force at the end (null: no limit found). */
  rate: number | null;
  /** The rate announced by RateLimit headers, if any. */
  plannedRate: number | null;
  /** The rate this process saw the service take cleanly, the floor of its cuts (null: none). */
  cleanRate: number | null;
  /** Shared-budget round trips, and their total time in ms. */
  leases: number;
  leaseMs: number;
}

const rounded = (n: number): number | null => (Number.isFinite(n) && n > 0 ? Math.round(n * 10) / 10 : null);

/**
 * The client's rate: the RateControl state machine (control.ts) on a clock, and, with a shared
 * budget, its tokens leased in batches from the schedule every process on the mirror shares
 * (shared.ts). The transport calls `acquire()` before each request and `observe()` after it;
 * how many requests are in flight is the transport's concurrency limit's, which follows the
 * answers a second they bring (concurrency.ts), per process; the rate is shared, and only throttles move it.
 */
export class RateLimiter {
  readonly key: string;
  private readonly control: RateControl;
  private readonly clock: Clock;
  private shared: SharedBudget | undefined;
  private ready: Promise<void> | undefined;
  /** The request before in line for a token: one waits on the clock at a time, the others behind it, in order. */
  private line: Promise<void> = Promise.resolve();

  constructor(private readonly o: RateLimiterOptions) {
    this.key = budgetKey(o.baseUrl, o.token);
    this.clock = o.clock ?? systemClock;
    const ceiling = o.requestsPerSecond === 'auto' ? Number.POSITIVE_INFINITY : o.requestsPerSecond;
    this.control = new RateControl(ceiling, o.maxHoldMs, this.clock.now());
    if (o.budget !== undefined) this.share(o.budget);
  }

  /** Shares `store`'s budget from now on (before the first request: a process starts at its rate). */
  share(store: RateBudgetStore): void {
    this.control.share();
    this.shared = new SharedBudget(store, this.key, this.control, this.clock, (err) =>
      this.o.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate budget store'),
    );
    this.ready = undefined;
  }

  /** The rate in force (Infinity: none found yet). */
  get rate(): number {
    return this.control.rate;
  }

  snapshot(): RateSnapshot {
    const { cuts, holds, faults, lowestCut, startedFromLearned } = this.control.stats;
    return {
      rate: rounded(this.rate),
      plannedRate: rounded(this.control.plannedRate),
      cuts,
      holds,
      faults,
      lowestCut,
      cleanRate: rounded(this.control.cleanRate),
      leases: this.shared?.leases ?? 0,
      leaseMs: this.shared?.leaseMs ?? 0,
      startedFromLearned,
    };
  }

  /**
   * Waits until a request may start. Requests take their tokens in the order they asked: only
   * the first in line sleeps until its token, not every request in flight at once (each of them
   * a timer waking to find the token taken).
   */
  async acquire(): Promise<void> {
    const before = this.line;
    let done = () => {};
    this.line = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      await before;
      await this.next();
    } finally {
      done();
    }
  }

  private async next(): Promise<void> {
    const shared = this.shared;
    if (shared !== undefined) {
      this.ready ??= shared.start();
      await this.ready;
    }
    for (;;) {
      const now = this.clock.now();
      shared?.poll(now);
      const wait = this.control.wait(now);
      if (wait > 0) {
        await this.clock.sleep(wait);
        continue;
      }
      const leased = shared !== undefined && Number.isFinite(this.rate);
      if (leased && !(await shared.ready(now, this.rate))) continue;
      this.control.take(now);
      if (leased) shared.take();
      return;
    }
  }

  /** One answer or fault, shown to the rate: what it was taken for, and the rate after it. */
  observe(o: Observation): RateAnswer {
    const now = this.clock.now();
    const answer = this.control.observe(o, now);
    if (answer.cut !== undefined) {
      const reason = answer.signal === 'unavailable' ? 'unavailable' : 'throttled';
      this.o.logger?.info(
        { reason, rate: Math.round(answer.cut.rate * 10) / 10, ...this.control.lastCut },
        'rate cut',
      );
      this.shared?.publishCut(answer.cut);
    } else if (answer.signal === 'clean') this.shared?.saveGood(now);
    return answer;
  }
}
