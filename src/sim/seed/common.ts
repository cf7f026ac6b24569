import type { Rng } from '../rng.js';
import type { SimTables } from '../store.js';

/** What every resource's seeding shares: the one generator (drawn in a fixed order), the tables, the calendar. */
export interface SeedContext {
  seed: number;
  rng: Rng;
  t: SimTables;
  /** `n` at the data set's scale, at least 1. */
  scaled: (n: number) => number;
  /** The data set's today (ms), the start of its two years of history, and the span between. */
  anchor: number;
  start: number;
  span: number;
}

export { DAY } from '../../dates.js';

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function isoSecond(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export function phone(rng: Rng): string {
  return `(${rng.int(201, 989)}) ${rng.int(200, 999)}-${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

export function asciiSlug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '')
    .toLowerCase();
}

/** Ids that rise with gaps: mostly +1, sometimes a hole of up to `maxGap`. */
export class IdSequence {
  constructor(
    private next: number,
    private readonly rng: Rng,
    private readonly maxGap = 12,
  ) {}
  take(): number {
    const id = this.next;
    this.next += this.rng.chance(0.15) ? this.rng.int(2, this.maxGap) : 1;
    return id;
  }
}
