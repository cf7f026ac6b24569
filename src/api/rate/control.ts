import { CUBIC, CubicRate, type CubicState, type CutReason } from './cubic.js';
import { type Headers, parseRateLimit, plannedRate } from './headers.js';
import { RateMeter } from './meter.js';

/** What one answer (or fault) says about the rate, as the transport shows it to the limiter. */
export interface Observation {
  /** The answer's status, or a fault's error code (`ECONNRESET`, a timeout's code, ...). */
  status: number | string;
  /** The answer's headers (RateLimit headers are read from them). */
  headers?: Headers | undefined;
  /** When the request left, on the limiter's clock: signals from before the last cut are its episode. */
  sentAt: number;
  /** The answer's own Retry-After, ms. */
  retryAfterMs?: number | undefined;
  /** An answer under another status than 429 whose body says it throttles. */
  throttling?: boolean | undefined;
}

/**
 * What the limiter took an observation for: `throttle` (a 429, a throttling answer), `unavailable`
 * (a 503 of a burst), `fault` (retried alone: a lone 503, a 5xx, a dropped connection), `clean`.
 */
export type Signal = 'throttle' | 'unavailable' | 'fault' | 'clean';

/** The limiter's answer to one observation. */
export interface RateAnswer {
  signal: Signal;
  /** The state a cut set, when this observation cut the rate (once per episode). */
  cut: CubicState | undefined;
  /** The client is held until then (the clock's ms; 0: no hold): a 429's Retry-After, a spent quota. */
  holdUntil: number;
  /** Requests per second in force after it (Infinity: no limit found). */
  rate: number;
}

export interface RateCounts {
  cuts: Record<CutReason, number>;
  /** Holds of the whole client (a 429's Retry-After, a quota at 0). */
  holds: number;
  /** Faults seen (a lone 503, a dropped connection, a truncated body): retried, never a cut. */
  faults: number;
  /** The lowest rate a cut set (null: no cut), req/s. */
  lowestCut: number | null;
  /** Whether the process started at a rate learned by an earlier one. */
  startedFromLearned: boolean;
}

/** Local bucket depth, in seconds of the rate: small, so that 5-second averages stay flat. */
const LOCAL_BURST_S = 0.2;
/** A rate counts as good once it ran this long with no cut (CUBIC is back near its plateau). */
export const GOOD_AFTER_MS = 2000;
/** A lease that waited this recently says the shared schedule is fully booked (one meter window). */
const SCHEDULE_FULL_MS = 1000;
/** Another process that wrote the shared budget this recently is still sending. */
const OTHERS_ACTIVE_MS = 2000;
/**
 * A burst of 503s, a throttle: at least MIN of the last WINDOW answers (429s aside) were 503s.
 * A lone 503, or a few spread among many answers, is a fault. Counted by answers, not by time: a
 * client retrying each 503 after its Retry-After gets at most one per request in flight a second,
 * while an overloaded service's 503s come together (its bucket is empty for all of them). With
 * 3.3% of answers 503 faults (10% faults, a third of them 503s), 5 of 12 happens once in about
 * 30,000 answers.
 */
const BURST_503 = { MIN: 5, WINDOW: 12 } as const;

/**
 * The rate as a state machine: a CubicRate controller (cubic.ts) fed by observations, a local
 * token bucket at its rate, and holds of the whole client. Pure and clock-free, as
 * ConcurrencyLimit is: every method takes `now` (ms) and nothing waits; RateLimiter (limiter.ts)
 * owns the clock and the waiting, SharedBudget (shared.ts) the budget shared with other processes.
 *
 * Only evidence of throttling cuts the rate: a 429, a throttling answer, a burst of 503s; and
 * RateLimit headers set it (a spent quota holds the client until its reset). Latency never
 * does: how many requests are in flight follows the answers a second they bring (concurrency.ts).
 */
export class RateControl {
  private readonly controller: CubicRate;
  /** Requests sent, and answered other than 429 and 5xx, over the last second. */
  private readonly sent = new RateMeter();
  private readonly answered = new RateMeter();
  /** Whether each of the last BURST_503.WINDOW answers (429s aside) was a 503, a ring. */
  private readonly last503 = new Array<boolean>(BURST_503.WINDOW).fill(false);
  private last503At = 0;
  /** What was answered in the second before the last hold began (a cut soon after reads that). */
  private answeredBeforeHold = 0;
  /** When a throttle signal last came (429, a throttling answer, a burst of 503s). */
  private throttledAt = 0;
  private tokens = 1;
  private refilledAt: number;
  private holdUntil = 0;
  private goodSince: number;
  private longestResetMs = 0;
  /** The service refused (429) or held this process, announced a rate, or an earlier one learned one. */
  private throttledSeen = false;
  /** A shared budget is attached; when another process last wrote it; when its schedule was full. */
  private sharing = false;
  private othersAt = 0;
  private scheduleFullAt = 0;
  private readonly counts: RateCounts = {
    cuts: { throttled: 0, unavailable: 0 },
    holds: 0,
    faults: 0,
    lowestCut: null,
    startedFromLearned: false,
  };

  /** `ceiling`: a pinned `api.requestsPerSecond`, or Infinity; `maxHoldMs`: the longest hold honoured. */
  constructor(
    ceiling: number,
    private readonly maxHoldMs: number,
    now: number,
  ) {
    this.controller = new CubicRate(ceiling);
    this.refilledAt = now;
    this.goodSince = now;
  }

  /** The rate in force (Infinity: none found yet). */
  get rate(): number {
    return this.controller.current.rate;
  }

  get state(): CubicState {
    return this.controller.current;
  }

  get plannedRate(): number {
    return this.controller.plannedRate;
  }

  /**
   * What the last cut started from, for its log line: the rate in force, what the service
   * answered in the second before (null while sharing a budget: the rate in force counts), and
   * the floor of rates the service took cleanly (null: none).
   */
  lastCut: { from: number | null; answered: number | null; floor: number | null } | undefined;

  get cleanRate(): number {
    return this.controller.cleanRate;
  }

  get ceiling(): number {
    return this.controller.ceiling;
  }

  get stats(): RateCounts {
    return { ...this.counts, cuts: { ...this.counts.cuts } };
  }

  /** Milliseconds until a request may start (0: now). Takes nothing. */
  wait(now: number): number {
    if (now < this.holdUntil) return this.holdUntil - now;
    const rate = this.rate;
    if (!Number.isFinite(rate)) return 0;
    this.tokens = Math.min(
      Math.max(1, rate * LOCAL_BURST_S),
      this.tokens + (Math.max(0, now - this.refilledAt) / 1000) * rate,
    );
    this.refilledAt = Math.max(this.refilledAt, now);
    return this.tokens >= 1 ? 0 : Math.max(1, ((1 - this.tokens) / rate) * 1000);
  }

  /** A request starts now (after `wait` said 0): it takes a token, and is counted as sent. */
  take(now: number): void {
    if (Number.isFinite(this.rate)) this.tokens -= 1;
    this.sent.add(now);
  }

  /**
   * What an answer (or a fault) says about the rate. Throttles cut it: a 429, a throttling answer
   * (any status whose body says so), a burst of 503s. Faults do not: a lone 503, another 5xx, a
   * dropped connection, a truncated body (the transport retries that request alone, after its own
   * Retry-After). Only a 429's Retry-After (or a spent quota) holds the whole client: the service
   * said so of the client, not of one request.
   */
  observe(o: Observation, now: number): RateAnswer {
    if (o.headers !== undefined) this.readHeaders(o.headers, now);
    const answer = (signal: Signal, cut?: CubicState): RateAnswer => ({
      signal,
      cut,
      holdUntil: this.holdUntil > now ? this.holdUntil : 0,
      rate: this.rate,
    });
    if (o.status === 429 || o.throttling === true) {
      const cut = this.throttled(now, o.sentAt, 'throttled');
      if (o.status === 429) this.hold(now, o.retryAfterMs ?? 0);
      return answer('throttle', cut);
    }
    if (typeof o.status !== 'number') {
      this.counts.faults++;
      return answer('fault');
    }
    this.last503[this.last503At] = o.status === 503;
    this.last503At = (this.last503At + 1) % BURST_503.WINDOW;
    if (o.status === 503 && this.last503.filter(Boolean).length >= BURST_503.MIN)
      return answer('unavailable', this.throttled(now, o.sentAt, 'unavailable'));
    if (o.status >= 500) {
      this.counts.faults++;
      return answer('fault');
    }
    this.answered.add(now);
    this.controller.success(now, this.usedForCap(now));
    this.noteClean(now);
    return answer('clean');
  }

  /**
   * The rate to record as learned, when there is one to record now: the rate in force has run
   * GOOD_AFTER_MS with no cut, used, after the service throttled, held or announced a rate (a
   * rate never tested says nothing of the service's limit).
   */
  goodRate(now: number): number | undefined {
    const state = this.controller.current;
    if (state.wMax === 0 || !Number.isFinite(state.rate) || !this.throttledSeen) return undefined;
    if (now - this.goodSince < GOOD_AFTER_MS) return undefined;
    // Only a rate actually used proves anything: a process sending little must not lower it.
    if (this.sent.rate(now) < 0.8 * state.rate) return undefined;
    return state.rate;
  }

  /** A budget shared with other processes is attached from now on. */
  share(): void {
    this.sharing = true;
  }

  /** Another process wrote the shared budget (its version moved past this process's writes). */
  noteOthers(now: number): void {
    this.othersAt = now;
  }

  /** A lease had to wait: the shared schedule is fully booked by the processes on it. */
  noteScheduleFull(now: number): void {
    this.scheduleFullAt = now;
  }

  /** Adopts a state another process published (its cut is newer than this process's). */
  adopt(state: CubicState, now: number): void {
    this.controller.adopt(state);
    this.goodSince = now;
  }

  /** Starts on the plateau of a rate an earlier process learned, probing above it slowly. */
  startFrom(goodRate: number, now: number): void {
    this.controller.adopt(new CubicRate(this.controller.ceiling, { rate: goodRate, now }).current);
    this.counts.startedFromLearned = true;
    this.throttledSeen = true;
  }

  /** RateLimit headers: the announced quota becomes the rate; a spent one holds until its reset. */
  private readHeaders(headers: Headers, now: number): void {
    const info = parseRateLimit(headers, now);
    if (info === undefined) return;
    this.longestResetMs = Math.max(this.longestResetMs, info.resetMs ?? 0);
    const planned = plannedRate(info, this.longestResetMs);
    if (planned !== undefined) {
      this.controller.plan(now, planned);
      this.throttledSeen = true;
    }
    // The quota is spent: wait for its reset rather than collect 429s.
    if (info.remaining !== undefined && info.remaining < 1 && info.resetMs !== undefined)
      this.hold(now, Math.max(info.resetMs, 1000 / Math.max(CUBIC.MIN_RATE, this.rate)));
  }

  private throttled(now: number, sentAt: number, reason: CutReason): CubicState | undefined {
    this.throttledSeen = true;
    this.throttledAt = now;
    return this.cut(now, sentAt, reason);
  }

  /**
   * The rate in force ran GOOD_AFTER_MS with no throttle and no hold, and was used: the service
   * takes it (or what was answered, if less) cleanly, and no later cut goes below it.
   */
  private noteClean(now: number): void {
    const rate = this.rate;
    if (!Number.isFinite(rate) || this.controller.current.cutAt === 0) return;
    if (now - this.throttledAt < GOOD_AFTER_MS || now - this.holdUntil < GOOD_AFTER_MS) return;
    if (this.sent.rate(now) < 0.8 * rate) return;
    this.controller.provedClean(Math.min(rate, this.answered.rate(now)));
  }

  /**
   * The rate the controller's "twice what was used" cap counts as used. Alone, what this process
   * sent. Sharing a budget, this process sends only its share of the rate; while the shared
   * schedule is fully booked (its last lease had to wait), the whole rate is in use by the
   * processes together, and the curve may climb (counting this process's share alone, two
   * processes each sending half would pin the shared rate where it is).
   */
  private usedForCap(now: number): number {
    const mine = this.sent.rate(now);
    if (!this.sharing || now - this.scheduleFullAt > SCHEDULE_FULL_MS) return mine;
    return Math.max(mine, this.rate);
  }

  /** Cuts the rate (once per episode); answers the state it set, or undefined when it did not. */
  private cut(now: number, sentAt: number, reason: CutReason): CubicState | undefined {
    // Alone (no budget, or no other process wrote it lately), what the service answered (not
    // refused) in the last second is the best estimate of its limit: the plateau of the curve.
    // While other processes send on the shared budget, this one sends only its share: the rate
    // in force, not what this process measured, is what the service saw.
    const shared = this.sharing && Number.isFinite(this.rate) && now - this.othersAt < OTHERS_ACTIVE_MS;
    const measured = shared ? Number.POSITIVE_INFINITY : Math.max(1, this.answeredOutsideHolds(now));
    const from = this.controller.current.rate;
    if (!this.controller.throttle(now, sentAt, measured)) return undefined;
    this.lastCut = {
      from: finiteOrNull(from),
      answered: shared ? null : Math.round(measured * 10) / 10,
      floor: this.controller.cleanRate > 0 ? Math.round(this.controller.cleanRate * 10) / 10 : null,
    };
    // Paced from here, not a burst: the bucket is emptied (it may hold the tokens of a long wait,
    // or none was kept while the rate was unlimited), else the next requests go out at once and
    // a service with a shallow bucket refuses them too, cutting again for a rate never sent.
    this.tokens = 0;
    this.refilledAt = Math.max(this.refilledAt, now);
    this.counts.cuts[reason]++;
    this.goodSince = now;
    const state = this.controller.current;
    const lowest = Math.min(this.counts.lowestCut ?? state.rate, state.rate);
    this.counts.lowestCut = Math.round(lowest * 10) / 10;
    return state;
  }

  private hold(now: number, ms: number): void {
    if (ms <= 0) return;
    const until = now + Math.min(this.maxHoldMs, ms);
    if (until <= this.holdUntil) return;
    if (now >= this.holdUntil) this.answeredBeforeHold = this.answeredOutsideHolds(now);
    this.holdUntil = until;
    // Paced from the hold's end, not a burst of the tokens a hold would fill: a service with a
    // shallow bucket would refuse that burst again, hold after hold.
    this.tokens = 0;
    this.refilledAt = until;
    this.counts.holds++;
  }

  /**
   * What was answered over the last second, read outside any hold: in the second after one it
   * reads near zero (nothing was sent), so there what was answered before the hold began counts.
   */
  private answeredOutsideHolds(now: number): number {
    const answered = this.answered.rate(now);
    return now - this.holdUntil < 1000 ? Math.max(answered, this.answeredBeforeHold) : answered;
  }
}

function finiteOrNull(rate: number): number | null {
  return Number.isFinite(rate) ? Math.round(rate * 10) / 10 : null;
}
