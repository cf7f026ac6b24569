import { daysInMonth } from '../../dates.js';
import { ReportParamError } from '../core/errors.js';
import type { CommonParams } from '../core/params.js';
import type { Collector } from './collector.js';
import type { ComplianceOptions } from './options.js';

export const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `YYYY-MM`, `YYYY-M`, `MM/YYYY` or `M/YYYY` (docs/reports.md); null when the label is no month. */
export function parseMonthLabel(label: string | null): { year: number; month: number } | null {
  if (label === null) return null;
  const s = label.trim();
  let m = /^(\d{4})-(\d{1,2})$/.exec(s);
  let year: number;
  let month: number;
  if (m !== null) {
    year = Number(m[1]);
    month = Number(m[2]);
  } else {
    m = /^(\d{1,2})\/(\d{4})$/.exec(s);
    if (m === null) return null;
    month = Number(m[1]);
    year = Number(m[2]);
  }
  return month >= 1 && month <= 12 ? { year, month } : null;
}

/** The year reported and its last month m. */
export interface YearChoice {
  year: number;
  m: number;
  monthNote: string;
}

export function resolveYear(common: CommonParams, opts: ComplianceOptions, warn: Collector): YearChoice {
  const asOf = common.asOf;
  const lastFull = (year: number) =>
    year < asOf.year
      ? 12
      : year > asOf.year
        ? 0
        : asOf.day === daysInMonth(asOf.year, asOf.month)
          ? asOf.month
          : asOf.month - 1;
  let year = opts.year ?? asOf.year;
  if (opts.throughMonth !== undefined) {
    if (opts.throughMonth > lastFull(year))
      warn.warnings.push(
        `throughMonth ${opts.throughMonth} of ${year} is not complete on the as-of date ${common.asOfText}: its counts may still grow`,
      );
    return { year, m: opts.throughMonth, monthNote: 'throughMonth as given' };
  }
  let m = lastFull(year);
  let monthNote = year < asOf.year ? 'the year is over' : `the last full month before the as-of date`;
  if (m === 0 && opts.year === undefined) {
    year -= 1;
    m = 12;
    monthNote = `no month of ${asOf.year} is complete on the as-of date, so the year before is reported`;
  }
  if (m === 0)
    throw new ReportParamError(
      'compliance',
      'options.year',
      `no month of ${year} is complete on the as-of date ${common.asOfText}; give options.throughMonth`,
    );
  return { year, m, monthNote };
}
