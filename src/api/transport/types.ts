import type { BodySink } from '../list-stream.js';
import type { Headers } from '../rate/headers.js';

/**
 * Requests and retries of one unit of work (a sync stream, say), counted for the requests that
 * carry it (`SendOptions.counter`: a scoped client's, OhsClient.scoped), though all units share
 * one client and its rate limit.
 */
export interface RequestCounter {
  requests: number;
  retries: number;
}

/** One request as the caller asks for it (`Transport.send`). */
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
  /** Counts this request and its retries for the unit of work that sent it. */
  counter?: RequestCounter | undefined;
  /**
   * A whole answer whose body is not JSON ends the request at once (a ProtocolError holding the
   * body's start), where it is otherwise retried as a fault: the service check asks so, since
   * another web server answers every attempt with its page.
   */
  notJsonIsFinal?: boolean | undefined;
}

export interface Reply {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/** One attempt of a request, as every layer sees it. */
export interface Call {
  req: SendOptions;
  /** The body as sent (JSON), serialised once for all attempts. */
  payload: string | undefined;
  /** 1 for the first attempt. */
  attempt: number;
  /** When the attempt left (on the limiter's clock), set by the rate layer as it sends. */
  sentAt: number;
}

/** What one attempt got back: the head, and the body read whole (bounded) or still to pour. */
export interface Answer {
  status: number;
  headers: Headers;
  /** The body read whole; '' when it is streamed into the request's sink. */
  text: string;
  /** Sending to the head (streamed) or to the body's last byte, milliseconds. */
  ms: number;
  /** The answer's own Retry-After, milliseconds. */
  retryAfterMs: number | undefined;
  /** A throttling answer under another status than 429 (its body says so). */
  throttling: boolean;
  /** A streamed body still to pour into the sink, within the attempt's deadline. */
  pour: (() => Promise<void>) | undefined;
}

/**
 * Why an attempt ended as it did (classify.ts); the retry table (retry.ts) decides from it and
 * from whether the request is idempotent.
 */
export type Reason =
  /** Status below 400 (the body not yet decoded). */
  | 'ok'
  /** 429: nothing was done; its Retry-After holds the whole client (the limiter). */
  | 'throttled'
  /** Another 4xx whose body says it throttles: nothing was done; its own Retry-After. */
  | 'throttling_answer'
  /** 5xx: the request may have been carried out. */
  | 'server_error'
  /** The connection was never made (refused, unknown host): nothing was sent. */
  | 'not_sent'
  /** A dropped connection after sending: the outcome is unknown. */
  | 'network'
  /** No head or no body within the idle timeouts. */
  | 'timeout'
  /** The attempt outlived its total deadline (deadline.ts). */
  | 'deadline'
  /** A body cut short of its announced length. */
  | 'truncated'
  /** A success whose body is no JSON. */
  | 'unreadable'
  /** A success holding an integer beyond 2^53, which JSON would round. */
  | 'unsafe_integer'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  /** Another 4xx: the service refused the request as it is. */
  | 'rejected';

/** An attempt, classified: an answer's status or a fault's error code, and why it ended. */
export interface Outcome {
  reason: Reason;
  /** The answer, if one came. */
  answer: Answer | undefined;
  /** A fault's error code (`ECONNRESET`, `UND_ERR_BODY_TIMEOUT`, ...). */
  code: string | undefined;
  /** The fault itself. */
  cause: unknown;
  /** Milliseconds the attempt took. */
  ms: number;
  /** A streamed body still to pour (inside the rate layer's slot): pours it, gives the final outcome. */
  rest: (() => Promise<Outcome>) | undefined;
}

/** One layer's view of what is inside it: a call in, a promise of its result out. */
export type Dispatch<T> = (call: Call) => Promise<T>;

/** Method and path without ids or query: requests of one kind, whose latencies compare. */
export function requestKind(req: SendOptions): string {
  return `${req.method} ${req.path.replace(/\?.*$/, '').replace(/\/[^/]*\d[^/]*/g, '/{id}')}`;
}

/** Retry-After as seconds or an HTTP date, in milliseconds; undefined if absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
