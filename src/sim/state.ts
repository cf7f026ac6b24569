import { RateMeter } from '../api/rate/meter.js';
import type { ResourceName } from '../schema/index.js';
import { Actions } from './actions.js';
import { SharedCpu } from './cpu.js';
import { makeHostile } from './hostile.js';
import { badRequest } from './http-error.js';
import { TokenBucket } from './load.js';
import { type MutationSummary, Mutator } from './mutate.js';
import { liveOptionKeys, type SimOptions, simOptionsSchema } from './options.js';
import { WorkerQueue } from './queue.js';
import { Rng } from './rng.js';
import { isoDate, seedData } from './seed.js';
import { freshStats, type RequestInfo, type SimStats } from './stats.js';
import type { SimRecord, SimStatus, SimTables } from './store.js';

/** The test hooks of `startSim` that reach into the request path. */
export interface SimRequestHooks {
  /** Called after each service request (for logs). */
  onRequest?: (info: RequestInfo) => void;
  /**
   * Test hook: a service request for which this answers true fails with 500 (every attempt),
   * e.g. one partition of a scan failing while its siblings run.
   */
  failRequest?: (req: { method: string; path: string; body: unknown }) => boolean;
  /**
   * Test hook: a service request for which this returns a promise is held (after it is counted and
   * let through the rate limit) until the promise settles, e.g. to keep one stream's pass open
   * until a test has stopped the run, whatever the machine's pace.
   */
  holdRequest?: (req: {
    method: string;
    path: string;
    operation: string;
    /** The request's body as sent (JSON text; empty for a GET). */
    body: string;
  }) => Promise<void> | undefined;
}

/** A service request kept for replay (`recordRequests`, hook `GET __sim/requests`). */
export interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

export type LiveOptions = Partial<Pick<SimOptions, (typeof liveOptionKeys)[number]>>;

/**
 * Everything a running sandbox holds: its switches (which may change while it runs), its data,
 * its counters, and the machinery the request path shares (fault generator, rate limit, load,
 * server queue, live mutation).
 */
export class SimState {
  options: SimOptions;
  stats: SimStats = freshStats();
  readonly tables: SimTables;
  readonly statuses: readonly SimStatus[];
  readonly actions: Actions;
  readonly mutator: Mutator;
  /** Faults, latency jitter and late writes are drawn from here, in request order. */
  readonly faultRng: Rng;
  readonly bucket: TokenBucket;
  /** Service requests per second, recently (`loadKnee`). */
  readonly load = new RateMeter();
  readonly queue: WorkerQueue;
  /** The cores every request in progress shares (`cpuMs`, `cpus`). */
  readonly cpu = new SharedCpu(() => this.options.cpus);
  /** With `recordRequests`: the service requests received, to replay them (bench/rate.ts). */
  recorded: RecordedRequest[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    options: SimOptions,
    readonly hooks: SimRequestHooks,
  ) {
    this.options = options;
    const anchorDate = options.anchorDate ?? isoDate(Date.now());
    const { tables, statuses } = seedData({ seed: options.seed, scale: options.scale, anchorDate });
    if (options.hostile) makeHostile(tables, options.seed);
    this.tables = tables;
    this.statuses = statuses;
    this.actions = new Actions(tables, () => this.options);
    this.mutator = new Mutator(tables, statuses, new Rng(options.seed + 1));
    this.faultRng = new Rng(options.seed + 2);
    this.bucket = new TokenBucket(() => this.options);
    this.queue = new WorkerQueue(
      () => this.options.workers,
      () => this.stats.queue,
    );
    this.schedule();
  }

  /** One step of live mutation now. */
  mutate(size = this.options.mutationSize): MutationSummary {
    this.stats.mutations++;
    return this.mutator.step(size);
  }

  /** A deep copy of every record the service holds now, by resource. */
  truth(): Record<ResourceName, SimRecord[]> {
    return Object.fromEntries(
      Object.entries(this.tables).map(([name, table]) => [name, structuredClone([...table.all()])]),
    ) as Record<ResourceName, SimRecord[]>;
  }

  /** The status moves and deletions live mutation has made so far. */
  changes(): Pick<Mutator, 'moves' | 'deleted'> {
    return { moves: this.mutator.moves, deleted: this.mutator.deleted };
  }

  /** Changes the switches that may change while running; a 400 names one that may not, or a bad value. */
  configure(patch: LiveOptions): SimOptions {
    const allowed = new Set<string>(liveOptionKeys);
    for (const key of Object.keys(patch)) {
      if (!allowed.has(key)) throw badRequest(`sandbox option '${key}' cannot change while running`);
    }
    const next = simOptionsSchema.safeParse({ ...this.options, ...patch });
    if (!next.success) {
      const issue = next.error.issues[0];
      throw badRequest(`sandbox option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    this.options = { ...next.data, anchorDate: this.options.anchorDate };
    this.bucket.clamp();
    this.queue.next();
    this.schedule();
    return this.options;
  }

  resetStats(): SimStats {
    // Requests still in progress stay counted: they end after the reset.
    const now = this.stats.inFlight.now;
    this.stats = freshStats();
    this.stats.inFlight.now = now;
    this.stats.inFlight.at = Date.now();
    return this.stats;
  }

  /** Stops live mutation and lets every request waiting for a worker go (the sandbox is closing). */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.queue.drain();
    this.cpu.drain();
  }

  /** Live mutation every `mutateEveryMs`, rescheduled whenever the switches change. */
  private schedule(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.options.mutateEveryMs > 0) {
      this.timer = setInterval(() => this.mutate(), this.options.mutateEveryMs);
      this.timer.unref();
    }
  }
}
