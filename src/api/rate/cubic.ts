/**
 * The rate controller: the AWS SDK's adaptive retry mode ("CUBIC token bucket", as in
 * botocore's `adaptive.py` / the Java SDK's `RateLimitingTokenBucket`), which applies TCP
 * CUBIC's window law (RFC 8312) to a token bucket's fill rate:
 *
 * - after a throttling signal at time `cutAt`, with the rate then in use `wMax`:
 *   `rate = wMax × BETA`, then `rate(t) = C × (t − cutAt − K)³ + wMax`, `K = ∛(wMax × (1 − BETA) / C)`:
 *   a quick climb back to just below `wMax`, a long flat stretch around it (where the limit was),
 *   then an ever faster probe above it;
 * - the rate never exceeds twice the rate actually measured (a client that sends little does not
 *   earn a huge rate it could later burst at), nor the pinned ceiling, nor a rate the service
 *   announced in RateLimit headers.
 *
 * Constants are the AWS SDK's: `BETA = 0.7` (a 30% cut, gentler than AIMD's halving, because the
 * cubic curve returns to the plateau quickly), `C = 0.4` (the plateau of a 20 req/s limit lasts
 * about 2.5 s, of a 150 req/s limit about 4.8 s), `MIN_RATE = 0.5` req/s. As in the AWS SDK the
 * bucket is off (no limit at all) until the first throttling signal, unless a rate is known:
 * a pinned ceiling, a rate learned by an earlier process, or RateLimit headers.
 *
 * Pure and clock-free (every method takes `now` in milliseconds) so that it can be reasoned
 * about; RateControl (control.ts) holds it with the tokens and holds, RateLimiter (limiter.ts) the
 * clock and the waiting.
 */
export const CUBIC = { BETA: 0.7, C: 0.4, MIN_RATE: 0.5 } as const;

/** What every process sharing a budget must agree on: the curve is a function of these. */
export interface CubicState {
  /** Requests per second in force now (Infinity: off, no signal yet). */
  rate: number;
  /** The rate in use at the last cut (the plateau of the curve); 0 when never cut. */
  wMax: number;
  /** When the last cut happened (epoch ms); 0 when never cut. */
  cutAt: number;
}

/** `throttled`: a 429 or a throttling answer; `unavailable`: a burst of 503s. */
export type CutReason = 'throttled' | 'unavailable';

export class CubicRate {
  private state: CubicState;
  /** Pinned by `api.requestsPerSecond: N`, or Infinity for "auto". */
  readonly ceiling: number;
  /** Planned from RateLimit headers (Infinity: none sent). */
  private planned = Number.POSITIVE_INFINITY;
  /**
   * The rate this process has seen the service take cleanly (0: none yet): no cut goes below
   * it, and the curve does not sink under it after a cut. Local, not shared: each process
   * proves it for itself; `forget()` drops it when the service throttles at or below it.
   */
  private clean = 0;

  constructor(ceiling: number, start?: { rate: number; now: number }) {
    this.ceiling = ceiling;
    this.state = { rate: ceiling, wMax: 0, cutAt: 0 };
    if (start !== undefined && Number.isFinite(start.rate) && start.rate > 0) {
      // A rate known good (learned by an earlier process): sit on its plateau, probe above slowly.
      const rate = Math.min(ceiling, start.rate);
      this.state = { rate, wMax: rate, cutAt: start.now - this.k(rate) * 1000 };
    }
  }

  get current(): CubicState {
    return { ...this.state };
  }

  /** The announced rate from RateLimit headers, if any. */
  get plannedRate(): number {
    return this.planned;
  }

  /** Adopts a state another process published (its cut is newer than ours). */
  adopt(shared: CubicState): void {
    this.state = { ...shared, rate: Math.min(this.limitCap(), shared.rate) };
  }

  /**
   * A throttling signal (a 429, a throttling answer, a burst of 503s) for a request sent at `sentAt`.
   * Signals from requests sent before the last cut belong to the same episode and are not cut
   * again (as TCP cuts once per window), else eight 429s in flight would cut to 0.7⁸.
   * Returns whether it cut.
   */
  throttle(now: number, sentAt: number, measured: number): boolean {
    if (sentAt < this.state.cutAt) return false;
    // Throttled at or below the clean rate: the service takes less than it did (another client,
    // a lowered limit); that rate proves nothing any more.
    if (this.state.rate <= this.clean) this.clean = 0;
    const inUse = Number.isFinite(this.state.rate) ? Math.min(this.state.rate, measured) : measured;
    const wMax = Math.max(CUBIC.MIN_RATE, inUse, this.clean);
    this.state = { rate: this.clamp(Math.max(wMax * CUBIC.BETA, this.clean)), wMax, cutAt: now };
    return true;
  }

  /** The service took `rate` cleanly (no throttle for a while, the rate in use): the new floor. */
  provedClean(rate: number): void {
    if (Number.isFinite(rate) && rate > this.clean) this.clean = Math.min(rate, this.limitCap());
  }

  /** The floor of the rate: what the service has been seen to take cleanly (0: none). */
  get cleanRate(): number {
    return this.clean;
  }

  /** A clean response: the rate follows the cubic curve, capped by twice the measured rate. */
  success(now: number, measured: number): void {
    if (this.state.cutAt === 0) {
      this.state.rate = this.limitCap();
      return;
    }
    const t = (now - this.state.cutAt) / 1000;
    const cubic = CUBIC.C * (t - this.k(this.state.wMax)) ** 3 + this.state.wMax;
    // Never below the plateau just because little was sent meanwhile (a pause, a Retry-After).
    const cap = Math.max(2 * measured, this.state.wMax);
    // Nor below the clean rate while the curve climbs back from a cut.
    this.state.rate = this.clamp(Math.max(this.clean, Math.min(cubic, cap)));
  }

  /**
   * RateLimit headers announced `rate` requests per second: use it at once instead of probing
   * (it becomes the plateau), and never go above it while it stands.
   */
  plan(now: number, rate: number): void {
    if (!(rate > 0) || !Number.isFinite(rate)) return;
    const first = !Number.isFinite(this.planned);
    this.planned = rate;
    if (first || this.state.rate > rate || this.state.cutAt === 0) {
      const r = Math.min(this.ceiling, rate);
      this.state = { rate: r, wMax: r, cutAt: now - this.k(r) * 1000 };
    }
  }

  private limitCap(): number {
    return Math.min(this.ceiling, this.planned);
  }

  private clamp(rate: number): number {
    return Math.max(CUBIC.MIN_RATE, Math.min(this.limitCap(), rate));
  }

  private k(wMax: number): number {
    return Math.cbrt((wMax * (1 - CUBIC.BETA)) / CUBIC.C);
  }
}
