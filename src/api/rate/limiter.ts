import type { Logger } from '../../log.js';
import { budgetKey, type RateBudgetStore, type SharedRate } from './budget.js';
import { CUBIC, CubicRate, type CubicState, type CutReason } from './cubic.js';
import { type Headers, parseRateLimit, plannedRate } from './headers.js';
import { ClientLag, LatencyWatch } from './latency.js';
import { RateMeter } from './meter.js';

export interface RateLimiterOptions {
  /** `'auto'`: adaptive; a number: adaptive below that ceiling. */
  requestsPerSecond: number | 'auto';
  /** Shared budget of every process on the mirror; absent: this process only. */
  budget?: RateBudgetStore | undefined;
  baseUrl: string;
  token: string;
  /** Longest hold honoured (Retry-After, an exhausted quota), ms. */
  maxHoldMs: number;
  logger?: Logger | undefined;
}

export interface RateSnapshot {
  /** Requests per second in force at the end (null: no limit found). */
  rate: number | null;
  /** The rate announced by RateLimit headers, if any. */
  plannedRate: number | null;
  cuts: Record<CutReason, number>;
  /** Holds of the whole client (a 429's Retry-After, a quota at 0). */
  holds: number;
  /** Faults seen (a lone 503, a dropped connection, a truncated body): retried, never a cut. */
  faults: number;
  /** The lowest rate a cut set (null: no cut), req/s. */
  lowestCut: number | null;
  /** The rate this process saw the service take cleanly, the floor of its cuts (null: none). */
  cleanRate: number | null;
  /** Shared-budget round trips, and their total time in ms. */
  leases: number;
  leaseMs: number;
  /** Whether the process started at a rate learned by an earlier one. */
  startedFromLearned: boolean;
}

/** Local bucket depth, in seconds of the rate: small, so that 5-second averages stay flat. */
const LOCAL_BURST_S = 0.2;
/** A lease asks for this many seconds of the rate at once (a few writes a second at most). */
const LEASE_S = 0.25;
const MAX_LEASE = 64;
/** Depth of the shared bucket, seconds of the rate. */
const SHARED_BURST_S = 0.25;
/** How often a process with no lease to take reads the shared state (another's cut), ms. */
const SYNC_EVERY_MS = 250;
/** Leased requests unused this long after their slot ended lapse (else a slow spender overlaps the next slot). */
const LEASE_GRACE_MS = 100;
/** A rate counts as good once it ran this long with no cut (CUBIC is back near its plateau). */
const GOOD_AFTER_MS = 2000;
/** A shared cut older than this, with no rate learned from it, is not adopted by a new process. */
const STALE_CUT_MS = 60_000;
/** How often the good rate is written. */
const SAVE_GOOD_EVERY_MS = 5000;
/** A lease that waited this recently says the shared schedule is fully booked (one meter window). */
const SCHEDULE_FULL_MS = 1000;
/** Another process that wrote the shared budget this recently is still sending. */
const OTHERS_ACTIVE_MS = 2000;
/**
 * A burst of 503s, a throttle: at least MIN of the last WINDOW answers (429s aside) were 503s.
 * A lone 503, or a few spread among many answers, is a fault. Counted by answers, not by time: a
 * client retrying each 503 after its Retry-After gets at most one per request in flight a second
 * (8 of 48 answers at 40 req/s), while an overloaded service's 503s come together (the bucket is
 * empty for all of them). With 3.3% of answers 503 faults (10% faults, a third 503s), 5 of 12
 * happens once in about 30,000 answers.
 */
const BURST_503 = { MIN: 5, WINDOW: 12 } as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The client's rate: a CubicRate controller (cubic.ts) fed by responses (429, Retry-After,
 * latency, RateLimit headers), a local token bucket at its rate, and, with a shared budget,
 * tokens leased in batches from the bucket every process on the mirror shares. The transport
 * calls `acquire()` before each request and `observe()` after it; concurrency is the transport's
 * queue's, which follows latency (concurrency.ts), per process; the rate is shared.
 */
export class RateLimiter {
  readonly key: string;
  private readonly controller: CubicRate;
  /** One latency watch per kind of request (a page of 250 records is slower than a GET by id). */
  private readonly latency = new Map<string, LatencyWatch>();
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
  private budget: RateBudgetStore | undefined;
  private readonly o: RateLimiterOptions;
  private tokens = 1;
  private refilledAt = Date.now();
  private holdUntil = 0;
  private leased = 0;
  /** When the leased requests may start, and when they lapse (their slot of the shared schedule). */
  private leaseFrom = 0;
  private leaseUntil = 0;
  private leasing: Promise<void> | undefined;
  /** When a lease last had to wait: the shared schedule was fully booked (by every process on it). */
  private scheduleFullAt = 0;
  /** The budget row's version after this process's last write (-1: none seen yet). */
  private myVersion = -1;
  /** When the row last showed another process's write. */
  private othersAt = 0;
  private seenCutAt = 0;
  private lastSync = 0;
  private goodSince = Date.now();
  private lastGoodSaved = 0;
  private longestResetMs = 0;
  /** The service refused (429) or held (Retry-After) this process, or an earlier one learned a rate. */
  private throttledSeen = false;
  private readonly stats: RateSnapshot;
  private ready: Promise<void> | undefined;

  constructor(options: RateLimiterOptions) {
    this.o = options;
    this.budget = options.budget;
    this.key = budgetKey(options.baseUrl, options.token);
    const ceiling =
      options.requestsPerSecond === 'auto' ? Number.POSITIVE_INFINITY : options.requestsPerSecond;
    this.controller = new CubicRate(ceiling);
    this.stats = {
      rate: null,
      plannedRate: null,
      cuts: { throttled: 0, latency: 0, unavailable: 0 },
      holds: 0,
      faults: 0,
      lowestCut: null,
      cleanRate: null,
      leases: 0,
      leaseMs: 0,
      startedFromLearned: false,
    };
  }

  /** Shares `store`'s budget from now on (before the first request: a process starts at its rate). */
  share(store: RateBudgetStore): void {
    this.budget = store;
    this.ready = undefined;
  }

  /** The rate in force (Infinity: none found yet). */
  get rate(): number {
    return this.controller.current.rate;
  }

  snapshot(): RateSnapshot {
    const rate = this.rate;
    const planned = this.controller.plannedRate;
    return {
      ...this.stats,
      cuts: { ...this.stats.cuts },
      rate: Number.isFinite(rate) ? Math.round(rate * 10) / 10 : null,
      plannedRate: Number.isFinite(planned) ? Math.round(planned * 10) / 10 : null,
      cleanRate: this.controller.cleanRate > 0 ? Math.round(this.controller.cleanRate * 10) / 10 : null,
    };
  }

  /** Waits until a request may start. */
  async acquire(): Promise<void> {
    this.ready ??= this.start();
    await this.ready;
    for (;;) {
      const now = Date.now();
      if (now < this.holdUntil) {
        await sleep(this.holdUntil - now);
        continue;
      }
      const rate = this.rate;
      if (this.budget !== undefined && now - this.lastSync >= SYNC_EVERY_MS && this.leasing === undefined) {
        // A background read, so that a process with no limit yet still sees another's cut.
        this.leasing = this.sync().finally(() => {
          this.leasing = undefined;
        });
      }
      if (!Number.isFinite(rate)) {
        this.count(now);
        return;
      }
      this.tokens = Math.min(
        Math.max(1, rate * LOCAL_BURST_S),
        this.tokens + ((now - this.refilledAt) / 1000) * rate,
      );
      this.refilledAt = now;
      if (this.tokens < 1) {
        await sleep(Math.max(1, ((1 - this.tokens) / rate) * 1000));
        continue;
      }
      if (this.budget !== undefined && now > this.leaseUntil) this.leased = 0;
      if (this.budget !== undefined && this.leased < 1) {
        await this.lease(rate);
        continue;
      }
      if (this.budget !== undefined && now < this.leaseFrom) {
        await sleep(this.leaseFrom - now);
        continue;
      }
      this.tokens -= 1;
      if (this.budget !== undefined) this.leased -= 1;
      this.count(now);
      return;
    }
  }

  /**
   * What a response says about the rate: the `kind` of request (latency is compared within a
   * kind), `status` (a number, or a network error code), latency, headers, when it was sent.
   * Throttles cut the rate: a 429, a `throttling` answer (any status whose body says so), a burst
   * of 503s. Faults do not: a lone 503, a dropped connection, a truncated body (the transport
   * retries that request alone, after its own Retry-After). Only a 429's Retry-After (or a spent
   * quota) holds the whole client: the service said so of the client, not of one request.
   */
  observe(
    kind: string,
    status: number | string,
    ms: number,
    headers: Headers,
    sentAt: number,
    retryAfterMs?: number,
    throttling = false,
  ): void {
    const now = Date.now();
    this.readHeaders(headers, now);
    if (status === 429 || throttling) {
      this.throttled(now, sentAt, 'throttled');
      if (status === 429) this.hold(now, retryAfterMs ?? 0);
      return;
    }
    if (typeof status !== 'number') {
      this.stats.faults++;
      return;
    }
    this.last503[this.last503At] = status === 503;
    this.last503At = (this.last503At + 1) % BURST_503.WINDOW;
    if (status === 503) {
      if (this.last503.filter(Boolean).length >= BURST_503.MIN) this.throttled(now, sentAt, 'unavailable');
      else this.stats.faults++;
      return;
    }
    if (status >= 500) {
      this.stats.faults++;
      return;
    }
    this.answered.add(now);
    let watch = this.latency.get(kind);
    if (watch === undefined) {
      watch = new LatencyWatch();
      this.latency.set(kind, watch);
    }
    if (watch.add(ms, now, ClientLag.get().ms(now))) {
      this.cut(now, sentAt, 'latency', {
        kind,
        p90: watch.lastP90,
        baseline: watch.baseline,
        clientLagMs: Math.round(watch.lastLag),
      });
      return;
    }
    this.controller.success(now, this.usedForCap(now));
    this.noteClean(now);
    this.maybeSaveGood(now);
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

  private throttled(now: number, sentAt: number, reason: CutReason): void {
    this.throttledSeen = true;
    this.throttledAt = now;
    this.cut(now, sentAt, reason);
  }

  /**
   * The rate in force ran GOOD_AFTER_MS with no throttle and no hold, and was used: the service
   * takes it (or what was answered, if less) cleanly, and no later cut goes below it.
   */
  private noteClean(now: number): void {
    const rate = this.rate;
    if (!Number.isFinite(rate) || this.controller.current.cutAt === 0) return;
    if (now - this.throttledAt < GOOD_AFTER_MS || now - this.holdUntil < GOOD_AFTER_MS) return;
    if (this.measured(now) < 0.8 * rate) return;
    this.controller.provedClean(Math.min(rate, this.answered.rate(now)));
  }

  /**
   * The rate the controller's "twice what was used" cap counts as used. Alone, what this process
   * sent. Sharing a budget, this process sends only its share of the rate; while the shared
   * schedule is fully booked (its last lease had to wait), the whole rate is in use by the
   * processes together, and the curve may climb. (Counting this process's share alone, two
   * processes each sending half capped the shared rate at what it was: the bench's sync and
   * apply sat at 12 req/s under a limit of 40 for a minute.)
   */
  private usedForCap(now: number): number {
    const mine = this.measured(now);
    if (this.budget === undefined || now - this.scheduleFullAt > SCHEDULE_FULL_MS) return mine;
    return Math.max(mine, this.rate);
  }

  private cut(now: number, sentAt: number, reason: CutReason, why?: Record<string, unknown>): void {
    // Alone (no budget, or no other process wrote the budget lately), what the service answered
    // (not refused) in the last second is the best estimate of its limit: the plateau of the
    // curve. (Not extrapolated in a process's first second: against 20 req/s that took the
    // discovery burst for the rate and tripled the 429s, 2.9% -> 8.6%. Nor the rate in force
    // when alone on a budget: it climbs above what is sent while a Retry-After holds the client,
    // and put the plateau of a 20 req/s limit at 31 to 35 req/s, a cut every 2.3 s.)
    // While other processes send on the shared budget, this one sends only its share: the rate
    // in force, not what this process measured, is what the service saw.
    const shared =
      this.budget !== undefined && Number.isFinite(this.rate) && now - this.othersAt < OTHERS_ACTIVE_MS;
    const measured = shared ? Number.POSITIVE_INFINITY : Math.max(1, this.answeredOutsideHolds(now));
    if (!this.controller.throttle(now, sentAt, measured)) return;
    // Paced from here, not a burst: the bucket is emptied (it may hold the tokens of a long wait,
    // or none was kept while the rate was unlimited), else the next requests go out at once and
    // a service with a shallow bucket refuses them too, cutting again for a rate never sent.
    this.tokens = 0;
    this.refilledAt = now;
    this.stats.cuts[reason]++;
    this.goodSince = now;
    const state = this.controller.current;
    this.stats.lowestCut = Math.round(Math.min(this.stats.lowestCut ?? state.rate, state.rate) * 10) / 10;
    this.o.logger?.info({ reason, rate: Math.round(state.rate * 10) / 10, ...why }, 'rate cut');
    if (this.budget !== undefined) {
      const budget = this.budget;
      // Another process's cut in the same episode wins: one cut per episode across processes.
      void this.timed(() => budget.cut(this.key, state)).then((row) => {
        this.noteVersion(row.version, row.cutAt === state.cutAt);
        this.merge(row, true);
      }, this.ignore);
    }
  }

  private hold(now: number, ms: number): void {
    if (ms <= 0) return;
    const until = now + Math.min(this.o.maxHoldMs, ms);
    if (until <= this.holdUntil) return;
    if (now >= this.holdUntil) this.answeredBeforeHold = this.answeredOutsideHolds(now);
    this.holdUntil = until;
    // Paced from the hold's end, not a burst of the tokens a hold would fill: a service with a
    // shallow bucket refused that burst again, hold after hold (27 cuts for 400 requests at 40
    // req/s with a bucket of 4).
    this.tokens = 0;
    this.refilledAt = until;
    this.stats.holds++;
  }

  /**
   * What was answered over the last second, read outside any hold: in the second after one it
   * reads near zero, and cuts from it sank the rate to 1.4 req/s again and again (187 cuts in one
   * faulty sync); there, what was answered before the hold began (itself read the same way).
   */
  private answeredOutsideHolds(now: number): number {
    const answered = this.answered.rate(now);
    return now - this.holdUntil < 1000 ? Math.max(answered, this.answeredBeforeHold) : answered;
  }

  /** The rate actually sent over the last second. */
  private measured(now: number): number {
    return this.sent.rate(now);
  }

  private count(now: number): void {
    this.sent.add(now);
  }

  /** Starts at the rate an earlier process learned (or at the shared state in force). */
  private async start(): Promise<void> {
    if (this.budget === undefined) return;
    const budget = this.budget;
    const shared = await this.timed(() => budget.load(this.key)).catch(this.ignore);
    if (shared === undefined) return;
    const now = Date.now();
    this.myVersion = shared.version;
    if (shared.goodRate === undefined) {
      // An old cut no process learned a rate from (latency alone, or a limit lifted since) says
      // nothing about the service now: start with the bucket off, as a first process does.
      if (now - shared.cutAt > STALE_CUT_MS) this.seenCutAt = shared.cutAt;
      else this.merge(shared);
    } else {
      this.controller.adopt(new CubicRate(this.controller.ceiling, { rate: shared.goodRate, now }).current);
      this.seenCutAt = shared.cutAt;
      this.stats.startedFromLearned = true;
      this.throttledSeen = true;
    }
    this.lastSync = now;
  }

  private async sync(): Promise<void> {
    const budget = this.budget;
    if (budget === undefined) return;
    this.lastSync = Date.now();
    const shared = await this.timed(() => budget.load(this.key)).catch(this.ignore);
    if (shared === undefined) return;
    this.noteVersion(shared.version, false);
    this.merge(shared);
  }

  /**
   * The row's `version` as a write (`mine`: this process's own lease or cut) or a read returned
   * it: moved past what this process's own writes account for, another process wrote meanwhile.
   */
  private noteVersion(version: number, mine: boolean): void {
    const expected = mine ? this.myVersion + 1 : this.myVersion;
    if (this.myVersion >= 0 && version !== expected) this.othersAt = Date.now();
    if (mine || version > this.myVersion) this.myVersion = version;
  }

  /** Reserves a batch of requests on the shared schedule. */
  private async lease(rate: number): Promise<void> {
    if (this.leasing !== undefined) {
      await this.leasing;
      return;
    }
    const budget = this.budget;
    if (budget === undefined) return;
    this.leasing = (async () => {
      const now = Date.now();
      const want = Math.min(MAX_LEASE, Math.max(1, Math.ceil(rate * LEASE_S)));
      const result = await this.timed(() =>
        budget.lease(this.key, {
          want,
          state: this.controller.current,
          seenCutAt: this.seenCutAt,
          burstMs: SHARED_BURST_S * 1000,
          now,
        }),
      ).catch(this.ignore);
      this.lastSync = Date.now();
      // The store failed: carry on, this process alone, as if granted at once.
      const granted = result?.granted ?? want;
      this.leased = granted;
      this.leaseFrom = Date.now() + (result?.waitMs ?? 0);
      this.leaseUntil = this.leaseFrom + (granted * 1000) / rate + LEASE_GRACE_MS;
      if (result === undefined) return;
      if (result.granted > 0 && result.waitMs > 0) this.scheduleFullAt = Date.now();
      this.noteVersion(result.shared.version, result.granted > 0);
      if (result.granted === 0) await sleep(result.waitMs);
      this.merge(result.shared);
    })().finally(() => {
      this.leasing = undefined;
    });
    await this.leasing;
  }

  /** Adopts another process's cut when it is newer than ours (or, `force`, just different). */
  private merge(shared: SharedRate, force = false): void {
    const mine = this.controller.current;
    const newer = shared.cutAt > mine.cutAt && shared.cutAt > this.seenCutAt;
    if (newer || (force && shared.cutAt !== mine.cutAt && shared.cutAt > 0)) {
      const state: CubicState = { rate: shared.rate, wMax: shared.wMax, cutAt: shared.cutAt };
      this.controller.adopt(state);
      this.goodSince = Date.now();
    }
    this.seenCutAt = Math.max(this.seenCutAt, shared.cutAt);
  }

  private maybeSaveGood(now: number): void {
    const budget = this.budget;
    const state = this.controller.current;
    if (budget === undefined || state.wMax === 0 || !Number.isFinite(state.rate)) return;
    // Latency alone is no limit: a rate cut on latency (a busy service, a loaded machine) is not
    // handed to the next process as one, which would start below what the service allows.
    if (!this.throttledSeen) return;
    if (now - this.goodSince < GOOD_AFTER_MS || now - this.lastGoodSaved < SAVE_GOOD_EVERY_MS) return;
    // Only a rate actually used proves anything: a process sending little must not lower it.
    if (this.measured(now) < 0.8 * state.rate) return;
    this.lastGoodSaved = now;
    void this.timed(() => budget.saveGood(this.key, state.rate, now)).catch(this.ignore);
  }

  private async timed<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      this.stats.leases++;
      this.stats.leaseMs += performance.now() - started;
    }
  }

  /** A failing store never stops the client: the process keeps its own rate. */
  private readonly ignore = (err: unknown): undefined => {
    this.o.logger?.warn({ err: err instanceof Error ? err.message : String(err) }, 'rate budget store');
    return undefined;
  };
}
