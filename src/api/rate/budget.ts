import { createHash } from 'node:crypto';
import type { CubicState } from './cubic.js';

/**
 * One rate budget shared by every process that talks to the same service with the same token
 * (the nightly job, an ad hoc sync, `ohs apply`, `ohs probe`): a token bucket and the controller's
 * state, kept where all of them can reach it. The API layer only knows this interface; the mirror
 * implements it (src/mirror/rate-budget.ts), so the client never touches the database.
 */
export interface SharedRate extends CubicState {
  /** The last rate that ran clean (no cut) for a while, to start the next process at. */
  goodRate: number | undefined;
  /** When any process last wrote the row (epoch ms). */
  updatedAt: number;
  /**
   * Bumped by every lease and cut of any process: a process that sees it move by more than its
   * own writes is not alone on the budget.
   */
  version: number;
}

export interface LeaseRequest {
  /** Requests wanted (a batch, so that a process writes a few times a second, not per request). */
  want: number;
  /** The caller's controller state: it becomes the shared one unless another process cut since. */
  state: CubicState;
  /** The `cutAt` the caller last saw in the row (0 at first). */
  seenCutAt: number;
  /** How far the shared schedule may lag behind now (an idle budget's burst), ms. */
  burstMs: number;
  now: number;
}

export interface LeaseResult {
  /** Requests granted: always `want` (a reservation, never a refusal). */
  granted: number;
  /** Milliseconds to wait before the first of them (other processes reserved the time before). */
  waitMs: number;
  /** The shared state after the lease (another process's newer cut, if there was one). */
  shared: SharedRate;
}

export interface RateBudgetStore {
  /** The shared state for `key`, or undefined when no process has written it yet. */
  load(key: string): Promise<SharedRate | undefined>;
  /**
   * Reserves `want` requests on the shared schedule (GCRA, the virtual-time form of a token
   * bucket: the row holds the time at which the schedule is next free, advanced by `want / rate`
   * per lease), and stores the caller's state, all in one atomic (conditional) update.
   */
  lease(key: string, request: LeaseRequest): Promise<LeaseResult>;
  /** Records a cut, unless another process recorded a newer one; returns the state in force. */
  cut(key: string, state: CubicState): Promise<SharedRate>;
  /** Records a rate that ran clean, for the next process to start at. */
  saveGood(key: string, rate: number, now: number): Promise<void>;
}

/**
 * The key of a budget: the service's base URL and a hash of the token (two tokens may have two
 * limits). Never the token itself, and never this hash either: the mirror's store keys its rows
 * by an HMAC of it with a random secret of the mirror (src/mirror/rate-budget.ts).
 */
export function budgetKey(baseUrl: string, token: string): string {
  let url = baseUrl;
  try {
    const u = new URL(baseUrl);
    url = `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    // keep as given: the transport has already rejected an invalid URL
  }
  const hash = createHash('sha256').update(token).digest('hex');
  return `${url}#${hash}`;
}
