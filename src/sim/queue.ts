/**
 * The sandbox's server queue: `workers` requests are served at a time, each holding a worker for
 * its service time, and the rest wait their turn in arrival order (FIFO). So, as with a real
 * server, latency grows with what is in flight, while network latency (`latencyMs`) does not.
 */

/** Records in a page that take one `serviceMs`; a bigger page holds its worker proportionally longer. */
export const SERVICE_PAGE_RECORDS = 100;

/** What the queue did, reported in the sandbox's stats (`stats.queue`). */
export interface QueueStats {
  /** Requests that held a worker. */
  served: number;
  /** Most requests waiting for a worker at once (those being served not counted). */
  peakDepth: number;
  /** Most requests holding a worker at once. */
  peakBusy: number;
  /** Worker time spent serving, ms, summed over workers. */
  busyMs: number;
  /** Time requests spent waiting for a worker, ms, summed over requests. */
  waitMs: number;
}

export function freshQueueStats(): QueueStats {
  return { served: 0, peakDepth: 0, peakBusy: 0, busyMs: 0, waitMs: 0 };
}

/**
 * The service time of an answer of `records` records: `serviceMs` for up to a default page
 * (`SERVICE_PAGE_RECORDS`), proportionally longer for a bigger one.
 */
export function serviceTime(serviceMs: number, records: number): number {
  if (serviceMs <= 0) return 0;
  return Math.round(serviceMs * Math.max(1, records / SERVICE_PAGE_RECORDS));
}

/** A held worker: `release` once, when the request's service is over. */
export interface Worker {
  release(): void;
}

/**
 * The FIFO queue in front of the workers. `workers()` is read at each arrival and release, so the
 * number may change while the sandbox runs; 0 means no queue (every request is served at once).
 */
export class WorkerQueue {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly workers: () => number,
    private readonly stats: () => QueueStats,
  ) {}

  /** Waits for a free worker (at once when one is free or there is no queue) and holds it. */
  async acquire(): Promise<Worker> {
    const arrived = Date.now();
    if (this.workers() > 0 && (this.busy >= this.workers() || this.waiting.length > 0)) {
      const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
      const stats = this.stats();
      stats.peakDepth = Math.max(stats.peakDepth, this.waiting.length);
      await turn;
    } else this.busy++;
    const started = Date.now();
    const stats = this.stats();
    stats.served++;
    stats.waitMs += started - arrived;
    stats.peakBusy = Math.max(stats.peakBusy, this.busy);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.stats().busyMs += Date.now() - started;
        this.busy--;
        this.next();
      },
    };
  }

  /**
   * Hands free workers to the longest waiting requests (each handed one counts as busy at once);
   * also called when the number of workers changes while running.
   */
  next(): void {
    const limit = this.workers();
    while (this.waiting.length > 0 && (limit <= 0 || this.busy < limit)) {
      this.busy++;
      this.waiting.shift()?.();
    }
  }

  /** Frees every waiting request (the sandbox is closing). */
  drain(): void {
    while (this.waiting.length > 0) {
      this.busy++;
      this.waiting.shift()?.();
    }
  }
}
