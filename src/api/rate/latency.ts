import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Latency inflation, the early sign of an overloaded service (before it sends 429s, if it ever
 * does): the p90 of each second's clean responses against a baseline, the lowest p90 seen.
 * Inflated means more than INFLATION × the baseline and more than SLACK_MS above it (a loaded
 * client machine adds milliseconds of noise that are no sign of anything). The first baseline is
 * the p90 of the first MIN_SAMPLES answers, before this client's own load can have raised it
 * (as TCP Vegas takes its base RTT from the first round trips).
 *
 * A latency is measured by this process, so it also holds the time this process took to notice
 * the answer: a busy event loop (a page written to SQLite, a large JSON parsed) or a process the
 * machine did not schedule adds that much to every answer in flight, and looks exactly like a
 * slow service. The client's own delay over the epoch (the event loop's worst lateness, see
 * ClientLag) is taken off the p90 before it is judged: without that, a loaded machine cut the rate
 * of a service with no limit over and over (2 to 8 cuts per full sync, a sync 7 times slower).
 */
export const LATENCY = { EPOCH_MS: 1000, MIN_SAMPLES: 20, INFLATION: 2, SLACK_MS: 50 } as const;

export class LatencyWatch {
  private samples: number[] = [];
  private epochStart = 0;
  /** The lowest p90 seen (the service before our load), ms. */
  baseline = Number.POSITIVE_INFINITY;
  /** Consecutive inflated epochs since the last cut it caused. */
  private inflatedSinceCut = 0;
  /** The client's own worst delay in the epoch under way, ms. */
  private epochLag = 0;
  /** p90 of the last full epoch, and the client's own delay in it, for the metrics and logs. */
  lastP90 = 0;
  lastLag = 0;

  /**
   * Adds a clean response's latency; answers true when an epoch just ended inflated and a cut is
   * due (not two in a row: an overloaded service and a closed-loop client oscillate, one slow
   * second, one fast). If the p90 stays inflated for three epochs after a cut, the service is
   * slower for another reason than our load: the baseline moves up to it instead of cutting the
   * rate to nothing.
   */
  add(ms: number, now: number, lagMs = 0): boolean {
    if (this.epochStart === 0) this.epochStart = now;
    this.samples.push(ms);
    this.epochLag = Math.max(this.epochLag, lagMs);
    // The first epoch ends at MIN_SAMPLES answers: the baseline is the service before our load.
    const first = !Number.isFinite(this.baseline);
    if (first ? this.samples.length < LATENCY.MIN_SAMPLES : now - this.epochStart < LATENCY.EPOCH_MS)
      return false;
    const samples = this.samples;
    const own = this.epochLag;
    this.samples = [];
    this.epochStart = now;
    this.epochLag = 0;
    if (samples.length < LATENCY.MIN_SAMPLES) return false;
    samples.sort((a, b) => a - b);
    const p90 = samples[Math.floor(samples.length * 0.9)] ?? 0;
    this.lastP90 = p90;
    this.lastLag = own;
    // What the service took: the p90 less the client's own delay in the epoch.
    const service = p90 - own;
    const inflated =
      service > this.baseline * LATENCY.INFLATION && service - this.baseline > LATENCY.SLACK_MS;
    if (!inflated) {
      this.baseline = Math.min(this.baseline, p90);
      this.inflatedSinceCut = 0;
      return false;
    }
    this.inflatedSinceCut++;
    if (this.inflatedSinceCut === 1) return true;
    if (this.inflatedSinceCut >= 3) {
      this.baseline = p90;
      this.inflatedSinceCut = 0;
    }
    return false;
  }
}

/** The event loop's lateness is sampled at this resolution, ms (libuv timer). */
const LAG_RESOLUTION_MS = 10;
/** Lateness is kept per slot of this length, over LAG_SLOTS slots (about the last two seconds). */
const LAG_SLOT_MS = 500;
const LAG_SLOTS = 4;

/**
 * This process's own delay in noticing an answer: the worst lateness of the event loop (Node's
 * `monitorEventLoopDelay`, a timer every 10 ms whose late firings it records) over the last two
 * seconds. Lateness comes from a loop busy with our own work and from a process the machine did
 * not schedule alike, and either adds to every latency measured meanwhile. One per process (the
 * histogram is process-wide); its timer does not keep the process alive.
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

  /** The worst lateness over about the last two seconds, ms. */
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
    const max = this.histogram.count === 0 ? 0 : this.histogram.max / 1e6;
    return Math.max(0, max - LAG_RESOLUTION_MS);
  }
}
