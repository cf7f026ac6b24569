import type PQueue from 'p-queue';
import { ClientLag, type ConcurrencyLimit, type RateLimiter } from '../rate/index.js';
import type { Circuit } from './classify.js';
import { type Answer, type Dispatch, type Outcome, requestKind } from './types.js';

export interface RateLayerOptions {
  /** The one rate controller: 429s, Retry-After, latency and RateLimit headers all go to it. */
  limiter: RateLimiter;
  /** Requests in flight, following latency (per process; the rate is shared). */
  inFlight: ConcurrencyLimit;
  /** The slots: its concurrency follows `inFlight`'s limit. */
  queue: PQueue;
  circuit: Circuit;
}

/**
 * The rate layer: an attempt takes a slot of the queue (concurrency), then a token of the
 * limiter (rate), and leaves only if the client has not stopped meanwhile. Each answer's head
 * is shown to the limiter (throttles, Retry-After, RateLimit headers, latency) and a clean one's
 * latency to the concurrency limit, before a streamed body is poured (still in the slot); each
 * fault's error code to the limiter, after.
 */
export function rateLayer(inner: Dispatch<Outcome>, o: RateLayerOptions): Dispatch<Outcome> {
  const observe = (kind: string, a: Answer, sentAt: number) => {
    o.limiter.observe(kind, a.status, a.ms, a.headers, sentAt, a.retryAfterMs, a.throttling);
    if (a.status >= 500 || a.status === 429 || a.throttling) return;
    const now = Date.now();
    if (o.inFlight.add(kind, a.ms, ClientLag.get().ms(now), o.queue.pending, now))
      o.queue.concurrency = o.inFlight.limit;
  };
  return async (call) => {
    const kind = requestKind(call.req);
    // Latency is measured from the moment the request leaves the queue, not from enqueueing.
    let started = performance.now();
    const outcome = await o.queue.add(async (): Promise<Outcome> => {
      await o.limiter.acquire();
      started = performance.now();
      // Queued before the client learnt it must stop (401, no service): not sent at all.
      o.circuit.check();
      call.sentAt = Date.now();
      const head = await inner(call);
      if (head.answer !== undefined) observe(kind, head.answer, call.sentAt);
      return head.rest === undefined ? head : head.rest();
    });
    if (outcome.answer !== undefined) return outcome;
    const ms = Math.round(performance.now() - started);
    o.limiter.observe(kind, outcome.code ?? 'UNKNOWN', ms, {}, call.sentAt);
    outcome.ms = ms;
    return outcome;
  };
}
