export interface Bucket {
  key: string;
  label: string;
  /** Inclusive day range; null: open-ended. */
  min: number | null;
  max: number | null;
}

/** Current (≤ 0 days), the periods (1–30, 31–60, 61–90 by default) and the last (91+). */
export function agingBuckets(periodDays: number, periods: number): Bucket[] {
  const out: Bucket[] = [{ key: 'current', label: 'Current', min: null, max: 0 }];
  for (let k = 0; k < periods; k++) {
    const lo = k * periodDays + 1;
    const hi = (k + 1) * periodDays;
    out.push({ key: `d${lo}_${hi}`, label: `${lo}-${hi}`, min: lo, max: hi });
  }
  const last = periods * periodDays + 1;
  out.push({ key: `d${last}Plus`, label: `${last}+`, min: last, max: null });
  return out;
}

export const CREDITS = { key: 'credits', label: 'Credits' } as const;
/** The bucket of a cancelled invoice: in no total. */
export const VOID = 'VOID';

/** `dropInvoice` read as cancelled (one reading with the write-back). */
export { isCancelled } from '../../util/invoice-cancelled.js';
