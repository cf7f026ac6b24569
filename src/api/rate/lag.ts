import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/** The event loop's lateness is sampled at this resolution, ms (libuv timer). */
const LAG_RESOLUTION_MS = 10;
/** Lateness is kept per slot of this length, over LAG_SLOTS slots (about the last two seconds). */
const LAG_SLOT_MS = 500;
const LAG_SLOTS = 4;

/**
 * This process's own delay in noticing an answer: the event loop's mean lateness (Node's
 * `monitorEventLoopDelay`, a timer every 10 ms whose late firings it records), in the worst
 * half-second slot of about the last two seconds. Lateness comes from a loop busy with our own
 * work and from a process the machine did not schedule alike, and either adds to latencies
 * measured meanwhile: an answer waits, on average, about the mean lateness to be noticed. (The
 * worst single lateness would be taken off every answer of the two seconds after one stall, and
 * hide a server's queue behind it.) One per process (the histogram is process-wide); its timer
 * does not keep the process alive.
 */
export class ClientLag {
  private static shared: ClientLag | undefined;
  private readonly histogram: IntervalHistogram;
  private readonly slots: number[] = [];
  private slotStart = 0;
  /** The last answer of ms(), reused within the histogram's resolution (one read per answer was 1% of a sync's CPU). */
  private last = { at: Number.NEGATIVE_INFINITY, ms: 0 };

  private constructor() {
    this.histogram = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
    this.histogram.enable();
  }

  static get(): ClientLag {
    ClientLag.shared ??= new ClientLag();
    return ClientLag.shared;
  }

  /** The mean lateness of the worst slot over about the last two seconds, ms. */
  ms(now: number): number {
    if (now >= this.last.at && now - this.last.at < LAG_RESOLUTION_MS) return this.last.ms;
    if (this.slotStart === 0) this.slotStart = now;
    if (now - this.slotStart >= LAG_SLOT_MS) {
      this.slots.push(this.current());
      if (this.slots.length > LAG_SLOTS) this.slots.shift();
      this.histogram.reset();
      this.slotStart = now;
    }
    const ms = Math.max(this.current(), ...this.slots);
    this.last = { at: now, ms };
    return ms;
  }

  private current(): number {
    // The histogram records the interval between firings, the resolution included.
    const mean = this.histogram.count === 0 ? 0 : this.histogram.mean / 1e6;
    return Math.max(0, mean - LAG_RESOLUTION_MS);
  }
}
