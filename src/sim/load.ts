/** Load the sandbox answers to beyond its queue: latency that grows with the rate, and the rate limit's headers. */
import type { SimOptions } from './options.js';

/** `loadLatencyMs` for each `loadKnee` of requests per second above the knee: an overloaded service. */
export function loadLatency(options: SimOptions, recentRate: number): number {
  if (options.loadKnee <= 0 || recentRate <= options.loadKnee) return 0;
  return Math.round((options.loadLatencyMs * (recentRate - options.loadKnee)) / options.loadKnee);
}

/**
 * The rate limit's bucket described in RateLimit headers (`rateHeaders`): the quota is the bucket's
 * capacity, the window the time it takes to fill from empty, the reset the time it takes to fill
 * from now (at least a second, as the draft counts in whole seconds).
 */
export function rateLimitHeaders(
  options: SimOptions,
  tokens: number,
  capacity: number,
): Record<string, string> {
  if (options.rateLimit <= 0 || options.rateHeaders === 'none') return {};
  const window = Math.round((capacity / options.rateLimit) * 1000) / 1000;
  const remaining = String(Math.max(0, Math.floor(tokens)));
  const reset = String(Math.max(1, Math.ceil((capacity - tokens) / options.rateLimit)));
  const limit = String(capacity);
  switch (options.rateHeaders) {
    case 'draft':
      return {
        'ratelimit-limit': limit,
        'ratelimit-remaining': remaining,
        'ratelimit-reset': reset,
        'ratelimit-policy': `${limit};w=${window}`,
      };
    case 'combined':
      return {
        ratelimit: `"bucket";r=${remaining};t=${reset}`,
        'ratelimit-policy': `"bucket";q=${limit};w=${window}`,
      };
    case 'x':
      return { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
  }
}

/**
 * The rate limit's token bucket: `rateLimit` tokens a second, `rateBurst` at most (0: one
 * second's worth), full at the start. Read through `options()`, so a limit changed while running
 * applies at the next request.
 */
export class TokenBucket {
  tokens: number;
  private lastRefill = Date.now();

  constructor(private readonly options: () => SimOptions) {
    this.tokens = this.capacity();
  }

  capacity(): number {
    const o = this.options();
    return o.rateBurst || Math.max(1, Math.ceil(o.rateLimit));
  }

  /** Takes a token; false when there is none (the request is over the limit). */
  take(): boolean {
    const rate = this.options().rateLimit;
    if (rate <= 0) return true;
    const now = Date.now();
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.lastRefill) / 1000) * rate);
    this.lastRefill = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** After a change of the limit or burst: never more tokens than the new capacity. */
  clamp(): void {
    this.tokens = Math.min(this.tokens, this.capacity());
  }

  /** The bucket now, in the RateLimit headers `rateHeaders` asks for. */
  headers(): Record<string, string> {
    return rateLimitHeaders(this.options(), this.tokens, this.capacity());
  }
}
