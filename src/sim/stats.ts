import { type FaultKind, faultKinds } from './options.js';
import { freshQueueStats, type QueueStats } from './queue.js';

/** What the sandbox counted since it started or its stats were last reset (`GET __sim/stats`). */
export interface SimStats {
  /** Service requests received (hooks excluded). */
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
  rateLimited: number;
  /** Service requests by epoch second received, and those of them answered 429. */
  bySecond: Record<string, number>;
  rateLimitedBySecond: Record<string, number>;
  /** Late writes (504 now, carried out later) and slow writes (carried out, answered late). */
  lateWrites: number;
  slowWrites: number;
  /** Writes that changed the data, by operation (a write whose reply was lost counts too). */
  writesApplied: Record<string, number>;
  mutations: number;
  /** The server queue (`workers`, `serviceMs`): peak depth, busy and waiting time. */
  queue: QueueStats;
  /** Service requests in progress at once: the most, and the time-weighted mean while any were. */
  inFlight: InFlightStats;
  /** The last (up to 10) exceptions the sandbox itself threw while answering (its own 500s). */
  internalErrors: string[];
}

/** One service request as the sandbox answered it (`onRequest`, for logs). */
export interface RequestInfo {
  method: string;
  path: string;
  status: number;
  ms: number;
  fault?: FaultKind;
}

/** Requests in progress, counted as each starts and ends. */
export interface InFlightStats {
  now: number;
  peak: number;
  /** Requests times ms, and the ms with at least one in progress: their ratio is the mean. */
  requestMs: number;
  busyMs: number;
  mean: number;
  /** When `now` last changed (epoch ms). */
  at: number;
}

/** One request more (+1) or fewer (-1) in progress. */
export function countInFlight(s: InFlightStats, delta: 1 | -1): void {
  const now = Date.now();
  if (s.now > 0) {
    s.requestMs += s.now * (now - s.at);
    s.busyMs += now - s.at;
  }
  s.at = now;
  s.now += delta;
  s.peak = Math.max(s.peak, s.now);
  s.mean = s.busyMs > 0 ? Math.round((s.requestMs / s.busyMs) * 10) / 10 : 0;
}

export function freshStats(): SimStats {
  return {
    requests: 0,
    byOperation: {},
    byStatus: {},
    faults: Object.fromEntries(faultKinds.map((k) => [k, 0])) as Record<FaultKind, number>,
    rateLimited: 0,
    bySecond: {},
    rateLimitedBySecond: {},
    lateWrites: 0,
    slowWrites: 0,
    writesApplied: {},
    mutations: 0,
    queue: freshQueueStats(),
    inFlight: { now: 0, peak: 0, requestMs: 0, busyMs: 0, mean: 0, at: 0 },
    internalErrors: [],
  };
}

export function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}
