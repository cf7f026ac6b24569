/** Events over the last second, in ten 100 ms slots: a rate that needs no timer. */
export class RateMeter {
  private readonly slots = new Array<number>(10).fill(0);
  private at = 0;

  add(now: number): void {
    this.rotate(now);
    this.slots[9] = (this.slots[9] ?? 0) + 1;
  }

  /** Events in the last second. */
  rate(now: number): number {
    this.rotate(now);
    return this.slots.reduce((a, b) => a + b, 0);
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
