import { maskText, type TextMasking } from '../../util/mask.js';
import { describeRefusal, refusalOf } from '../../util/refusal.js';
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
  // The service's text is withheld: the error keeps its status, its code and the request's field
  // names it mentions (src/util/refusal.ts); the text itself, masked, only for a terminal's view.
  const masking: TextMasking = { carried: call.req.body, shapes: true };
  const serviceText = () => maskText(text.slice(0, 64 * 1024), masking);
  const answered = { ...where, status, serviceText };
  if (o.reason === 'throttled' || o.reason === 'throttling_answer') return new RateLimitedError(answered);
  if (o.reason === 'unreadable') {
    if (kind === 'unknown') return new OutcomeUnknownError('success with an unreadable body', answered);
    return new ProtocolError(`unreadable response body (${text.length} bytes)`, answered);
  }
  if (o.reason === 'unsafe_integer') {
    return new ProtocolError(unsafeIntegerProblem(unsafeInteger(text) ?? 'a number'), answered);
  }
  const parsed = parseJson(text);
  const refusal = refusalOf(status, text, parsed.ok ? parsed.value : undefined, call.req.body);
  const kept = { ...answered, detail: refusal };
  if (o.reason === 'server_error') {
    if (kind === 'unknown') return new OutcomeUnknownError(`status ${status}`, kept);
    return new ServerError(kept);
  }
  if (o.reason === 'unauthorized') return new UnauthorizedError(kept);
  if (o.reason === 'forbidden') return new ForbiddenError(kept);
  if (o.reason === 'not_found') return new NotFoundError(kept);
  return new InvalidRequestError(`refused: ${describeRefusal(refusal)}`, kept);
}
