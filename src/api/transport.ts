import PQueue from 'p-queue';
import type { Pool } from 'undici';
import type { ApiConfig } from '../config/index.js';
import type { Logger } from '../log.js';
import { undici } from '../util/undici.js';
import { RequestDeadline } from './deadline.js';
import { ApiMetrics } from './metrics.js';
import {
  type Clock,
  ConcurrencyLimit,
  type RateBudgetStore,
  RateLimiter,
  systemClock,
} from './rate/index.js';
import { attemptLayer } from './transport/attempt.js';
import { Circuit, classifyLayer } from './transport/classify.js';
import { metricsLayer } from './transport/metrics.js';
import { rateLayer } from './transport/rate.js';
import { retryLayer } from './transport/retry.js';
import type { Reply, SendOptions } from './transport/types.js';

export type { RequestCounter } from './transport/retry.js';
export type { Reply, SendOptions } from './transport/types.js';

/** The `api.*` keys the transport reads, resolved (config/default.json holds their defaults). */
export const transportKeys = [
  'concurrency',
  'maxConcurrency',
  'requestsPerSecond',
  'timeoutMs',
  'requestDeadlineMs',
  'deadlineFloorMs',
  'deadlineP99Multiple',
  'maxResponseBytes',
  'maxRetries',
  'maxRateLimitRetries',
  'retryBaseMs',
  'retryMaxMs',
] as const satisfies readonly (keyof ApiConfig)[];

/**
 * Resolved options (src/config/schema.ts says what each key means; `api.maxConcurrency` equal to
 * `api.concurrency` fixes the concurrency). Nothing here has a default: whoever builds the
 * transport passes the configuration's values.
 */
export interface TransportOptions extends Pick<ApiConfig, (typeof transportKeys)[number]> {
  /** Base URL of the service, path prefix included. */
  baseUrl: string;
  token: string;
  /** The rate budget shared by every process on the mirror; absent: this process alone. */
  rateBudget?: RateBudgetStore;
  logger?: Logger;
  /** Time and waiting for the limiter and the retries' backoff (the system's unless a test simulates it). */
  clock?: Clock;
}

/** The transport's options of a configuration's `api` section. */
export function transportSettings(api: ApiConfig): Pick<ApiConfig, (typeof transportKeys)[number]> {
  return Object.fromEntries(transportKeys.map((k) => [k, api[k]])) as Pick<
    ApiConfig,
    (typeof transportKeys)[number]
  >;
}

/**
 * The only code that speaks HTTP to the service, composed of layers around one attempt, as undici
 * composes interceptors around one dispatch (docs/rate.md, "The transport's layers"):
 * retry (one table) ∘ metrics ∘ rate (queue, limiter, concurrency) ∘ classify ∘ attempt
 * (an undici Pool with keep-alive, the deadline, a bounded or streamed read).
 */
export class Transport {
  readonly metrics = new ApiMetrics();
  /** The one rate controller: 429s, throttling answers, bursts of 503s and RateLimit headers go to it. */
  readonly limiter: RateLimiter;
  readonly send: (req: SendOptions) => Promise<Reply>;
  private readonly pool: Pool;
  private readonly queue: PQueue;

  constructor(private readonly o: TransportOptions) {
    const url = new URL(o.baseUrl);
    const clock = o.clock ?? systemClock;
    const ceiling = Math.max(o.concurrency, o.maxConcurrency);
    const inFlight = new ConcurrencyLimit({
      initial: o.concurrency,
      min: ceiling === o.concurrency ? o.concurrency : Math.min(2, o.concurrency),
      max: ceiling,
    });
    const { Pool: UndiciPool } = undici();
    this.pool = new UndiciPool(url.origin, {
      connections: ceiling,
      pipelining: 1,
      keepAliveTimeout: 4_000, // below Node's default server keep-alive (5 s)
    });
    // The queue's concurrency follows the limit; the rate is paced by the limiter inside it.
    this.queue = new PQueue({ concurrency: inFlight.limit });
    this.limiter = new RateLimiter({
      requestsPerSecond: o.requestsPerSecond,
      budget: o.rateBudget,
      baseUrl: o.baseUrl,
      token: o.token,
      maxHoldMs: o.retryMaxMs,
      clock,
      logger: o.logger,
    });
    this.metrics.rate = () => this.limiter.snapshot();
    this.metrics.concurrency = () => inFlight.snapshot();
    const circuit = new Circuit(o.baseUrl);
    const deadline = new RequestDeadline({
      floorMs: o.deadlineFloorMs,
      p99Multiple: o.deadlineP99Multiple,
      ceilingMs: o.requestDeadlineMs,
    });
    const attempt = attemptLayer({
      ...o,
      pool: this.pool,
      basePath: url.pathname.replace(/\/+$/, ''),
      deadline,
      metrics: this.metrics,
    });
    const rated = rateLayer(classifyLayer(attempt, circuit), {
      limiter: this.limiter,
      inFlight,
      queue: this.queue,
      circuit,
      clock,
    });
    this.send = retryLayer(metricsLayer(rated, this.metrics, o.logger), {
      ...o,
      metrics: this.metrics,
      circuit,
      sleep: (ms) => clock.sleep(ms),
      random: Math.random,
    });
  }

  /** The service's base URL, as configured. */
  get baseUrl(): string {
    return this.o.baseUrl;
  }

  /** Requests allowed in flight at once. */
  get concurrency(): number {
    return this.queue.concurrency;
  }

  async close(): Promise<void> {
    this.queue.clear();
    await this.pool.close();
  }
}
