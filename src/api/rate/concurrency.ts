/**
 * How many requests this process keeps in flight: a gradient limit after Netflix
 * concurrency-limits' Gradient2Limit (and Envoy's adaptive concurrency filter), beside the rate.
 * Latency says how much of an answer's time is queueing: each window of answers compares their
 * latency with a long-term average (per kind of request: a page of 250 records is slower than a
 * GET by id), and
 *
 *   gradient = clamp(1.5 × long / short, 0.5, 1)   (1.5: GradientLimit's rttTolerance)
 *   limit    = limit × gradient + √limit      (latency flat: grows by √limit a window)
 *
 * with the drop smoothed (`SMOOTHING`), so one slow window does not halve it. Until the first
 * window that shows a queue, the limit doubles per window instead, a window then being a round
 * trip (TCP's slow start, RFC 5681), so it reaches what the service needs in a few round trips.
 * By Little's law the requests in flight a rate needs are rate × latency (against a service at
 * 200 ms allowing 150 req/s, 30). The limit does not grow while fewer than half of it are in use
 * (the process asks for less: Netflix's "app-limited" rule), and is not capped at rate ×
 * latency: requests beyond the rate wait for a token (their latency is timed after it), and such
 * a cap, with the rate's own cap of twice what was sent, would pull both down together. Latency
 * moves this limit only: the rate (limiter.ts) is cut on throttling alone, and is shared by every
 * process on the mirror, where concurrency is this process's own.
 *
 * A latency is measured by this process and holds its own event-loop delay (ClientLag), which
 * is taken off before it is judged, and an inflation under the noise (`SLACK_MS`, or the long
 * average when less) is no queue (a sandbox answering in microseconds would otherwise halve the
 * limit on each garbage collection).
 *
 * Pure and clock-free: the transport feeds it answers and reads `limit`.
 */
export const CONCURRENCY = {
  /** Answers per window (and at least WINDOW_MS): a gradient of fewer is noise. */
  WINDOW: 16,
  WINDOW_MS: 100,
  /** Share of a drop applied at once (Gradient2's smoothing). */
  SMOOTHING: 0.2,
  /** Long-term average: the weight of one answer (about the last 200 answers of a kind). */
  LONG_WEIGHT: 1 / 200,
  /**
   * Latency up to this multiple of the long average is no queue (Netflix GradientLimit's
   * `rttTolerance`, 2 there): a loaded client machine and a busy sandbox add tens of ms to 200.
   */
  TOLERANCE: 1.5,
  /** Inflation below this many ms (the window's mean above the long average), or below the long average itself, is noise. */
  SLACK_MS: 15,
} as const;

export interface ConcurrencySnapshot {
  /** The limit in force at the end. */
  limit: number;
  /** The highest and lowest it reached. */
  highest: number;
  lowest: number;
}

export class ConcurrencyLimit {
  private value: number;
  private readonly min: number;
  private readonly max: number;
  /** Per kind of request: the long-term average latency, ms. */
  private readonly long = new Map<string, number>();
  /** The window under way: the sums of each answer's latency over, and above, its kind's long average. */
  private ratios = 0;
  private excessMs = 0;
  private samples = 0;
  private windowStart = 0;
  private peakInFlight = 0;
  private highest: number;
  private lowest: number;
  /** No window has shown a queue yet: the limit doubles per window (TCP's slow start). */
  private slowStart = true;

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

  snapshot(): ConcurrencySnapshot {
    return { limit: this.limit, highest: Math.floor(this.highest), lowest: Math.floor(this.lowest) };
  }

  /**
   * A clean answer of `kind` that took `ms` (less `lagMs` of this process's own delay), with
   * `inFlight` requests in flight when it came. Answers whether the limit changed.
   */
  add(kind: string, ms: number, lagMs: number, inFlight: number, now: number): boolean {
    const own = Math.max(0, ms - lagMs);
    const long = this.long.get(kind);
    if (long === undefined) {
      this.long.set(kind, own);
      return false;
    }
    // The service's queue shows as latency above the long average, beyond noise: judged over the
    // window (each answer's ratio unclipped, so that noise averages out instead of only ever
    // counting against the limit).
    const ratio = own / Math.max(long, 1e-3);
    // The long average follows slowly; when latency falls back far below it (a spell of load
    // over), it comes down faster, as Gradient2 does. It does not rise on an answer that queued
    // (above the tolerance, beyond noise) while this process could still send less: a queue it
    // keeps up would otherwise become the baseline it is judged by, and the limit climb back to
    // the ceiling against a server busy with it. At the floor, latency that stays up is not this
    // process's queue (the service is slower, or busy with others): the average follows it.
    const slack = Math.min(CONCURRENCY.SLACK_MS, Math.max(2, long));
    const queued = ratio > CONCURRENCY.TOLERANCE && own - long > slack;
    if (!queued || this.value <= this.min) {
      let next = long + (own - long) * CONCURRENCY.LONG_WEIGHT;
      if (long > 2 * own && long - own > CONCURRENCY.SLACK_MS) next = long * 0.9;
      this.long.set(kind, next);
    }
    this.ratios += ratio;
    this.excessMs += own - long;
    this.samples++;
    this.peakInFlight = Math.max(this.peakInFlight, inFlight);
    if (this.windowStart === 0) this.windowStart = now;
    // In slow start a window is one round trip (TCP's), not WINDOW_MS: at 20 ms of latency 8 to
    // 48 then takes three windows of about 40 ms instead of three of 100 ms.
    const span = this.slowStart ? Math.min(CONCURRENCY.WINDOW_MS, long) : CONCURRENCY.WINDOW_MS;
    if (this.samples < CONCURRENCY.WINDOW || now - this.windowStart < span) return false;
    const inflated = this.excessMs / this.samples > slack;
    return this.update(inflated ? (CONCURRENCY.TOLERANCE * this.samples) / this.ratios : 1, now);
  }

  private update(gradient: number, now: number): boolean {
    const before = this.limit;
    const g = Math.max(0.5, Math.min(1, gradient));
    const appLimited = this.peakInFlight < this.value / 2;
    this.ratios = 0;
    this.excessMs = 0;
    this.samples = 0;
    this.windowStart = now;
    this.peakInFlight = 0;
    let next: number;
    if (g >= 1) {
      // No queue: grow, unless the process is not using what it has; twice as many while no
      // window has yet shown a queue (slow start).
      if (appLimited) next = this.value;
      else next = this.slowStart ? this.value * 2 : this.value + Math.sqrt(this.value);
    } else {
      this.slowStart = false;
      const target = this.value * g + Math.sqrt(this.value);
      next = this.value * (1 - CONCURRENCY.SMOOTHING) + target * CONCURRENCY.SMOOTHING;
    }
    this.value = Math.max(this.min, Math.min(this.max, next));
    this.highest = Math.max(this.highest, this.value);
    this.lowest = Math.min(this.lowest, this.value);
    return this.limit !== before;
  }
}
