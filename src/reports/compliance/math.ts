/**
 * The arithmetic of docs/reports.md, exact: a rate is held as an integer number of millionths
 * (50% is 500000), pools and counts are integers, and every target or comparison is an integer
 * division of BigInts, so `ceil(7% × 100)` is 7, never 8. Only displayed values (expected to
 * date, shortfall) become floating point, after the decisions are made.
 */
export type ComplianceStatus =
  | 'MET'
  | 'ON_TRACK'
  | 'PENDING_RESULTS'
  | 'AT_RISK'
  | 'BEHIND'
  | 'NOT_MET'
  | 'N/A';

/**
 * Worst first (docs/reports.md): a sumOfChildren rollup takes its members' worst status; `N/A`
 * (no pool) members are ignored, so it ranks above every other status.
 */
export const statusRank: Readonly<Record<ComplianceStatus, number>> = {
  NOT_MET: 0,
  BEHIND: 0,
  AT_RISK: 1,
  PENDING_RESULTS: 2,
  ON_TRACK: 3,
  MET: 4,
  'N/A': 5,
};

/** A rate fraction is `units / RATE_ONE`. */
export const RATE_ONE = 1_000_000n;
const TWELFTHS = RATE_ONE * 12n;

/** A percent (rpMin, e.g. 50 or 12.5) as exact rate units (four decimals of a percent kept). */
export function rateUnits(percent: number): bigint {
  return BigInt(Math.round(percent * 10_000));
}

/** The percent of rate units, for display. */
export function ratePercent(units: bigint): number {
  return Number(units) / 10_000;
}

export function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

export function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

/**
 * `expectedToDate = rate × exposure / 12`, as the numerator over `12 × RATE_ONE`; numerators of
 * several orgs add up exactly (sumOfChildren rollups).
 */
export function expectedNumerator(units: bigint, exposure: number): bigint {
  return units * BigInt(exposure);
}

/** `annualTarget = ceil(rate × projAvg)`, `projAvg = (exposure + lastPool × (12 − m)) / 12`. */
export function annualTarget(units: bigint, exposure: number, lastPool: number, m: number): number {
  return Number(ceilDiv(units * BigInt(exposure + lastPool * (12 - m)), TWELFTHS));
}

/**
 * The target when months carry their own rates: `ceil((Σ rate_i × pool_i + rate_m × lastPool ×
 * (12 − m)) / 12)`, the projected months at the rate in force for the last month. With one rate
 * all year it is `annualTarget`.
 */
export function weightedTarget(weighted: bigint, units: bigint, lastPool: number, m: number): number {
  return Number(ceilDiv(weighted + units * BigInt(lastPool * (12 - m)), TWELFTHS));
}

/** The floor of an expected-to-date numerator: the whole tests due by now. */
export function expectedFloor(numerator: bigint): number {
  return Number(floorDiv(numerator, TWELFTHS));
}

export function expectedValue(numerator: bigint): number {
  return Number(numerator) / Number(TWELFTHS);
}

/**
 * Status through month m (docs/reports.md): at m = 12 only MET or NOT_MET; with no exposure N/A
 * (a target of 0 is no proof of anything). AT_RISK replaces ON_TRACK or PENDING_RESULTS when the
 * tests still needed exceed what the org's own pace so far (at least one a month) would give in
 * the months left: an auditor's first question.
 */
export function statusOf(
  m: number,
  target: number,
  expectedNum: bigint,
  picked: number,
  completed: number,
  exposure: number,
): ComplianceStatus {
  if (exposure === 0) return 'N/A';
  if (completed >= target) return 'MET';
  if (m >= 12) return 'NOT_MET';
  const due = expectedFloor(expectedNum);
  const pace = Math.max(1, Math.ceil(picked / m));
  const atRisk = target - completed > (12 - m) * pace;
  if (completed >= due) return atRisk ? 'AT_RISK' : 'ON_TRACK';
  if (picked >= due) return atRisk ? 'AT_RISK' : 'PENDING_RESULTS';
  return 'BEHIND';
}

export interface Derived {
  expectedToDate: number;
  shortfall: number;
  remaining: number;
  neededPerMonth: number;
  annualizedRate: number | null;
  completionRatio: number | null;
}

/** The derived columns of one test kind through month m. */
export function derive(
  m: number,
  exposure: number,
  target: number,
  expectedNum: bigint,
  picked: number,
  completed: number,
): Derived {
  const short = expectedNum - BigInt(completed) * TWELFTHS;
  const remaining = Math.max(0, target - completed);
  return {
    expectedToDate: expectedValue(expectedNum),
    shortfall: short > 0n ? expectedValue(short) : 0,
    remaining,
    neededPerMonth: remaining / Math.max(1, 12 - m),
    annualizedRate: exposure === 0 ? null : (completed * 12) / exposure,
    completionRatio: picked === 0 ? null : completed / picked,
  };
}
