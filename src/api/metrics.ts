import type { ConcurrencySnapshot, RateSnapshot } from './rate/index.js';

/** Per-run numbers of the client: requests, retries by reason, bytes, latency percentiles. */
export type RetryReason =
  | 'rate_limited'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'truncated'
  | 'unreadable';

export interface MetricsSnapshot {
  requests: number;
  responses: Record<string, number>;
  retries: Partial<Record<RetryReason, number>>;
  rateLimitPauses: number;
  bytesSent: number;
  bytesReceived: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** The adaptive rate at the end: rate in force, cuts by reason, holds, shared-budget leases. */
  rate?: RateSnapshot;
  /** The adaptive concurrency at the end: limit in force, highest and lowest. */
  concurrency?: ConcurrencySnapshot;
}

export class ApiMetrics {
  requests = 0;
  readonly responses: Record<string, number> = {};
  readonly retries: Partial<Record<RetryReason, number>> = {};
  rateLimitPauses = 0;
  bytesSent = 0;
  bytesReceived = 0;
  private readonly latencies: number[] = [];
  /** Set by the transport: the rate limiter's numbers. */
  rate: (() => RateSnapshot) | undefined;
  /** Set by the transport: the concurrency limit's numbers. */
  concurrency: (() => ConcurrencySnapshot) | undefined;

  response(status: number | string, ms: number, bytes: number): void {
    this.responses[String(status)] = (this.responses[String(status)] ?? 0) + 1;
    this.bytesReceived += bytes;
    this.latencies.push(ms);
  }

  retry(reason: RetryReason): void {
    this.retries[reason] = (this.retries[reason] ?? 0) + 1;
  }

  get totalRetries(): number {
    return Object.values(this.retries).reduce((a, b) => a + (b ?? 0), 0);
  }

  snapshot(): MetricsSnapshot {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return {
      requests: this.requests,
      responses: { ...this.responses },
      retries: { ...this.retries },
      rateLimitPauses: this.rateLimitPauses,
      bytesSent: this.bytesSent,
      bytesReceived: this.bytesReceived,
      latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 },
      ...(this.rate === undefined ? {} : { rate: this.rate() }),
      ...(this.concurrency === undefined ? {} : { concurrency: this.concurrency() }),
    };
  }
}
