/** Events over the last second, in ten 100 ms slots: a rate that needs no timer. */
export class RateMeter {
  private readonly slots = new Array<number>(10).fill(0);
  private at = 0;
  /** When the first event came: a meter younger than a second has not seen a whole second. */
  private since: number | undefined;

  add(now: number): void {
    this.since ??= now;
    this.rotate(now);
    this.slots[9] = (this.slots[9] ?? 0) + 1;
  }

  /** Events in the last second. */
  rate(now: number): number {
    this.rotate(now);
    return this.slots.reduce((a, b) => a + b, 0);
  }

  /**
   * Events per second: the last second's count, or, in the meter's first second, its count over
   * the time it has run (at least one 100 ms slot), so that a rate read 50 ms after the first
   * event is not taken for 20 times less than it is.
   */
  perSecond(now: number): number {
    const count = this.rate(now);
    if (this.since === undefined) return count;
    const seconds = Math.min(1, Math.max(0.02, (now - this.since) / 1000));
    return count / seconds;
  }

  private rotate(now: number): void {
    const slot = Math.floor(now / 100);
    const shift = this.at === 0 ? 0 : Math.min(10, slot - this.at);
    for (let i = 0; i < shift; i++) {
      this.slots.shift();
      this.slots.push(0);
    }
    this.at = slot;
  }
}
