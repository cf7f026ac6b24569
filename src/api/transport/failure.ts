import { maskText, maskTextDeep, type TextMasking } from '../../util/mask.js';
import { printable } from '../../util/printable.js';
import { deadlineFailure } from '../deadline.js';
import {
  type ApiError,
  ForbiddenError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  ProtocolError,
  RateLimitedError,
  ServerError,
  UnauthorizedError,
} from '../errors.js';
import { unsafeInteger, unsafeIntegerProblem } from '../validate-record.js';
import { parseJson } from './classify.js';
import type { Call, Outcome, Reason } from './types.js';

/** What a failed request is thrown as: refused outright, outcome unknown, or a budget spent. */
export type FailureKind = 'throw' | 'unknown' | 'faults' | 'throttles' | 'deadlines';

/** How a fault is named in messages and in the retry metrics. */
export function faultLabel(reason: Reason): 'timeout' | 'truncated' | 'network' {
  if (reason === 'timeout' || reason === 'deadline') return 'timeout';
  return reason === 'truncated' ? 'truncated' : 'network';
}

/** The error a request ends with, built only when it ends (an error body is parsed then). */
export function failure(o: Outcome, call: Call, kind: FailureKind): ApiError {
  const where = { method: call.req.method, path: call.req.path, attempts: call.attempt };
  if (o.answer === undefined) {
    const label = faultLabel(o.reason);
    const fault = { ...where, cause: o.cause };
    if (kind === 'unknown') return new OutcomeUnknownError(`${label}: ${o.code}`, fault);
    if (kind === 'deadlines') return new NetworkError(deadlineFailure(o.cause, call.attempt), fault);
    return new NetworkError(`${label} (${o.code}) on each of ${call.attempt} attempts`, fault);
  }
  const { status, text } = o.answer;
  const answered = { ...where, status };
  if (o.reason === 'throttled' || o.reason === 'throttling_answer') return new RateLimitedError(answered);
  if (o.reason === 'unreadable') {
    if (kind === 'unknown')
      return new OutcomeUnknownError('success with an unreadable body', {
        ...answered,
        detail: maskText(text, { carried: call.req.body, shapes: true }),
      });
    // The body's start kept, masked like any service text: the service check tells a web page by it.
    return new ProtocolError(`unreadable response body (${text.length} bytes)`, {
      ...answered,
      detail: maskText(text.slice(0, 512), { carried: call.req.body, shapes: true }),
    });
  }
  if (o.reason === 'unsafe_integer') {
    return new ProtocolError(unsafeIntegerProblem(unsafeInteger(text) ?? 'a number'), answered);
  }
  // The service's text passes the gate before anything keeps it: it may quote what it refused.
  const masking: TextMasking = { carried: call.req.body, shapes: true };
  const detail = maskTextDeep(parseJson(text).value, masking);
  if (o.reason === 'server_error') {
    if (kind === 'unknown')
      return new OutcomeUnknownError(`status ${status}`, {
        ...answered,
        detail: detail ?? maskText(text, masking),
      });
    return new ServerError({ ...answered, detail: detail ?? maskText(text, masking) });
  }
  if (o.reason === 'unauthorized') return new UnauthorizedError({ ...answered, detail });
  if (o.reason === 'forbidden') return new ForbiddenError({ ...answered, detail });
  if (o.reason === 'not_found') return new NotFoundError({ ...answered, detail });
  const msg = serviceMessage(detail) ?? `rejected (${status})`;
  return new InvalidRequestError(msg, { ...answered, detail: detail ?? maskText(text, masking) });
}

/** The message of an error body (masked already), whatever its shape (`{error:{message}}`, `{message}`, a string). */
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
