import type PQueue from 'p-queue';
import type { Clock, ConcurrencyLimit, RateLimiter } from '../rate/index.js';
import type { Circuit } from './classify.js';
import { type Answer, type Dispatch, type Outcome, requestKind } from './types.js';

export interface RateLayerOptions {
  /** The rate: only throttles (429s, throttling answers, a burst of 503s, RateLimit headers) move it. */
  limiter: RateLimiter;
  /** Requests in flight, following the answers a second they bring (per process; the rate is shared). */
  inFlight: ConcurrencyLimit;
  /** The slots: its concurrency follows `inFlight`'s limit. */
  queue: PQueue;
  circuit: Circuit;
  /** The limiter's clock: when an attempt left, and the concurrency limit's windows. */
  clock: Clock;
}

/**
 * The rate layer: an attempt takes a slot of the queue (concurrency), then a token of the
 * limiter (rate), and leaves only if the client has not stopped meanwhile. Each answer's head is
 * shown to the limiter (throttles, Retry-After, RateLimit headers) and a clean one's latency to
 * the concurrency limit, before a streamed body is poured (still in the slot); each fault's error
 * code to the limiter, after. One signal, one controller: the answers a second that more in
 * flight brings set how many are in flight, throttling the rate.
 */
export function rateLayer(inner: Dispatch<Outcome>, o: RateLayerOptions): Dispatch<Outcome> {
  const observe = (kind: string, a: Answer, sentAt: number) => {
    const seen = o.limiter.observe({
      status: a.status,
      headers: a.headers,
      sentAt,
      retryAfterMs: a.retryAfterMs,
      throttling: a.throttling,
    });
    if (seen.signal !== 'clean') return;
    const now = o.clock.now();
    if (o.inFlight.add(kind, a.ms, o.queue.pending, now)) o.queue.concurrency = o.inFlight.limit;
  };
  return async (call) => {
    const kind = requestKind(call.req);
    // An attempt is timed from the moment it leaves the queue, not from enqueueing.
    let started = performance.now();
    const outcome = await o.queue.add(async (): Promise<Outcome> => {
      // A loaded client handles the answers that came while it waited in one batch: a slot freed
      // by one of them would send at once, before a 429 later in the same batch is seen and holds
      // the client, to a service whose bucket is already empty. Those answers are handled first.
      await o.clock.drain?.();
      await o.limiter.acquire();
      started = performance.now();
      // Queued before the client learnt it must stop (401, no service): not sent at all.
      o.circuit.check();
      call.sentAt = o.clock.now();
      const head = await inner(call);
      if (head.answer !== undefined) observe(kind, head.answer, call.sentAt);
      return head.rest === undefined ? head : head.rest();
    });
    if (outcome.answer !== undefined) return outcome;
    o.limiter.observe({ status: outcome.code ?? 'UNKNOWN', sentAt: call.sentAt });
    outcome.ms = Math.round(performance.now() - started);
    return outcome;
  };
}
