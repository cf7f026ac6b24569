import type { Sheet } from './types.js';
import type { XlsxValue } from './xlsx-value.js';

/** Running subtotals of a detail sheet, in its row order (xlsx only). */
export class Subtotals {
  private readonly byIndex: number;
  private readonly sumIndexes: number[];
  private group: XlsxValue | undefined | null = null;
  private label: XlsxValue | undefined;
  private readonly groupSums: number[];
  private readonly grandSums: number[];
  private groupRows = 0;
  private groups = 0;
  /** Rows shown but summed in no subtotal (e.g. cancelled invoices). */
  private readonly skipIndex: number;
  private readonly skipValues: ReadonlySet<XlsxValue | undefined>;

  constructor(
    spec: NonNullable<Sheet['subtotals']>,
    keys: string[],
    private readonly labelIndex: number,
  ) {
    this.byIndex = keys.indexOf(spec.by);
    this.sumIndexes = spec.sum.map((k) => keys.indexOf(k)).filter((i) => i >= 0);
    this.groupSums = this.sumIndexes.map(() => 0);
    this.grandSums = this.sumIndexes.map(() => 0);
    const named = keys.indexOf(spec.label);
    if (named >= 0) this.labelIndex = named;
    this.skipIndex = spec.skip === undefined ? -1 : keys.indexOf(spec.skip.key);
    this.skipValues = new Set(spec.skip?.values ?? []);
  }

  /** Rows to write before `values`: the subtotal of the group it ends. */
  next(values: (XlsxValue | undefined)[]): (XlsxValue | undefined)[][] {
    const key = values[this.byIndex];
    const out = this.groupRows > 0 && key !== this.group ? [this.flush()] : [];
    if (this.skipIndex >= 0 && this.skipValues.has(values[this.skipIndex])) return out;
    if (this.groupRows === 0) {
      this.group = key;
      this.label = values[this.labelIndex] ?? (key === undefined ? undefined : String(key));
    }
    this.groupRows++;
    this.sumIndexes.forEach((i, k) => {
      const v = values[i];
      if (typeof v === 'number') {
        // Money is units with two decimals: summed in cents so subtotals are exact.
        this.groupSums[k] = (this.groupSums[k] as number) + Math.round(v * 100);
        this.grandSums[k] = (this.grandSums[k] as number) + Math.round(v * 100);
      }
    });
    return out;
  }

  /** The last subtotal and the grand total. */
  close(): (XlsxValue | undefined)[][] {
    if (this.groupRows === 0 && this.groups === 0) return [];
    const out = this.groupRows > 0 ? [this.flush()] : [];
    out.push(this.row('Total', this.grandSums));
    return out;
  }

  private flush(): (XlsxValue | undefined)[] {
    const row = this.row(`Subtotal ${this.label ?? ''}`.trim(), this.groupSums);
    this.groupSums.fill(0);
    this.groupRows = 0;
    this.groups++;
    return row;
  }

  private row(label: string, sums: number[]): (XlsxValue | undefined)[] {
    const width = Math.max(this.labelIndex, this.byIndex, ...this.sumIndexes) + 1;
    const row: (XlsxValue | undefined)[] = new Array(width).fill(undefined);
    row[this.labelIndex] = label;
    this.sumIndexes.forEach((i, k) => {
      row[i] = (sums[k] as number) / 100;
    });
    return row;
  }
}
