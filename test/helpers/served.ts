import type { ConcurrencyLimit } from '../../src/api/rate/concurrency.js';

/**
 * A server on a simulated clock, for the concurrency limit (a pure state machine) to be driven
 * through: `answer(sentAt, connection)` is when a request sent then on that connection is
 * answered. Requests are handed to it in the order they are sent.
 */
export interface Served {
  answer(sentAt: number, connection: number): number;
}

/** Every request answered after `ms(now)`, however many are in flight (a timer: no queue). */
export const timer = (ms: (now: number) => number): Served => ({ answer: (at) => at + ms(at) });

/** Answers alternating per connection through `cycle` (ms), no queue: the delayed-acknowledgement pattern. */
export function alternating(cycle: number[]): Served {
  const turn = new Map<number, number>();
  return {
    answer: (at, c) => {
      const i = turn.get(c) ?? c;
      turn.set(c, i + 1);
      return at + (cycle[i % cycle.length] ?? 0);
    },
  };
}

/** `workers` served at a time, `serviceMs(now)` each, the rest waiting in order; `networkMs` each way and back. */
export function fifo(workers: number, serviceMs: (now: number) => number, networkMs = 1): Served {
  const free = new Array<number>(workers).fill(0);
  return {
    answer: (at) => {
      const arrives = at + networkMs / 2;
      let w = 0;
      for (let i = 1; i < free.length; i++) if ((free[i] ?? 0) < (free[w] ?? 0)) w = i;
      const done = Math.max(arrives, free[w] ?? 0) + serviceMs(arrives);
      free[w] = done;
      return done + networkMs / 2;
    },
  };
}

export interface Trace {
  /** The limit after each ms of `at` (the times asked for). */
  limits: number[];
  /** Answers over the whole run, and the mean in flight (time-weighted). */
  answers: number;
  meanInFlight: number;
}

/**
 * `limit` driven by answers of `served` for `ms` of simulated time, `demand` requests wanting to
 * be in flight (a sync's streams: always more than the limit, unless less is asked); the limit is
 * read at each of `at`.
 */
export function drive(
  limit: ConcurrencyLimit,
  served: Served,
  ms: number,
  at: number[] = [],
  demand = 64,
): Trace {
  const flying: { done: number; sent: number; connection: number }[] = [];
  const idle: number[] = [];
  let connections = 0;
  let now = 0;
  let answers = 0;
  let area = 0;
  const limits: number[] = [];
  const marks = [...at].sort((a, b) => a - b);
  const fill = () => {
    while (flying.length < Math.min(limit.limit, demand)) {
      const connection = idle.pop() ?? connections++;
      flying.push({ done: served.answer(now, connection), sent: now, connection });
    }
    flying.sort((a, b) => a.done - b.done);
  };
  fill();
  while (now < ms) {
    const next = flying.shift();
    if (next === undefined) break;
    area += (flying.length + 1) * (next.done - now);
    now = next.done;
    while (marks.length > 0 && (marks[0] ?? 0) <= now) {
      marks.shift();
      limits.push(limit.limit);
    }
    answers++;
    limit.add('get', next.done - next.sent, flying.length + 1, now);
    idle.push(next.connection);
    fill();
  }
  for (const _ of marks) limits.push(limit.limit);
  return { limits, answers, meanInFlight: area / Math.max(1, now) };
}
