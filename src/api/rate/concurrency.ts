/**
 * How many requests this process keeps in flight. The objective is delivered throughput: the
 * limit grows while more in flight brings more answers a second, and stops at the knee, where
 * more in flight brings longer latency and no more answers. A model after TCP BBR, in requests
 * rather than bytes (docs/rate.md, "Concurrency"):
 *
 * - **Windows.** Clean answers are counted in windows (WINDOW answers, at least WINDOW_MS and
 *   ROUNDS round trips), after a round trip of settling whenever the limit changed.
 * - **Delivered** = Σ (answers of a kind × that kind's baseline latency) / the window's length:
 *   answers a second, each weighted by what it takes with no queue, so that a window of pages of
 *   250 records and one of GETs by id compare. By Little's law it is how many requests the service
 *   keeps busy with no queue.
 * - **Baseline** ("no queue"), per kind: the least window-mean latency of that kind (a window's
 *   mean, not one answer's: a server whose answers alternate 3 and 44 ms per connection has a
 *   no-queue latency of about 25 ms, not 3). A lower mean replaces it at once; after BASE_MS it
 *   expires and a window at fewer in flight renews it (BBR's min-RTT filter and PROBE_RTT), so it
 *   follows a service that slows down as well as one that speeds up.
 * - **Startup** (BBR's STARTUP): the limit doubles per window while `delivered` grows by
 *   FULL_GROWTH, and goes up by GALLOP after a step whose answers grew in proportion to it (no
 *   knee in sight: a window spans several round trips, BBR doubles per round trip); after
 *   FULL_WINDOWS windows without growth, the limit goes back to the least that gave the most
 *   (BBR's full pipe and DRAIN).
 * - **Probing** (BBR's PROBE_BW): after CRUISE_WINDOWS windows at the limit, one window at UP × it;
 *   kept when `delivered` rose by at least SHARE of what was added in flight (and probing up goes
 *   on), else the limit is as before. Down: a window at DOWN × the limit, when latency is inflated
 *   above the baseline by INFLATED or a baseline expired; kept only when latency fell and
 *   `delivered` fell by less than SHARE of what was taken off, in two windows running (one can be
 *   noise). A probe down that found no queue doubles the windows before the next (at most
 *   DOWN_AFTER_MAX). So latency alone never shrinks the limit: only less in flight that answers
 *   as much.
 * - A window in which fewer than APP_LIMITED of the limit were in flight on average (the process
 *   asked for less) proves nothing: a probe in it is undone, startup waits.
 *
 * A latency is taken whole, this process's own delay in noticing the answer included: it is part
 * of what a request in flight costs (Little's law counts it). Pure and clock-free: the transport
 * feeds it answers and reads `limit`.
 */
export const CONCURRENCY = {
  /** Answers per window (and at least WINDOW_MS, and ROUNDS round trips). */
  WINDOW: 16,
  WINDOW_MS: 200,
  ROUNDS: 2,
  /** Startup ends when `delivered` has not grown by FULL_GROWTH in FULL_WINDOWS windows. */
  FULL_GROWTH: 1.25,
  FULL_WINDOWS: 3,
  /** Startup's step after one whose answers grew by at least PROPORTIONAL of what it added in flight. */
  GALLOP: 4,
  PROPORTIONAL: 0.8,
  /** Windows at the limit between probes. */
  CRUISE_WINDOWS: 2,
  /** Most windows at the limit between probes down (after those that found no queue). */
  DOWN_AFTER_MAX: 16,
  /** A probe's limit, over the limit in force: up, and down. */
  UP: 1.25,
  DOWN: 0.8,
  /** A probe is kept when it moved `delivered` by at least (up) or at most (down) this share of the change in flight. */
  SHARE: 0.4,
  /** A probe down is kept only when latency fell by at least this share of the cut in flight. */
  FALL: 0.6,
  /** Latency this many times the baseline (each kind's, weighted) is inflated: probe down. */
  INFLATED: 1.25,
  /** Answers of a kind a window needs for its mean to set that kind's baseline (its first window's sets it whatever). */
  BASE_ANSWERS: 4,
  /** A kind's baseline latency expires after this long, ms. */
  BASE_MS: 2000,
  /** A window with fewer than this share of the limit in flight on average is app-limited. */
  APP_LIMITED: 0.7,
} as const;

export interface ConcurrencySnapshot {
  /** The limit in force at the end. */
  limit: number;
  /** The highest and lowest it reached. */
  highest: number;
  lowest: number;
}

/** What the controller knows of one kind of request: its baseline latency, ms, and when it was set. */
interface Kind {
  base: number;
  baseAt: number;
  /** Set from fewer than BASE_ANSWERS answers: the next window of enough replaces it. */
  provisional: boolean;
}

/** Answers counted over a span: per kind, how many and their summed latency. */
interface Tally {
  n: Map<string, number>;
  own: Map<string, number>;
  ms: number;
  inFlight: number;
  samples: number;
}

const emptyTally = (): Tally => ({ n: new Map(), own: new Map(), ms: 0, inFlight: 0, samples: 0 });

function merge(into: Tally, t: Tally): void {
  for (const [k, v] of t.n) into.n.set(k, (into.n.get(k) ?? 0) + v);
  for (const [k, v] of t.own) into.own.set(k, (into.own.get(k) ?? 0) + v);
  into.ms += t.ms;
  into.inFlight += t.inFlight;
  into.samples += t.samples;
}

type Phase = 'startup' | 'cruise' | 'up' | 'down';

export class ConcurrencyLimit {
  private value: number;
  private readonly min: number;
  private readonly max: number;
  private readonly kinds = new Map<string, Kind>();
  private phase: Phase = 'startup';
  /** The window under way, when it started, and until when answers are settling (not counted). */
  private window = emptyTally();
  private windowStart = -1;
  private settleUntil = 0;
  /** The windows at the limit in force since it last changed (the reference of a probe). */
  private reference = emptyTally();
  private cruised = 0;
  /** The limit a probe left, and (startup) the best window so far and the windows since it grew. */
  private held = 0;
  /** A probe down passed once: its next window must pass against the same reference too. */
  private confirming = false;
  /** Windows at the limit before a probe down (doubled by each that found no queue). */
  private downAfter: number = CONCURRENCY.CRUISE_WINDOWS;
  private best: { limit: number; tally: Tally } | undefined;
  private flat = 0;
  private highest: number;
  private lowest: number;

  constructor(options: { initial: number; min?: number; max: number }) {
    this.max = Math.max(1, options.max);
    this.min = Math.max(1, Math.min(options.min ?? 2, this.max));
    this.value = Math.max(this.min, Math.min(this.max, options.initial));
    this.highest = this.value;
    this.lowest = this.value;
  }

  /** Requests allowed in flight now. */
  get limit(): number {
    return Math.floor(this.value);
  }

  /** A kind's baseline latency, ms (undefined: no window of it yet). */
  baseline(kind: string): number | undefined {
    return this.kinds.get(kind)?.base;
  }

  snapshot(): ConcurrencySnapshot {
    return { limit: this.limit, highest: Math.floor(this.highest), lowest: Math.floor(this.lowest) };
  }

  /**
   * A clean answer of `kind` that took `ms`, with `inFlight` requests in flight when it came.
   * Answers whether the limit changed.
   */
  add(kind: string, ms: number, inFlight: number, now: number): boolean {
    if (now < this.settleUntil) return false;
    const own = Math.max(0.01, ms);
    const w = this.window;
    if (this.windowStart < 0) this.windowStart = now;
    w.n.set(kind, (w.n.get(kind) ?? 0) + 1);
    w.own.set(kind, (w.own.get(kind) ?? 0) + own);
    w.inFlight += inFlight;
    w.samples++;
    let sum = 0;
    for (const v of w.own.values()) sum += v;
    const span = Math.max(CONCURRENCY.WINDOW_MS, (CONCURRENCY.ROUNDS * sum) / w.samples);
    if (w.samples < CONCURRENCY.WINDOW || now - this.windowStart < span) return false;
    w.ms = Math.max(1, now - this.windowStart);
    this.window = emptyTally();
    this.windowStart = now;
    const before = this.limit;
    const expired = this.learnBaselines(w, now);
    this.step(w, expired);
    this.value = Math.max(this.min, Math.min(this.max, this.value));
    this.highest = Math.max(this.highest, this.value);
    this.lowest = Math.min(this.lowest, this.value);
    if (this.limit === before) return false;
    // Answers of the next round trip still show the old limit.
    this.settleUntil = now + sum / w.samples;
    this.windowStart = -1;
    return true;
  }

  /** `delivered` of a tally, at the baselines now. */
  private delivered(t: Tally): number {
    let work = 0;
    for (const [k, n] of t.n) work += n * (this.kinds.get(k)?.base ?? 0);
    return work / Math.max(1, t.ms);
  }

  /** A tally's latency over its kinds' baselines (1: no queue). */
  private inflation(t: Tally): number {
    let own = 0;
    let base = 0;
    for (const [k, n] of t.n) {
      own += t.own.get(k) ?? 0;
      base += n * (this.kinds.get(k)?.base ?? 0);
    }
    return base > 0 ? own / base : 1;
  }

  /**
   * Each kind's baseline from a window's mean: a lower one at once, an expired one renewed by a
   * window probing down (fewer in flight). Answers whether a kind of this window has an expired one.
   */
  private learnBaselines(w: Tally, now: number): boolean {
    let expired = false;
    for (const [kind, n] of w.n) {
      const mean = (w.own.get(kind) ?? 0) / n;
      const k = this.kinds.get(kind);
      if (k === undefined) {
        this.kinds.set(kind, { base: mean, baseAt: now, provisional: n < CONCURRENCY.BASE_ANSWERS });
        continue;
      }
      const stale = now - k.baseAt > CONCURRENCY.BASE_MS;
      // A mean of a few answers is noise (one fast answer would be the baseline for seconds).
      if (n < CONCURRENCY.BASE_ANSWERS) continue;
      // At the floor no window has fewer in flight: there a stale baseline is renewed as it is.
      if (k.provisional || mean <= k.base || (stale && (this.phase === 'down' || this.value <= this.min))) {
        k.base = mean;
        k.baseAt = now;
        k.provisional = false;
      } else if (stale) expired = true;
    }
    return expired;
  }

  private appLimited(t: Tally, limit: number): boolean {
    return t.inFlight / Math.max(1, t.samples) < CONCURRENCY.APP_LIMITED * limit;
  }

  /** The phase after a window, and the limit it sets. */
  private step(w: Tally, expired: boolean): void {
    if (this.phase === 'startup') {
      this.startup(w);
      return;
    }
    if (this.phase === 'up' || this.phase === 'down') {
      this.judge(w);
      return;
    }
    merge(this.reference, w);
    if (++this.cruised < CONCURRENCY.CRUISE_WINDOWS) return;
    const inflated = this.inflation(this.reference) > CONCURRENCY.INFLATED;
    if ((inflated || expired) && this.value > this.min) {
      // Until a probe down is due, the reference grows by each window (less noise to judge it by).
      if (expired || this.cruised >= this.downAfter) this.probe('down');
      return;
    }
    if (this.value < this.max && !this.appLimited(this.reference, this.value)) this.probe('up');
    else {
      this.cruised = 0;
      this.reference = emptyTally();
    }
  }

  private probe(phase: 'up' | 'down'): void {
    this.phase = phase;
    this.held = this.value;
    const next = this.value * (phase === 'up' ? CONCURRENCY.UP : CONCURRENCY.DOWN);
    // At least one request more or fewer, or the probe changes nothing.
    this.value = phase === 'up' ? Math.max(next, this.limit + 1) : Math.min(next, this.limit - 1);
  }

  /** A probe's window against the reference: kept, or undone. */
  private judge(w: Tally): void {
    const ref = this.reference;
    const inRef = ref.inFlight / Math.max(1, ref.samples);
    const inProbe = w.inFlight / Math.max(1, w.samples);
    const gain = this.delivered(w) / Math.max(1e-9, this.delivered(ref)) - 1;
    const change = inProbe / Math.max(1e-9, inRef) - 1;
    let kept = false;
    if (this.phase === 'up') kept = change > 0.05 && gain >= CONCURRENCY.SHARE * change;
    else {
      const faster = this.inflation(ref) / Math.max(1e-9, this.inflation(w)) - 1;
      // Latency must fall by more than half the cut (a queue drained), not by noise.
      kept = change < -0.05 && gain >= CONCURRENCY.SHARE * change && faster >= -CONCURRENCY.FALL * change;
    }
    if (this.appLimited(w, this.value)) kept = false;
    // A probe down passes twice before it is kept: on a loaded machine one window's answers come
    // in bursts, and noise that passes once would ratchet the limit down (bench/rate-model.ts).
    if (kept && this.phase === 'down' && !this.confirming) {
      this.confirming = true;
      return;
    }
    this.confirming = false;
    const up = this.phase === 'up';
    this.phase = 'cruise';
    if (!kept) this.value = this.held;
    // A probe down that found no queue costs answers: the next waits twice as long (BBR probes
    // for its minimum round trip every 10 s, not every few windows); one that did, as before.
    if (!up)
      this.downAfter = kept
        ? CONCURRENCY.CRUISE_WINDOWS
        : Math.min(CONCURRENCY.DOWN_AFTER_MAX, 2 * this.downAfter);
    this.reference = kept ? w : emptyTally();
    // Kept up: probe up again at once (the throughput still grows); kept down: one window, then judge again.
    this.cruised = kept ? CONCURRENCY.CRUISE_WINDOWS - 1 : 0;
    if (kept && up && this.value < this.max) this.probe('up');
  }

  /** Startup: twice the limit per window while `delivered` grows; then the least limit that gave the most. */
  private startup(w: Tally): void {
    if (this.appLimited(w, this.value)) return;
    const best = this.best;
    const ratio = best === undefined ? 0 : this.delivered(w) / Math.max(1e-9, this.delivered(best.tally));
    if (best === undefined || ratio >= CONCURRENCY.FULL_GROWTH) {
      // The first step doubles (nothing to judge it by yet); one that delivered in proportion to
      // what it added (8 to 16 in flight, near twice the answers) is followed by a longer one.
      const added = best === undefined ? 0 : this.value / best.limit - 1;
      const proportional = best !== undefined && ratio - 1 >= CONCURRENCY.PROPORTIONAL * added;
      this.best = { limit: this.value, tally: w };
      this.flat = 0;
      if (this.value < this.max) {
        this.value *= proportional ? CONCURRENCY.GALLOP : 2;
        return;
      }
    } else this.flat++;
    if (this.flat < CONCURRENCY.FULL_WINDOWS && this.value < this.max) return;
    this.phase = 'cruise';
    this.value = this.best?.limit ?? this.value;
    this.reference = this.value === this.best?.limit ? (this.best?.tally ?? emptyTally()) : emptyTally();
    this.cruised = 0;
    this.best = undefined;
  }
}
