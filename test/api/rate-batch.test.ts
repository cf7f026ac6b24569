import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimit, RateLimiter } from '../../src/api/index.js';
import { systemClock } from '../../src/api/rate/clock.js';
import { Circuit, classifyLayer } from '../../src/api/transport/classify.js';
import { rateLayer } from '../../src/api/transport/rate.js';
import type { Answer, Call } from '../../src/api/transport/types.js';

/**
 * A loaded client handles the answers that came while it was descheduled in one batch. Here two
 * answers are handled in the same turn of the event loop, as two socket callbacks would be: a
 * clean one, then a 429 with a Retry-After. The slot the clean one frees must not send its next
 * request before the 429 is seen (to a service whose bucket is already empty): the request
 * waits for the hold. On the system clock, since the point is the event loop's order.
 */
const BASE = 'http://127.0.0.1:9';
const get = { method: 'GET' as const, path: '/x', idempotent: true };

const answer = (status: number, retryAfterMs?: number): Answer => ({
  status,
  headers: {},
  text: '',
  ms: 1,
  retryAfterMs,
  throttling: false,
  pour: undefined,
});

describe('the rate layer, answers handled in one batch', () => {
  it('a slot freed by a clean answer waits for a 429 handled in the same turn, and its hold', async () => {
    const circuit = new Circuit(BASE);
    const inFlight = new ConcurrencyLimit({ initial: 2, min: 2, max: 2 });
    const limiter = new RateLimiter({
      requestsPerSecond: 'auto',
      baseUrl: BASE,
      token: 't',
      maxHoldMs: 2_000,
    });
    const queue = new PQueue({ concurrency: 2 });
    const sent: number[] = [];
    let refusedAt = 0;
    const pending: ((a: Answer) => void)[] = [];
    const inner = (_c: Call) =>
      new Promise<Answer>((resolve) => {
        sent.push(performance.now());
        const n = sent.length;
        if (n > 2) {
          resolve(answer(200));
          return;
        }
        pending.push(resolve);
        if (n === 2) {
          // Both answers in one turn, a callback each (microtasks run between them): clean, then 429.
          setImmediate(() => pending[0]?.(answer(200)));
          setImmediate(() => {
            refusedAt = performance.now();
            pending[1]?.(answer(429, 300));
          });
        }
      });
    const send = rateLayer(classifyLayer(inner, circuit), {
      limiter,
      inFlight,
      queue,
      circuit,
      clock: systemClock,
    });
    const call = (): Call => ({ req: get, payload: undefined, attempt: 1, sentAt: 0 });
    const outcomes = await Promise.all([send(call()), send(call()), send(call())]);
    expect(outcomes.map((o) => o.answer?.status)).toEqual([200, 429, 200]);
    expect(limiter.snapshot()).toMatchObject({ cuts: { throttled: 1 }, holds: 1 });
    // The third request left after the 429 was handled and its 300 ms hold was over.
    expect(sent[2] ?? 0).toBeGreaterThanOrEqual(refusedAt + 250);
  });
});
