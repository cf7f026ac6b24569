import { DEADLINE_ATTEMPTS } from '../deadline.js';
import { UnauthorizedError } from '../errors.js';
import type { ApiMetrics, RetryReason } from '../metrics.js';
import { type Circuit, decodeBody } from './classify.js';
import { failure } from './failure.js';
import type { Call, Dispatch, Outcome, Reason, Reply, SendOptions } from './types.js';

export type { RequestCounter } from './types.js';

/**
 * What is done with an attempt that ended for a reason: return its answer, send it again, throw
 * an OutcomeUnknownError (a write that may have been carried out is never resent blindly), throw
 * the reason's error, or `gone` (a 404 after an attempt that may have deleted: done, when the
 * request says so; otherwise thrown).
 */
export type Decision = 'return' | 'retry' | 'unknown' | 'throw' | 'gone';
/** The retry budgets (api.maxRetries, api.maxRateLimitRetries, deadline.ts DEADLINE_ATTEMPTS). */
export type Budget = 'faults' | 'throttles' | 'deadlines';
/**
 * How long a retry waits: not at all (a 429's Retry-After holds the whole client in the
 * limiter), its own Retry-After, the backoff, or the longer of the backoff and its Retry-After.
 */
export type Wait = 'none' | 'retry_after' | 'backoff' | 'backoff_or_retry_after';

export interface Rule {
  idempotent: Decision;
  /** A request not safe to repeat (a create). */
  other: Decision;
  /** Budgets a retry spends, each checked before any is spent; the first spent one is thrown. */
  budgets: readonly Budget[];
  wait: Wait;
  /** Whether the attempt may have been carried out (then a later 404 of a DELETE means done). */
  mayHaveApplied: boolean;
  /** The retry counted under this reason in the metrics. */
  metric: RetryReason | undefined;
}

const end = (d: Decision): Rule => ({
  idempotent: d,
  other: d,
  budgets: [],
  wait: 'none',
  mayHaveApplied: false,
  metric: undefined,
});
const fault = (metric: RetryReason, budgets: readonly Budget[] = ['faults']): Rule => ({
  idempotent: 'retry',
  other: 'unknown',
  budgets,
  wait: 'backoff',
  mayHaveApplied: true,
  metric,
});

/** The one retry table: reason × idempotent → decision, and what a retry spends and waits. */
export const RETRY_TABLE: Readonly<Record<Reason, Rule>> = {
  ok: end('return'),
  throttled: { ...end('retry'), budgets: ['throttles'], metric: 'rate_limited' },
  throttling_answer: { ...end('retry'), budgets: ['throttles'], wait: 'retry_after', metric: 'rate_limited' },
  server_error: { ...fault('server_error'), wait: 'backoff_or_retry_after' },
  not_sent: { ...fault('network'), other: 'retry', mayHaveApplied: false },
  network: fault('network'),
  timeout: fault('timeout'),
  deadline: fault('timeout', ['deadlines', 'faults']),
  truncated: fault('truncated'),
  unreadable: { ...fault('unreadable'), mayHaveApplied: false },
  unsafe_integer: end('throw'),
  unauthorized: end('throw'),
  forbidden: end('throw'),
  not_found: end('gone'),
  rejected: end('throw'),
};

/** The table's decision for one attempt. */
export function decide(reason: Reason, idempotent: boolean): Decision {
  const rule = RETRY_TABLE[reason];
  return idempotent ? rule.idempotent : rule.other;
}

export interface RetryOptions {
  /** Retries after the first attempt of faults (5xx, network, timeouts, unreadable bodies). */
  maxRetries: number;
  /** Retries of throttles (429s and throttling answers), which never did anything. */
  maxRateLimitRetries: number;
  /** First backoff, doubled each retry, with jitter, milliseconds. */
  retryBaseMs: number;
  /** Longest backoff and longest Retry-After honoured for one request, milliseconds. */
  retryMaxMs: number;
  metrics: ApiMetrics;
  circuit: Circuit;
  /** Waits before a retry (setTimeout; a test passes its own). */
  sleep: (ms: number) => Promise<void>;
  /** A number in [0, 1) for the backoff's jitter (Math.random; a test passes a seeded one). */
  random: () => number;
}

interface RetryState {
  spent: Record<Budget, number>;
  /** An earlier attempt may have been carried out (its reply was lost or was a 5xx). */
  maybeApplied: boolean;
}

/**
 * The outermost layer: sends a request through `inner` until the table says to stop, spending
 * budgets and waiting as each rule says (undici's RetryHandler does this around one dispatch).
 */
export function retryLayer(inner: Dispatch<Outcome>, o: RetryOptions): (req: SendOptions) => Promise<Reply> {
  const limits: Record<Budget, number> = {
    faults: o.maxRetries,
    throttles: o.maxRateLimitRetries,
    deadlines: DEADLINE_ATTEMPTS - 1,
  };
  return async (req) => {
    const s: RetryState = { spent: { faults: 0, throttles: 0, deadlines: 0 }, maybeApplied: false };
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    for (;;) {
      o.circuit.check();
      req.signal?.throwIfAborted();
      const call: Call = {
        req,
        payload,
        attempt: s.spent.faults + s.spent.throttles + 1,
        sentAt: Date.now(),
      };
      const counter = req.counter;
      if (counter !== undefined) {
        counter.requests++;
        if (call.attempt > 1) counter.retries++;
      }
      req.sink?.reset();
      let outcome = await inner(call);
      if (outcome.reason === 'ok' && outcome.answer !== undefined) {
        const decoded = decodeBody(outcome.answer.text);
        if (decoded.reason === 'ok') return { status: outcome.answer.status, body: decoded.value };
        outcome = { ...outcome, reason: decoded.reason };
      }
      const wait = settle(outcome, call, s, limits, o);
      if (typeof wait === 'object') return wait;
      if (wait > 0) await o.sleep(wait);
    }
  };
}

/**
 * One attempt's end by the table: the reply of a DELETE already done, the wait before the next
 * attempt (0: none), or the request's error thrown.
 */
function settle(
  outcome: Outcome,
  call: Call,
  s: RetryState,
  limits: Record<Budget, number>,
  o: RetryOptions,
): number | Reply {
  const rule = RETRY_TABLE[outcome.reason];
  if (rule.metric === 'rate_limited') o.metrics.rateLimitPauses++;
  const decision =
    outcome.reason === 'unreadable' && call.req.notJsonIsFinal === true
      ? 'throw'
      : decide(outcome.reason, call.req.idempotent);
  if (decision === 'gone' && s.maybeApplied && call.req.goneMeansDone === true)
    return { status: 404, body: undefined };
  if (decision === 'unknown') throw failure(outcome, call, 'unknown');
  if (decision !== 'retry') {
    const err = failure(outcome, call, 'throw');
    if (err instanceof UnauthorizedError) o.circuit.unauthorized(err);
    throw err;
  }
  const spent = rule.budgets.find((b) => s.spent[b] >= limits[b]);
  if (spent !== undefined) throw failure(outcome, call, spent);
  for (const b of rule.budgets) s.spent[b]++;
  if (rule.mayHaveApplied) s.maybeApplied = true;
  if (rule.metric !== undefined) o.metrics.retry(rule.metric);
  const retryAfter = Math.min(o.retryMaxMs, outcome.answer?.retryAfterMs ?? 0);
  if (rule.wait === 'retry_after') return retryAfter;
  if (rule.wait === 'none') return 0;
  const ceiling = Math.min(o.retryMaxMs, o.retryBaseMs * 2 ** (s.spent.faults - 1));
  // Exponential backoff with "equal jitter": half fixed, half random, capped.
  const backoff = ceiling / 2 + o.random() * (ceiling / 2);
  return rule.wait === 'backoff' ? backoff : Math.max(backoff, retryAfter);
}
