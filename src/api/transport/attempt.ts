import { EventEmitter, setMaxListeners } from 'node:events';
import type { Dispatcher, Pool } from 'undici';
import { DeadlineError, MIN_POUR_BYTES_PER_SECOND, type RequestDeadline } from '../deadline.js';
import { ProtocolError } from '../errors.js';
import type { BodySink } from '../list-stream.js';
import type { ApiMetrics } from '../metrics.js';
import { throttlingAnswer } from './classify.js';
import { type Answer, type Call, parseRetryAfter } from './types.js';

export interface AttemptOptions {
  pool: Pool;
  /** The base URL's path, without a trailing slash: prefixed to each request's path. */
  basePath: string;
  token: string;
  /** Idle timeout for the head and for the body, milliseconds (api.timeoutMs). */
  timeoutMs: number;
  /** Largest body read whole, bytes (api.maxResponseBytes). */
  maxResponseBytes: number;
  /** Each attempt's total deadline, from the durations seen. */
  deadline: RequestDeadline;
  metrics: ApiMetrics;
}

/**
 * The innermost layer: one attempt over the pool, within the total deadline, its body read whole
 * (at most `maxResponseBytes`) or, for a request with a sink, left to pour (`Answer.pour`, still
 * within the deadline). It throws what undici throws (or a DeadlineError, or the caller's abort
 * reason); it judges nothing.
 */
export function attemptLayer(o: AttemptOptions): (call: Call) => Promise<Answer> {
  const bounded = (res: Dispatcher.ResponseData, call: Call) => readBounded(res, call, o.maxResponseBytes);
  return async (call) => {
    const { req, payload } = call;
    const started = performance.now();
    o.metrics.requests++;
    const headers: Record<string, string> = {
      authorization: `Bearer ${o.token}`,
      accept: 'application/json',
    };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      o.metrics.bytesSent += Buffer.byteLength(payload);
    }
    const signal = new AttemptSignal();
    const limit = o.deadline.ms;
    const ceiling = o.deadline.ceilingMs;
    // A list poured into its sink grows with the data (440,000 org-months are 120 MB), so its
    // attempt is not held to the deadline of pages: each time the deadline passes while the body
    // is still pouring at MIN_POUR_BYTES_PER_SECOND or more, it is granted again, up to
    // api.requestDeadlineMs from the start; a body trickled slower ends at the first one.
    let pouring = false;
    let poured = 0;
    let windowBytes = 0;
    let windowStart = started;
    // The deadline granted so far, as the error reports it (never the timer's own lateness).
    let granted = limit;
    const expire = () => {
      const now = performance.now();
      const elapsed = now - started;
      const rate = ((poured - windowBytes) * 1000) / Math.max(1, now - windowStart);
      if (pouring && rate >= MIN_POUR_BYTES_PER_SECOND && elapsed < ceiling) {
        const more = Math.min(limit, ceiling - elapsed);
        granted = Math.min(ceiling, Math.round(elapsed + more));
        windowBytes = poured;
        windowStart = now;
        timer = setTimeout(expire, more);
        return;
      }
      signal.abort(undefined);
    };
    let timer = setTimeout(expire, limit);
    // The caller's signal (a failed sibling partition, SIGINT) and the total deadline both end it.
    const caller = req.signal;
    const onCaller = () => signal.abort(caller?.reason);
    if (caller?.aborted === true) onCaller();
    else if (caller !== undefined) {
      // Each attempt in flight listens to it: up to api.maxConcurrency of them, not a leak.
      setMaxListeners(0, caller);
      caller.addEventListener('abort', onCaller, { once: true });
    }
    const done = () => {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCaller);
    };
    const fail = (err: unknown): never => {
      if (caller?.aborted === true) throw caller.reason;
      if (signal.aborted) throw new DeadlineError(granted);
      throw err;
    };
    try {
      const res = await o.pool.request({
        method: req.method,
        path: `${o.basePath}${req.path}`,
        headers,
        body: payload ?? null,
        headersTimeout: o.timeoutMs,
        bodyTimeout: o.timeoutMs,
        signal,
      });
      // A list poured into its sink (list-stream.ts) is timed to its head: the consumer's work
      // on each page is no latency of the service.
      const sink = res.statusCode >= 200 && res.statusCode < 300 ? req.sink : undefined;
      const text = sink !== undefined ? '' : await bounded(res, call);
      const ms = Math.round(performance.now() - started);
      o.deadline.observe(ms);
      const status = res.statusCode;
      pouring = sink !== undefined;
      return {
        status,
        headers: res.headers,
        text,
        ms,
        retryAfterMs: parseRetryAfter(res.headers['retry-after']),
        throttling: status !== 429 && status >= 400 && throttlingAnswer(text),
        pour:
          sink === undefined
            ? undefined
            : () =>
                pour(res, sink, (n) => {
                  poured += n;
                }).then(done, (err: unknown) => {
                  done();
                  return fail(err);
                }),
      };
    } catch (err) {
      return fail(err);
    } finally {
      if (!pouring) done();
    }
  };
}

/**
 * An attempt's abort signal in the EventEmitter form undici's request accepts (`aborted`,
 * `reason`, an 'abort' event): an AbortController per attempt, and AbortSignal.any to join the
 * caller's signal, cost several times more on Node 20, on every request of a sync.
 */
class AttemptSignal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * The body, chunk by chunk, into `sink`: no byte cap (memory is the sink's page), the request
 * deadline and the body timeout still end an endless or stalled body.
 */
async function pour(
  res: Dispatcher.ResponseData,
  sink: BodySink,
  count: (bytes: number) => void,
): Promise<void> {
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    count(chunk.length);
    await sink.write(chunk);
  }
  await sink.end();
}

/**
 * The body as text, at most `max` bytes: an endless or huge body is cut off (and the connection
 * dropped) as a protocol error instead of growing the process without bound.
 */
async function readBounded(res: Dispatcher.ResponseData, call: Call, max: number): Promise<string> {
  const tooLarge = (what: string) => {
    res.body.destroy();
    return new ProtocolError(`response body ${what} maxResponseBytes (${max} bytes); cut off`, {
      method: call.req.method,
      path: call.req.path,
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
