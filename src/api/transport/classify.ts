import { DEADLINE_CODE } from '../deadline.js';
import { ProtocolError, type UnauthorizedError, UnreachableError } from '../errors.js';
import { parseJsonKeepingHugeNumbers } from '../json-numbers.js';
import { NotAListError, SinkConsumerError } from '../list-stream.js';
import { hasUnsafeInteger } from '../validate-record.js';
import type { Answer, Call, Dispatch, Outcome, Reason } from './types.js';

/** Network error codes meaning the request never left: a resend cannot double anything. */
const notSentCodes = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);
const timeoutCodes = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** Before any answer came, these mean there is no service at the base URL: fail fast. */
const unreachableCodes: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'unknown host',
};

/**
 * What stops the whole client rather than one request: a 401 (the token will not heal), or no
 * service at the base URL before it ever answered. Every later attempt fails at once with it.
 */
export class Circuit {
  fatal: UnauthorizedError | UnreachableError | undefined;
  /** Whether the service has answered at all (then a refused connection is worth retrying). */
  reached = false;

  constructor(private readonly baseUrl: string) {}

  /** Throws the error that stopped the client, if one did. */
  check(): void {
    if (this.fatal !== undefined) throw this.fatal;
  }

  /** A 401: the client stops. */
  unauthorized(err: UnauthorizedError): never {
    this.fatal = err;
    throw err;
  }

  /**
   * Connection refused or an unknown host before the service ever answered: the base URL is
   * wrong or the service is down, and retrying hundreds of requests for it only delays the
   * news. The whole client stops with one error naming the host tried.
   */
  fault(code: string, call: Call, err: unknown): void {
    this.check();
    const why = unreachableCodes[code];
    if (why === undefined || this.reached) return;
    const url = new URL(this.baseUrl);
    this.fatal = new UnreachableError(`${url.protocol}//${url.host}`, why, {
      method: call.req.method,
      path: call.req.path,
      attempts: call.attempt,
      cause: err,
    });
    throw this.fatal;
  }
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

/** An answer's reason, from its head (and, for a throttling 4xx, its body's first bytes). */
export function answerReason(a: Answer): Reason {
  const s = a.status;
  if (s === 429) return 'throttled';
  if (s >= 400 && s < 500 && a.throttling) return 'throttling_answer';
  if (s >= 500) return 'server_error';
  if (s === 401) return 'unauthorized';
  if (s === 403) return 'forbidden';
  if (s === 404) return 'not_found';
  if (s >= 400) return 'rejected';
  return 'ok';
}

/** A fault's reason from its error code. */
export function faultReason(code: string): Reason {
  if (notSentCodes.has(code)) return 'not_sent';
  if (code === DEADLINE_CODE) return 'deadline';
  if (timeoutCodes.has(code)) return 'timeout';
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return 'truncated';
  return 'network';
}

export function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return 'UNKNOWN';
}

/**
 * A thrown error as a fault outcome, or thrown on when no retry could help: the caller gave
 * up (its abort reason), a response over its bound, the sink's consumer failed (its own error),
 * a list that is none, or the client stopped (Circuit).
 */
export function classifyError(err: unknown, call: Call, circuit: Circuit): Outcome {
  const { req } = call;
  if (req.signal?.aborted === true) throw req.signal.reason;
  if (err instanceof ProtocolError || err === circuit.fatal) throw err;
  if (err instanceof SinkConsumerError) throw err.inner;
  if (err instanceof NotAListError)
    throw new ProtocolError(err.message, { method: req.method, path: req.path, attempts: call.attempt });
  const code = errorCode(err);
  circuit.fault(code, call, err);
  return { reason: faultReason(code), answer: undefined, code, cause: err, ms: 0, rest: undefined };
}

/**
 * The classify layer: each attempt's answer or error as an Outcome. An answer is judged by its
 * head here (inside the rate layer's slot); a success's body is decoded after (`decodeBody`).
 */
export function classifyLayer(inner: Dispatch<Answer>, circuit: Circuit): Dispatch<Outcome> {
  const onAnswer = (answer: Answer, call: Call): Outcome => {
    circuit.reached = true;
    const outcome: Outcome = {
      reason: answerReason(answer),
      answer,
      code: undefined,
      cause: undefined,
      ms: answer.ms,
      rest: undefined,
    };
    const pour = answer.pour;
    if (pour !== undefined)
      outcome.rest = () =>
        pour().then(
          () => ({ ...outcome, rest: undefined }),
          (err: unknown) => classifyError(err, call, circuit),
        );
    return outcome;
  };
  // No async frame of its own: one promise per attempt less on the hot path.
  return (call) =>
    inner(call).then(
      (answer) => onAnswer(answer, call),
      (err: unknown) => classifyError(err, call, circuit),
    );
}

/** A JSON body, or `ok: false` for one that is not JSON; an empty body is undefined. */
export function parseJson(text: string): { ok: boolean; value: unknown } {
  if (text === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: parseJsonKeepingHugeNumbers(text) };
  } catch {
    return { ok: false, value: undefined };
  }
}

/**
 * A success's body, decoded outside the rate layer's slot (the next request goes out while this
 * one parses): its value, or the reason it cannot be used (`unreadable`, `unsafe_integer`).
 */
export function decodeBody(
  text: string,
): { reason: 'ok'; value: unknown } | { reason: Reason; value: undefined } {
  const detail = parseJson(text);
  if (!detail.ok) return { reason: 'unreadable', value: undefined };
  if (hasUnsafeInteger(detail.value)) return { reason: 'unsafe_integer', value: undefined };
  return { reason: 'ok', value: detail.value };
}
