/**
 * Latency inflation, the early sign of an overloaded service (before it sends 429s, if it ever
 * does): the p90 of each second's clean responses against a baseline, the lowest p90 seen.
 * Inflated means more than INFLATION × the baseline and more than SLACK_MS above it (a loaded
 * client machine adds milliseconds of noise that are no sign of anything). The first baseline is
 * the p90 of the first MIN_SAMPLES answers, before this client's own load can have raised it
 * (as TCP Vegas takes its base RTT from the first round trips).
 */
export const LATENCY = { EPOCH_MS: 1000, MIN_SAMPLES: 20, INFLATION: 2, SLACK_MS: 50 } as const;

export class LatencyWatch {
  private samples: number[] = [];
  private epochStart = 0;
  private baseline = Number.POSITIVE_INFINITY;
  /** Consecutive inflated epochs since the last cut it caused. */
  private inflatedSinceCut = 0;
  /** p90 of the last full epoch, for the metrics. */
  lastP90 = 0;

  /**
   * Adds a clean response's latency; answers true when an epoch just ended inflated and a cut is
   * due (not two in a row: an overloaded service and a closed-loop client oscillate, one slow
   * second, one fast). If the p90 stays inflated for three epochs after a cut, the service is
   * slower for another reason than our load: the baseline moves up to it instead of cutting the
   * rate to nothing.
   */
  add(ms: number, now: number): boolean {
    if (this.epochStart === 0) this.epochStart = now;
    this.samples.push(ms);
    // The first epoch ends at MIN_SAMPLES answers: the baseline is the service before our load.
    const first = !Number.isFinite(this.baseline);
    if (first ? this.samples.length < LATENCY.MIN_SAMPLES : now - this.epochStart < LATENCY.EPOCH_MS)
      return false;
    const samples = this.samples;
    this.samples = [];
    this.epochStart = now;
    if (samples.length < LATENCY.MIN_SAMPLES) return false;
    samples.sort((a, b) => a - b);
    const p90 = samples[Math.floor(samples.length * 0.9)] ?? 0;
    this.lastP90 = p90;
    const inflated = p90 > this.baseline * LATENCY.INFLATION && p90 - this.baseline > LATENCY.SLACK_MS;
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
