import { daysInMonth } from '../../dates.js';
import type { PolicyVersion } from '../../mirror/index.js';
import type { Collector } from './collector.js';
import type { OrgRates } from './model.js';
import { policyRates } from './policy.js';

/**
 * The rates of each month of an org's year (docs/reports.md, "Policies with an effective date"):
 * a month is scored by the latest policy version the mirror knew at the report's instant whose
 * effective date (`effective_from`, null: every month) is on or before the month's last day. A
 * month no version covers uses the default rates (assumed, flagged NO_POLICY). The org's rates
 * (program, agency, source) are those of its last month; they are assumed when any month's are.
 */
export interface YearRates {
  /** The org's rates as the report names them (of the last month; assumed if any month is). */
  rates: OrgRates;
  /** The rates of months 1..m, index 0 for month 1. */
  byMonth: OrgRates[];
}

const monthEnd = (year: number, month: number) =>
  `${year}-${String(month).padStart(2, '0')}-${String(daysInMonth(year, month)).padStart(2, '0')}`;

/** The version in force for a month: the latest known whose effective date has come by its end. */
function versionFor(
  versions: readonly PolicyVersion[],
  year: number,
  month: number,
): PolicyVersion | undefined {
  const end = monthEnd(year, month);
  let found: PolicyVersion | undefined;
  for (const v of versions) {
    const from = v.effective_from ?? null;
    if (from !== null && from > end) continue;
    if (found === undefined || v.valid_from >= found.valid_from) found = v;
  }
  return found;
}

/** Months as ranges: [1, 2, 3, 7] → "1-3, 7". */
function ranges(months: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < months.length; ) {
    let j = i;
    while (j + 1 < months.length && (months[j + 1] as number) === (months[j] as number) + 1) j++;
    out.push(i === j ? String(months[i]) : `${months[i]}-${months[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

export function yearRates(
  versions: readonly PolicyVersion[] | undefined,
  year: number,
  m: number,
  defaults: OrgRates,
  warn: Collector,
): YearRates {
  const of = new Map<PolicyVersion, OrgRates>();
  const byMonth: OrgRates[] = [];
  for (let i = 1; i <= m; i++) {
    const v = versions === undefined ? undefined : versionFor(versions, year, i);
    if (v === undefined) {
      byMonth.push(defaults);
      continue;
    }
    let r = of.get(v);
    if (r === undefined) {
      r = policyRates(v, year, defaults, warn);
      of.set(v, r);
    }
    byMonth.push(r);
  }
  const last = byMonth[byMonth.length - 1] ?? defaults;
  const other = new Map<string, number[]>();
  byMonth.forEach((r, i) => {
    if (r.source !== last.source) other.set(r.source, [...(other.get(r.source) ?? []), i + 1]);
  });
  if (other.size === 0) return { rates: last, byMonth };
  // Some months scored on another version (or the defaults): named in the source, and the
  // status says assumed when any month is.
  const source = `${last.source}; months ${[...other].map(([s, months]) => `${ranges(months)} ${s}`).join('; months ')}`;
  return { rates: { ...last, source, assumed: byMonth.some((r) => r.assumed) }, byMonth };
}
