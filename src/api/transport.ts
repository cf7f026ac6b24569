import { AsyncLocalStorage } from 'node:async_hooks';
import PQueue from 'p-queue';
import type { Dispatcher, Pool } from 'undici';
import type { Logger } from '../log.js';
import { lazyRequire } from '../util/lazy-require.js';
import { printable } from '../util/printable.js';
import {
  DEADLINE_ATTEMPTS,
  DEADLINE_CODE,
  DeadlineError,
  deadlineFailure,
  RequestDeadline,
} from './deadline.js';
import {
  ForbiddenError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  ProtocolError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
  UnreachableError,
} from './errors.js';
import { parseJsonKeepingHugeNumbers } from './json-numbers.js';
import { type BodySink, NotAListError, SinkConsumerError } from './list-stream.js';
import { ApiMetrics, type RetryReason } from './metrics.js';
import { ClientLag, ConcurrencyLimit, type RateBudgetStore, RateLimiter } from './rate/index.js';
import { hasUnsafeInteger, unsafeInteger } from './validate-record.js';

export interface TransportOptions {
  /** Base URL of the service, path prefix included. */
  baseUrl: string;
  token: string;
  /** Requests in flight at the start (the adaptive limit's first value). @default 8 */
  concurrency?: number;
  /**
   * Ceiling of the adaptive concurrency (rate/concurrency.ts): requests in flight follow the
   * latency the service shows, between 2 and this. Equal to `concurrency`: fixed.
   * @default concurrency (fixed)
   */
  maxConcurrency?: number;
  /**
   * Requests started per second, across the client: 'auto' finds the service's limit (see
   * rate/limiter.ts); a number is a ceiling the adaptive rate never exceeds. @default 'auto'
   */
  requestsPerSecond?: number | 'auto';
  /** The rate budget shared by every process on the mirror; absent: this process alone. */
  rateBudget?: RateBudgetStore;
  /** Per-request timeout for headers and for body, milliseconds. @default 30_000 (30 s) */
  timeoutMs?: number;
  /**
   * Longest one attempt may take, from sending to the body's last byte, milliseconds: a body
   * trickled a byte at a time never trips the idle timeout above. @default 300_000 (5 min)
   */
  requestDeadlineMs?: number;
  /** Shortest deadline of an attempt (see deadline.ts), milliseconds. @default 30_000 */
  deadlineFloorMs?: number;
  /** An attempt's deadline: this multiple of the p99 duration seen (see deadline.ts). @default 10 */
  deadlineP99Multiple?: number;
  /** Largest response body read, bytes; a longer one is a protocol error. @default 64 MiB */
  maxResponseBytes?: number;
  /** Retries after the first attempt, for requests safe to repeat. @default 6 */
  maxRetries?: number;
  /** Retries of 429s, which never did anything; they slow the whole client. @default 30 */
  maxRateLimitRetries?: number;
  /** First backoff, doubled each retry, with jitter. @default 250 (ms) */
  retryBaseMs?: number;
  /** Longest backoff and longest Retry-After honoured. @default 30_000 (30 s) */
  retryMaxMs?: number;
  logger?: Logger;
}

export interface SendOptions {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the base URL, query string included. */
  path: string;
  body?: unknown;
  /** Whether a repeat is harmless (queries, GET, PATCH, DELETE). Creates are not. */
  idempotent: boolean;
  /**
   * For DELETE: a 404 on a retry, after an attempt that may have been carried out, means the
   * earlier attempt did it; answer `{status: 404, body: undefined}` instead of failing.
   */
  goneMeansDone?: boolean;
  /** Cancels the request (and its retries): the caller no longer wants the answer. */
  signal?: AbortSignal | undefined;
  /**
   * A successful answer's body is poured here as it arrives (a list parsed record by record)
   * instead of being read whole; reset before each attempt. The reply's body is then undefined.
   */
  sink?: BodySink;
}

export interface Reply {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/**
 * Requests and retries of one unit of work (a sync stream, say), counted for whatever runs inside
 * `requestCounter.run(counter, fn)`, though all units share one client and its rate limit.
 */
export interface RequestCounter {
  requests: number;
  retries: number;
}
export const requestCounter = new AsyncLocalStorage<RequestCounter>();

/** Network error codes meaning the request never left: a resend cannot double anything. */
const notSentCodes = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);
const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', DEADLINE_CODE]);
/** Before any answer came, these mean there is no service at the base URL: fail fast. */
const unreachableCodes: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
};

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return 'UNKNOWN';
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** undici, loaded by the first client: commands that never speak to the service (plan, report, status) do not pay its start-up. */
const undici = lazyRequire<typeof import('undici')>('undici');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The only code that speaks HTTP to the service: an undici Pool with keep-alive, a p-queue for
 * concurrency, the adaptive RateLimiter (rate/) for the rate, retries with exponential backoff
 * and jitter for requests safe to repeat, and error classes by status.
 */
export class Transport {
  readonly metrics = new ApiMetrics();
  private readonly pool: Pool;
  private readonly queue: PQueue;
  private readonly basePath: string;
  private readonly o: Required<Omit<TransportOptions, 'logger' | 'rateBudget' | 'maxConcurrency'>>;
  private readonly logger: Logger | undefined;
  /** The one rate controller: 429s, Retry-After, latency and RateLimit headers all go to it. */
  readonly limiter: RateLimiter;
  /** Requests in flight, following latency (per process; the rate is shared). */
  private readonly inFlight: ConcurrencyLimit;
  /** Set by a 401: every later request fails at once with it (the token will not heal). */
  private fatal: UnauthorizedError | UnreachableError | undefined;
  /** Whether the service has answered at all (then a refused connection is worth retrying). */
  private reached = false;
  /** Each attempt's total deadline, from the durations seen (deadline.ts). */
  private readonly deadline: RequestDeadline;

  /** The service's base URL, as configured. */
  get baseUrl(): string {
    return this.o.baseUrl;
  }

  constructor(options: TransportOptions) {
    this.o = {
      concurrency: 8,
      requestsPerSecond: 'auto',
      timeoutMs: 30_000, // 30 s
      requestDeadlineMs: 300_000, // 5 min
      deadlineFloorMs: 30_000, // 30 s
      deadlineP99Multiple: 10,
      maxResponseBytes: 64 * 1024 * 1024,
      maxRetries: 6,
      maxRateLimitRetries: 30,
      retryBaseMs: 250,
      retryMaxMs: 30_000, // 30 s
      ...options,
    };
    this.logger = options.logger;
    this.deadline = new RequestDeadline({
      floorMs: this.o.deadlineFloorMs,
      p99Multiple: this.o.deadlineP99Multiple,
      ceilingMs: this.o.requestDeadlineMs,
    });
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    const ceiling = Math.max(this.o.concurrency, options.maxConcurrency ?? this.o.concurrency);
    this.inFlight = new ConcurrencyLimit({
      initial: this.o.concurrency,
      min: ceiling === this.o.concurrency ? this.o.concurrency : Math.min(2, this.o.concurrency),
      max: ceiling,
    });
    const { Pool: UndiciPool } = undici();
    this.pool = new UndiciPool(url.origin, {
      connections: ceiling,
      pipelining: 1,
      keepAliveTimeout: 4_000, // below Node's default server keep-alive (5 s)
    });
    // The queue's concurrency follows the limit; the rate is paced by the limiter inside it.
    this.queue = new PQueue({ concurrency: this.inFlight.limit });
    this.limiter = new RateLimiter({
      requestsPerSecond: this.o.requestsPerSecond,
      budget: options.rateBudget,
      baseUrl: this.o.baseUrl,
      token: this.o.token,
      maxHoldMs: this.o.retryMaxMs,
      logger: this.logger,
    });
    this.metrics.rate = () => this.limiter.snapshot();
    this.metrics.concurrency = () => this.inFlight.snapshot();
  }

  /** Requests allowed in flight at once. */
  get concurrency(): number {
    return this.queue.concurrency;
  }

  async send(req: SendOptions): Promise<Reply> {
    let failures = 0;
    let rateLimited = 0;
    let deadlinesHit = 0;
    /** An earlier attempt may have been carried out (its reply was lost or was a 5xx). */
    let maybeApplied = false;
    const where = { method: req.method, path: req.path };
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    for (;;) {
      if (this.fatal !== undefined) throw this.fatal;
      req.signal?.throwIfAborted();
      const attempts = failures + rateLimited + 1;
      const counter = requestCounter.getStore();
      if (counter !== undefined) {
        counter.requests++;
        if (attempts > 1) counter.retries++;
      }
      let status: number;
      let text: string;
      let ms: number;
      let retryAfterMs: number | undefined;
      req.sink?.reset();
      // Latency is measured from the moment the request leaves the queue, not from enqueueing.
      let started = performance.now();
      let sentAt = Date.now();
      try {
        ({ status, text, ms, retryAfterMs } = await this.queue.add(async () => {
          await this.limiter.acquire();
          started = performance.now();
          // Queued before the client learnt it must stop (401, no service): not sent at all.
          if (this.fatal !== undefined) throw this.fatal;
          sentAt = Date.now();
          return this.once(req, payload, sentAt);
        }));
      } catch (err) {
        if (req.signal?.aborted === true) throw req.signal.reason;
        // A response over its bound is no accident of the network: not retried.
        if (err instanceof ProtocolError || err === this.fatal) throw err;
        // The sink's consumer failed (a page it could not write): its error, as it is.
        if (err instanceof SinkConsumerError) throw err.inner;
        if (err instanceof NotAListError) throw new ProtocolError(err.message, { ...where, attempts });
        const code = errorCode(err);
        this.failFast(code, where, attempts, err);
        ms = Math.round(performance.now() - started);
        this.limiter.observe(requestKind(req), code, ms, {}, sentAt);
        this.metrics.response(code, ms, 0);
        this.logger?.debug({ ...where, status: code, ms, attempt: attempts }, 'http');
        const reason: RetryReason = timeoutCodes.has(code)
          ? 'timeout'
          : code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
            ? 'truncated'
            : 'network';
        if (!req.idempotent && !notSentCodes.has(code)) {
          throw new OutcomeUnknownError(`${reason}: ${code}`, { ...where, attempts, cause: err });
        }
        if (code === DEADLINE_CODE && ++deadlinesHit >= DEADLINE_ATTEMPTS)
          throw new NetworkError(deadlineFailure(err, attempts), { ...where, attempts, cause: err });
        if (failures >= this.o.maxRetries) {
          throw new NetworkError(`${reason} (${code}) on each of ${attempts} attempts`, {
            ...where,
            attempts,
            cause: err,
          });
        }
        failures++;
        maybeApplied ||= !notSentCodes.has(code);
        this.metrics.retry(reason);
        await sleep(this.backoff(failures));
        continue;
      }
      this.reached = true;
      this.metrics.response(status, ms, Buffer.byteLength(text));
      this.logger?.debug({ ...where, status, ms, attempt: attempts }, 'http');

      // A 429, or a 4xx saying it throttles (400 "Rate exceeded"): nothing was done, resend it.
      if (status === 429 || (status >= 400 && status < 500 && throttlingAnswer(text))) {
        this.metrics.rateLimitPauses++;
        if (rateLimited >= this.o.maxRateLimitRetries)
          throw new RateLimitedError({ ...where, status, attempts });
        rateLimited++;
        this.metrics.retry('rate_limited');
        // The limiter has cut the rate; a 429's Retry-After holds every request, another
        // throttling answer's only this one.
        if (status !== 429 && retryAfterMs !== undefined)
          await sleep(Math.min(this.o.retryMaxMs, retryAfterMs));
        continue;
      }
      const detail = parseJson(text);
      if (status >= 500) {
        if (!req.idempotent) {
          throw new OutcomeUnknownError(`status ${status}`, {
            ...where,
            status,
            attempts,
            detail: detail.value ?? text,
          });
        }
        if (failures >= this.o.maxRetries)
          throw new ServerError({ ...where, status, attempts, detail: detail.value ?? text });
        failures++;
        maybeApplied = true;
        this.metrics.retry('server_error');
        // A fault holds this request alone: its own Retry-After (capped), the others go on.
        await sleep(Math.max(this.backoff(failures), Math.min(this.o.retryMaxMs, retryAfterMs ?? 0)));
        continue;
      }
      if (status === 401) {
        this.fatal = new UnauthorizedError({ ...where, status, attempts, detail: detail.value });
        throw this.fatal;
      }
      if (status === 403) throw new ForbiddenError({ ...where, status, attempts, detail: detail.value });
      if (status === 404 && maybeApplied && req.goneMeansDone === true) return { status, body: undefined };
      if (status === 404) throw new NotFoundError({ ...where, status, attempts, detail: detail.value });
      if (status >= 400) {
        const msg = serviceMessage(detail.value) ?? `rejected (${status})`;
        throw new InvalidRequestError(msg, { ...where, status, attempts, detail: detail.value ?? text });
      }
      if (detail.ok && hasUnsafeInteger(detail.value)) {
        const unsafe = unsafeInteger(text) ?? 'a number';
        throw new ProtocolError(`an integer beyond 2^53 (${unsafe.slice(0, 30)}) that JSON would round`, {
          ...where,
          status,
          attempts,
        });
      }
      if (!detail.ok) {
        if (!req.idempotent) {
          throw new OutcomeUnknownError('success with an unreadable body', {
            ...where,
            status,
            attempts,
            detail: text,
          });
        }
        if (failures >= this.o.maxRetries) {
          throw new ProtocolError(`unreadable response body (${text.length} bytes)`, {
            ...where,
            status,
            attempts,
          });
        }
        failures++;
        this.metrics.retry('unreadable');
        await sleep(this.backoff(failures));
        continue;
      }
      return { status, body: detail.value };
    }
  }

  private async once(
    req: SendOptions,
    payload: string | undefined,
    sentAt: number,
  ): Promise<{ status: number; text: string; ms: number; retryAfterMs: number | undefined }> {
    const started = performance.now();
    this.metrics.requests++;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.o.token}`,
      accept: 'application/json',
    };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      this.metrics.bytesSent += Buffer.byteLength(payload);
    }
    const deadline = new AbortController();
    const limit = this.deadline.ms;
    const timer = setTimeout(() => deadline.abort(), limit);
    // The caller's signal (a failed sibling partition, SIGINT) and the total deadline both end it.
    const signal =
      req.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, req.signal]);
    try {
      const res = await this.pool.request({
        method: req.method,
        path: `${this.basePath}${req.path}`,
        headers,
        body: payload ?? null,
        headersTimeout: this.o.timeoutMs,
        bodyTimeout: this.o.timeoutMs,
        signal,
      });
      // A list poured into its sink (list-stream.ts) is timed to its headers: the consumer's
      // work on each page is no latency of the service.
      const streamed = req.sink !== undefined && res.statusCode >= 200 && res.statusCode < 300;
      const text = streamed ? '' : await this.readBounded(res, req);
      const ms = Math.round(performance.now() - started);
      this.deadline.observe(ms);
      const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
      const status = res.statusCode;
      const throttling = status !== 429 && status >= 400 && throttlingAnswer(text);
      const kind = requestKind(req);
      this.limiter.observe(kind, status, ms, res.headers, sentAt, retryAfterMs, throttling);
      if (status < 500 && status !== 429 && !throttling) this.adaptConcurrency(kind, ms);
      if (streamed && req.sink !== undefined) await this.pour(res, req.sink);
      return { status, text, ms, retryAfterMs };
    } catch (err) {
      if (req.signal?.aborted === true) throw req.signal.reason;
      if (deadline.signal.aborted) throw new DeadlineError(limit);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The body, chunk by chunk, into `sink`: no byte cap (memory is the sink's page), the request
   * deadline and the body timeout still end an endless or stalled body.
   */
  private async pour(res: Dispatcher.ResponseData, sink: BodySink): Promise<void> {
    for await (const chunk of res.body as AsyncIterable<Buffer>) await sink.write(chunk);
    await sink.end();
  }

  /**
   * The body as text, at most `maxResponseBytes`: an endless or huge body is cut off (and the
   * connection dropped) as a protocol error instead of growing the process without bound.
   */
  private async readBounded(res: Dispatcher.ResponseData, req: SendOptions): Promise<string> {
    const max = this.o.maxResponseBytes;
    const tooLarge = (what: string) => {
      res.body.destroy();
      return new ProtocolError(`response body ${what} maxResponseBytes (${max} bytes); cut off`, {
        method: req.method,
        path: req.path,
        status: res.statusCode,
      });
    };
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) throw tooLarge(`of ${declared} bytes announced, over`);
    // A length announced within the bound: undici reads exactly that much (a body cut short or
    // running over is its error), without an async iterator's promise per chunk.
    if (Number.isFinite(declared) && res.headers['content-encoding'] === undefined) return res.body.text();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > max) throw tooLarge('over');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size).toString('utf8');
  }

  /** A clean answer's latency moves the concurrency limit (rate/concurrency.ts). */
  private adaptConcurrency(kind: string, ms: number): void {
    const now = Date.now();
    const lag = ClientLag.get().ms(now);
    if (this.inFlight.add(kind, ms, lag, this.queue.pending, now))
      this.queue.concurrency = this.inFlight.limit;
  }

  /**
   * Connection refused or an unknown host before the service ever answered: the base URL is
   * wrong or the service is down, and retrying hundreds of requests for it only delays the
   * news. The whole client stops with one error naming the host tried.
   */
  private failFast(code: string, where: { method: string; path: string }, attempts: number, err: unknown) {
    if (this.fatal !== undefined) throw this.fatal;
    const why = unreachableCodes[code];
    if (why === undefined || this.reached) return;
    const url = new URL(this.o.baseUrl);
    this.fatal = new UnreachableError(`${url.protocol}//${url.host}`, why, {
      ...where,
      attempts,
      cause: err,
    });
    throw this.fatal;
  }

  /** Exponential backoff with "equal jitter": half fixed, half random, capped. */
  private backoff(failures: number): number {
    const ceiling = Math.min(this.o.retryMaxMs, this.o.retryBaseMs * 2 ** (failures - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  async close(): Promise<void> {
    this.queue.clear();
    await this.pool.close();
  }
}

/** Method and path without ids or query: requests of one kind, whose latencies compare. */
function requestKind(req: SendOptions): string {
  return `${req.method} ${req.path.replace(/\?.*$/, '').replace(/\/[^/]*\d[^/]*/g, '/{id}')}`;
}

/**
 * A throttling answer under another status than 429: the error codes and messages services use
 * for it (the AWS SDK's throttling codes: Throttling, ThrottlingException, RequestLimitExceeded,
 * TooManyRequestsException, SlowDown, RequestThrottled; "rate limit exceeded"). Read only on
 * error answers, from the first 2 KiB.
 */
const THROTTLING = /throttl|rate.?limit|too.?many.?requests|slow.?down|request.?limit.?exceeded/i;
export function throttlingAnswer(text: string): boolean {
  return THROTTLING.test(text.length > 2048 ? text.slice(0, 2048) : text);
}

function parseJson(text: string): { ok: boolean; value: unknown } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: parseJsonKeepingHugeNumbers(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

/** The message of an error body, whatever its shape (`{error:{message}}`, `{message}`, a string). */
function serviceMessage(body: unknown): string | undefined {
  const m = rawServiceMessage(body);
  return m === undefined ? undefined : printable(m, 300);
}

function rawServiceMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { message?: unknown; error?: unknown };
  if (typeof b.message === 'string') return b.message;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.error === 'object' && b.error !== null) {
    const m = (b.error as { message?: unknown }).message;
    if (typeof m === 'string') return m;
  }
  return undefined;
}
