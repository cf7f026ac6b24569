import { describe, expect, it } from 'vitest';
import { RateLimiter, type RateLimiterOptions } from '../../src/api/rate/index.js';
import { SimClock } from '../helpers/clock.js';
import { cutLog, cutsFromAnswered } from '../helpers/rate.js';

/**
 * The rate limiter (src/api/rate) on a simulated clock: a service's token bucket modelled on the
 * same clock answers each request, and the limiter's `acquire()` and `observe()` are driven as the
 * transport drives them. Time moves only when every worker waits, so these tests run minutes of
 * traffic in a fraction of a second and come out the same on a loaded machine. Over real HTTP:
 * rate.test.ts, rate-faults.test.ts, rate-budget.test.ts.
 */

interface ServiceOptions {
  /** Requests per second allowed (0: no limit), the bucket's depth (a second's worth by default). */
  limit: number;
  burst?: number;
  /** Answered beyond the limit: 429, or 503 (an overloaded service's burst). */
  refuse?: 429 | 503;
  retryAfterMs?: number;
  latencyMs?: number;
  /** RateLimit headers (the draft's form) on every answer. */
  headers?: boolean;
}

/** A service's token bucket on the simulated clock, as the sandbox keeps one (src/sim). */
class Service {
  requests = 0;
  refused = 0;
  readonly bySecond = new Map<number, number>();
  private tokens: number;
  private at: number;

  constructor(
    private readonly clock: SimClock,
    public o: ServiceOptions,
  ) {
    this.tokens = this.capacity;
    this.at = clock.now();
  }

  get capacity(): number {
    return this.o.burst ?? this.o.limit;
  }

  /** Requests sent in the busiest second of the simulated clock. */
  get busiestSecond(): number {
    return Math.max(0, ...this.bySecond.values());
  }

  answer(): { status: number; headers: Record<string, string>; retryAfterMs: number | undefined } {
    const now = this.clock.now();
    this.requests++;
    const second = Math.floor(now / 1000);
    this.bySecond.set(second, (this.bySecond.get(second) ?? 0) + 1);
    if (this.o.limit <= 0) return { status: 200, headers: {}, retryAfterMs: undefined };
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) / 1000) * this.o.limit);
    this.at = now;
    const ok = this.tokens >= 1;
    if (ok) this.tokens -= 1;
    else this.refused++;
    const headers: Record<string, string> = this.o.headers
      ? {
          'ratelimit-limit': String(this.capacity),
          'ratelimit-remaining': String(Math.max(0, Math.floor(this.tokens))),
          'ratelimit-reset': String(Math.max(1, Math.ceil((this.capacity - this.tokens) / this.o.limit))),
          'ratelimit-policy': `${this.capacity};w=${this.capacity / this.o.limit}`,
        }
      : {};
    if (ok) return { status: 200, headers, retryAfterMs: undefined };
    return { status: this.o.refuse ?? 429, headers, retryAfterMs: this.o.retryAfterMs ?? 1000 };
  }
}

function setup(service: ServiceOptions, options: Partial<RateLimiterOptions> = {}) {
  const clock = new SimClock();
  const { cuts, lines, logger } = cutLog();
  const limiter = new RateLimiter({
    requestsPerSecond: 'auto',
    baseUrl: 'http://service.test',
    token: 't',
    maxHoldMs: 2000,
    clock,
    logger,
    ...options,
  });
  return { clock, limiter, cuts, lines, service: new Service(clock, service) };
}

/**
 * `n` requests, `workers` at a time, as the transport sends them: a token, the request, its
 * answer shown to the limiter; a refused one is sent again (a 503 after its Retry-After, a 429 at
 * once: the limiter holds the whole client).
 */
async function drive(s: ReturnType<typeof setup>, n: number, workers = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next++ < n) {
      for (;;) {
        await s.limiter.acquire();
        const sentAt = s.clock.now();
        const a = s.service.answer();
        await s.clock.sleep(s.service.o.latencyMs ?? 20);
        s.limiter.observe({ status: a.status, headers: a.headers, sentAt, retryAfterMs: a.retryAfterMs });
        if (a.status < 400) break;
        if (a.status === 503) await s.clock.sleep(a.retryAfterMs ?? 1000);
      }
    }
  };
  await s.clock.run(Promise.all(Array.from({ length: workers }, worker)));
}

describe('the rate limiter on a simulated clock', () => {
  it('finds a limit it is not told: cuts on 429 to about it, held by Retry-After; climbs when the service allows more', async () => {
    const s = setup({ limit: 40, retryAfterMs: 1000 });
    await drive(s, 600);
    const found = s.limiter.snapshot();
    expect(found.cuts.throttled).toBeGreaterThanOrEqual(1);
    expect(found.holds).toBeGreaterThanOrEqual(1);
    expect(found.rate).toBeGreaterThan(20);
    expect(found.rate).toBeLessThan(80);
    expect(s.service.refused).toBeLessThanOrEqual(0.05 * s.service.requests);
    // What was sent over the run's seconds after the first (start-up) ones: near the limit.
    const seconds = [...s.service.bySecond.values()].slice(2, -1);
    const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
    expect(mean, JSON.stringify(seconds)).toBeGreaterThan(0.85 * 40);

    s.service.o.limit = 0;
    await drive(s, 500);
    const lifted = s.limiter.snapshot();
    expect(lifted.rate).toBeGreaterThan(1.5 * (found.rate ?? 0));
    expect(lifted.cuts).toEqual(found.cuts);
  });

  it('never exceeds a pinned ceiling, and uses it', async () => {
    const s = setup({ limit: 0 }, { requestsPerSecond: 15 });
    await drive(s, 300);
    const seconds = [...s.service.bySecond.values()];
    expect(Math.max(...seconds), JSON.stringify(seconds)).toBeLessThanOrEqual(15 + 3); // a fifth of a second's burst
    expect(Math.min(...seconds.slice(1, -1)), JSON.stringify(seconds)).toBeGreaterThanOrEqual(14);
    expect(s.limiter.snapshot()).toMatchObject({ rate: 15, cuts: { throttled: 0, unavailable: 0 } });
  });

  it('plans the rate from RateLimit headers instead of probing: no cut, no 429 after the first answers', async () => {
    const s = setup({ limit: 25, headers: true });
    await drive(s, 300);
    const rate = s.limiter.snapshot();
    expect(rate.plannedRate).toBe(25);
    expect(rate.cuts.throttled).toBe(0);
    expect(s.service.refused).toBeLessThanOrEqual(1);
  });

  it('a burst of 503s cuts the rate as a 429 would, and holds no one', async () => {
    const s = setup({ limit: 40, refuse: 503, retryAfterMs: 1000 });
    await drive(s, 600);
    const rate = s.limiter.snapshot();
    expect(s.service.refused).toBeGreaterThanOrEqual(5);
    expect(rate.cuts.unavailable).toBeGreaterThanOrEqual(1);
    expect(rate.cuts.throttled).toBe(0);
    expect(rate.holds).toBe(0);
    expect(rate.rate).toBeGreaterThan(5);
    expect(rate.rate).toBeLessThan(120);
  });

  it('faults never cut: a lone 503, a 500, a dropped connection are counted and retried alone', () => {
    const s = setup({ limit: 0 });
    const seen = [];
    for (let i = 0; i < 400; i++) {
      const status = i % 40 === 7 ? 503 : i % 40 === 19 ? 500 : i % 40 === 31 ? 'ECONNRESET' : 200;
      seen.push(s.limiter.observe({ status, sentAt: s.clock.now(), retryAfterMs: 1000 }).signal);
    }
    expect(seen.filter((x) => x === 'fault')).toHaveLength(30);
    expect(s.limiter.snapshot()).toMatchObject({
      cuts: { throttled: 0, unavailable: 0 },
      holds: 0,
      faults: 30,
      rate: null,
    });
  });

  it('cuts once per episode: throttles of requests sent before the cut do not cut again', () => {
    const s = setup({ limit: 0 });
    const sentAt = s.clock.now() - 10;
    const answers = Array.from({ length: 8 }, () => s.limiter.observe({ status: 429, sentAt }));
    expect(answers.filter((a) => a.cut !== undefined)).toHaveLength(1);
    expect(answers.every((a) => a.signal === 'throttle')).toBe(true);
    expect(s.limiter.snapshot().cuts.throttled).toBe(1);
  });

  it('a hold does not deflate the next cut: cuts start from what was answered outside it', async () => {
    // Retry-After 2 s holds the whole client, answering nothing; a shallow bucket (4), so the
    // first requests after a hold may be refused again. Cut from the second after a hold (near 0
    // answered), the rate would land at 0.7 x 4 req/s; outside it the service answers 40 req/s.
    const s = setup({ limit: 40, burst: 4, retryAfterMs: 2000 });
    await drive(s, 600);
    const rate = s.limiter.snapshot();
    expect(rate.holds).toBeGreaterThanOrEqual(2);
    const later = s.cuts.slice(s.cuts.findIndex((r) => r >= 10));
    expect(later.length, JSON.stringify(s.cuts)).toBeGreaterThanOrEqual(2);
    expect(Math.min(...later), JSON.stringify(s.cuts)).toBeGreaterThan(10);
    expect(s.service.refused).toBeLessThanOrEqual(0.15 * s.service.requests);
  });
});

describe('a cut, alone', () => {
  it('starts from what the service answered, not from the rate in force', async () => {
    // The sandbox's case of rate.test.ts on the simulated clock: 40 req/s, a quarter second of
    // bucket, Retry-After 1 s. While 429s hold the client the rate in force climbs above what is
    // sent: cut from it, the cuts would land at 0.7 x that (means of 34 over real HTTP). Each cut
    // lands at 0.7 x what was answered, or on the floor of a rate the service took cleanly.
    const s = setup({ limit: 40, burst: 10, retryAfterMs: 1000 });
    await drive(s, 400);
    const { below, wrong } = cutsFromAnswered(s.lines);
    expect(below.length, JSON.stringify(s.lines)).toBeGreaterThanOrEqual(1);
    expect(wrong, JSON.stringify(s.lines)).toEqual([]);
    // Near the limit, whichever decided: never the 31 to 39 of cuts from the rate in force alone.
    expect(Math.min(...below.map((l) => l.rate))).toBeLessThan(31);
  });
});
