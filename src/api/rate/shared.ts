import type { RateBudgetStore, SharedRate } from './budget.js';
import type { Clock } from './clock.js';
import type { RateControl } from './control.js';
import type { CubicState } from './cubic.js';

/** A lease asks for this many seconds of the rate at once (a few writes a second at most). */
const LEASE_S = 0.25;
const MAX_LEASE = 64;
/** Depth of the shared bucket, seconds of the rate. */
const SHARED_BURST_S = 0.25;
/** How often a process with no lease to take reads the shared state (another's cut), ms. */
const SYNC_EVERY_MS = 250;
/** Leased requests unused this long after their slot ended lapse (else a slow spender overlaps the next slot). */
const LEASE_GRACE_MS = 100;
/** A shared cut older than this, with no rate learned from it, is not adopted by a new process. */
const STALE_CUT_MS = 60_000;
/** How often the good rate is written. */
const SAVE_GOOD_EVERY_MS = 5000;

/**
 * This process's side of the rate budget every process on a mirror shares (budget.ts): requests
 * leased in batches from the shared schedule, another process's newer cut adopted, this
 * process's cuts and learned rate published. The storage is the `RateBudgetStore` interface (the
 * mirror implements it); the rate itself is the RateControl's, which this feeds. A failing store
 * never stops the client: the process keeps its own rate.
 */
export class SharedBudget {
  private leased = 0;
  /** When the leased requests may start, and when they lapse (their slot of the shared schedule). */
  private leaseFrom = 0;
  private leaseUntil = 0;
  private leasing: Promise<void> | undefined;
  /** The budget row's version after this process's last write (-1: none seen yet). */
  private myVersion = -1;
  private seenCutAt = 0;
  private lastSync = 0;
  private lastGoodSaved = 0;
  /** Store round trips, and their total time in ms (timed on the process's own clock). */
  leases = 0;
  leaseMs = 0;

  constructor(
    private readonly store: RateBudgetStore,
    private readonly key: string,
    private readonly control: RateControl,
    private readonly clock: Clock,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Starts at the rate an earlier process learned (or at the shared state in force). */
  async start(): Promise<void> {
    const shared = await this.timed(() => this.store.load(this.key));
    if (shared === undefined) return;
    const now = this.clock.now();
    this.myVersion = shared.version;
    if (shared.goodRate === undefined) {
      // An old cut no process learned a rate from (a limit lifted since) says nothing about the
      // service now: start with the bucket off, as a first process does.
      if (now - shared.cutAt > STALE_CUT_MS) this.seenCutAt = shared.cutAt;
      else this.merge(shared);
    } else {
      this.control.startFrom(shared.goodRate, now);
      this.seenCutAt = shared.cutAt;
    }
    this.lastSync = now;
  }

  /** A background read now and then, so that a process with no limit yet still sees another's cut. */
  poll(now: number): void {
    if (now - this.lastSync < SYNC_EVERY_MS || this.leasing !== undefined) return;
    this.leasing = this.sync().finally(() => {
      this.leasing = undefined;
    });
  }

  /**
   * Whether a leased request may start now; if not, it leases or waits for its slot first and
   * answers false (the caller looks at the rate again).
   */
  async ready(now: number, rate: number): Promise<boolean> {
    if (now > this.leaseUntil) this.leased = 0;
    if (this.leased < 1) {
      await this.lease(rate);
      return false;
    }
    if (now < this.leaseFrom) {
      await this.clock.sleep(this.leaseFrom - now);
      return false;
    }
    return true;
  }

  /** A leased request starts. */
  take(): void {
    this.leased -= 1;
  }

  /** Records this process's cut; another process's cut in the same episode wins (one per episode). */
  publishCut(state: CubicState): void {
    void this.timed(() => this.store.cut(this.key, state)).then((row) => {
      if (row === undefined) return;
      this.noteVersion(row.version, row.cutAt === state.cutAt);
      this.merge(row, true);
    });
  }

  /** Records the rate that ran clean, for the next process to start at (at most every few seconds). */
  saveGood(now: number): void {
    if (now - this.lastGoodSaved < SAVE_GOOD_EVERY_MS) return;
    const rate = this.control.goodRate(now);
    if (rate === undefined) return;
    this.lastGoodSaved = now;
    void this.timed(() => this.store.saveGood(this.key, rate, now));
  }

  private async sync(): Promise<void> {
    this.lastSync = this.clock.now();
    const shared = await this.timed(() => this.store.load(this.key));
    if (shared === undefined) return;
    this.noteVersion(shared.version, false);
    this.merge(shared);
  }

  /** Reserves a batch of requests on the shared schedule. */
  private async lease(rate: number): Promise<void> {
    if (this.leasing !== undefined) {
      await this.leasing;
      return;
    }
    this.leasing = (async () => {
      const want = Math.min(MAX_LEASE, Math.max(1, Math.ceil(rate * LEASE_S)));
      const result = await this.timed(() =>
        this.store.lease(this.key, {
          want,
          state: this.control.state,
          seenCutAt: this.seenCutAt,
          burstMs: SHARED_BURST_S * 1000,
          now: this.clock.now(),
        }),
      );
      const now = this.clock.now();
      this.lastSync = now;
      // The store failed: carry on, this process alone, as if granted at once.
      const granted = result?.granted ?? want;
      this.leased = granted;
      this.leaseFrom = now + (result?.waitMs ?? 0);
      this.leaseUntil = this.leaseFrom + (granted * 1000) / rate + LEASE_GRACE_MS;
      if (result === undefined) return;
      if (result.granted > 0 && result.waitMs > 0) this.control.noteScheduleFull(now);
      this.noteVersion(result.shared.version, result.granted > 0);
      if (result.granted === 0) await this.clock.sleep(result.waitMs);
      this.merge(result.shared);
    })().finally(() => {
      this.leasing = undefined;
    });
    await this.leasing;
  }

  /**
   * The row's `version` as a write (`mine`: this process's own lease or cut) or a read returned
   * it: moved past what this process's own writes account for, another process wrote meanwhile.
   */
  private noteVersion(version: number, mine: boolean): void {
    const expected = mine ? this.myVersion + 1 : this.myVersion;
    if (this.myVersion >= 0 && version !== expected) this.control.noteOthers(this.clock.now());
    if (mine || version > this.myVersion) this.myVersion = version;
  }

  /** Adopts another process's cut when it is newer than ours (or, `force`, just different). */
  private merge(shared: SharedRate, force = false): void {
    const mine = this.control.state;
    const newer = shared.cutAt > mine.cutAt && shared.cutAt > this.seenCutAt;
    if (newer || (force && shared.cutAt !== mine.cutAt && shared.cutAt > 0)) {
      this.control.adopt({ rate: shared.rate, wMax: shared.wMax, cutAt: shared.cutAt }, this.clock.now());
    }
    this.seenCutAt = Math.max(this.seenCutAt, shared.cutAt);
  }

  /** One store round trip, counted and timed; a failure is reported and answers undefined. */
  private async timed<T>(fn: () => Promise<T>): Promise<T | undefined> {
    const started = performance.now();
    try {
      return await fn();
    } catch (err) {
      this.onError(err);
      return undefined;
    } finally {
      this.leases++;
      this.leaseMs += performance.now() - started;
    }
  }
}
