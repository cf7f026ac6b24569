/**
 * Request deadlines that follow what the service is seen to need. A body trickled a
 * byte at a time never trips the idle timeouts (headers, body), so each attempt also has a total
 * deadline, sending to the last byte: max(floor, multiple × the p99 of the attempts seen), at
 * most the configured ceiling (api.requestDeadlineMs). Before MIN_SAMPLES answers the floor
 * alone counts. An attempt that hit its deadline is tried again at most once: a service that
 * trickles one answer trickles the next, and seven 5-minute attempts held a nightly run for half
 * an hour.
 */
export interface DeadlineOptions {
  /** Shortest deadline, milliseconds (api.deadlineFloorMs). */
  floorMs: number;
  /** Multiple of the p99 duration seen (api.deadlineP99Multiple). */
  p99Multiple: number;
  /** Longest deadline, milliseconds (api.requestDeadlineMs). */
  ceilingMs: number;
}

/** The error code of an attempt that outlived its deadline. */
export const DEADLINE_CODE = 'OHS_REQUEST_DEADLINE';
/** Attempts of one request that may end at their deadline before the request fails. */
export const DEADLINE_ATTEMPTS = 2;

/**
 * A streamed list still pouring at least this fast when its attempt's deadline passes is granted
 * the deadline again (up to api.requestDeadlineMs): 1 KiB/s is two or three records a second, so
 * a slower body is a stalled or trickling service, not a large answer (attempt.ts).
 */
export const MIN_POUR_BYTES_PER_SECOND = 1024;

const WINDOW = 256;
const MIN_SAMPLES = 20;

/** An attempt that outlived its deadline. */
export class DeadlineError extends Error {
  readonly code = DEADLINE_CODE;
  constructor(readonly ms: number) {
    super(`no complete answer within the request deadline of ${ms} ms`);
  }
}

export class RequestDeadline {
  /** The last answers' durations, in the order they came (a ring of WINDOW). */
  private readonly samples = new Float64Array(WINDOW);
  /** The same durations, sorted: the p99 is read off, never sorted for (2.5% of a sync's CPU). */
  private readonly sorted = new Float64Array(WINDOW);
  private count = 0;
  private next = 0;
  private cached: number | undefined;

  constructor(private readonly o: DeadlineOptions) {}

  /** The longest an attempt may take (api.requestDeadlineMs): a streamed list's bound. */
  get ceilingMs(): number {
    return this.o.ceilingMs;
  }

  /** The duration of an attempt that got its whole answer, milliseconds. */
  observe(ms: number): void {
    if (this.count === WINDOW) {
      // The oldest answer leaves the sorted window: shift the ones above it down.
      const at = bound(this.sorted, this.count, this.samples[this.next] ?? 0, false);
      this.sorted.copyWithin(at, at + 1, this.count);
      this.count--;
    }
    const at = bound(this.sorted, this.count, ms, true);
    this.sorted.copyWithin(at + 1, at, this.count);
    this.sorted[at] = ms;
    this.count++;
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % WINDOW;
    this.cached = undefined;
  }

  /** The p99 of the last answers (up to 256), undefined before MIN_SAMPLES of them. */
  p99(): number | undefined {
    if (this.count < MIN_SAMPLES) return undefined;
    return this.sorted[Math.min(this.count - 1, Math.ceil(this.count * 0.99) - 1)];
  }

  /** The deadline of the next attempt, milliseconds. */
  get ms(): number {
    if (this.cached === undefined) {
      const p99 = this.p99();
      const wanted = Math.max(this.o.floorMs, p99 === undefined ? 0 : Math.ceil(this.o.p99Multiple * p99));
      this.cached = Math.min(this.o.ceilingMs, wanted);
    }
    return this.cached;
  }
}

/** The first index of `sorted[0..n)` holding `value` (above: past the last one holding it), or where it would go. */
function bound(sorted: Float64Array, n: number, value: number, above: boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid] ?? 0;
    if (v < value || (above && v === value)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The message of a request whose every allowed attempt ended at its deadline. */
export function deadlineFailure(err: unknown, attempts: number): string {
  const ms = err instanceof DeadlineError ? err.ms : undefined;
  return `no complete answer within the request deadline${ms === undefined ? '' : ` (${ms} ms)`} on ${attempts} attempts: the service is too slow or trickling its answers (api.deadlineFloorMs, api.deadlineP99Multiple, api.requestDeadlineMs)`;
}
