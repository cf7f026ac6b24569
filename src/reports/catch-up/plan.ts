import type { Row } from '../../render/types.js';
import { orgFigures } from '../compliance/cells.js';
import { ASSUMED, type Kind, kinds, type MonthCalc, type OrgCalc } from '../compliance/model.js';

/**
 * The catch-up plan (docs/reports.md): per employer and test kind, from the compliance report's
 * own figures at its through-month (the same OrgCalc, target and counts), the picks still needed,
 * the selection periods left, the picks needed per period, the year-end rate at the pace so far,
 * and a verdict. Pure arithmetic on whole numbers: every comparison is exact.
 */
export type Verdict = 'CANNOT_MEET' | 'NEEDS_MORE' | 'ON_PACE' | 'N/A';

/** Most urgent first: the sort order of the plan and the order its counts are shown in. */
export const verdictOrder: readonly Verdict[] = ['CANNOT_MEET', 'NEEDS_MORE', 'ON_PACE', 'N/A'];

export type Selection = 'monthly' | 'quarterly';

/** What one plan line is computed from: the compliance report's figures of one org and kind. */
export interface PlanInput {
  /** The through-month m (1 to 12). */
  month: number;
  selection: Selection;
  /** The compliance annual target; null: no rate of this kind. */
  target: number | null;
  completedYtd: number;
  pickedYtd: number;
  /** Σ pool of months 1..m (the compliance exposure). */
  exposure: number;
  /** The pool of month m (the compliance projection carries it to the year end). */
  lastPool: number;
}

export interface PlanFigures {
  /** Picks made and not (yet) completed: counted as coming, so not needed again. */
  pending: number;
  needed: number | null;
  periodsDone: number;
  periodsLeft: number;
  perPeriod: number | null;
  /** Picks per period so far (pickedYtd ÷ periods done). */
  pacePerPeriod: number;
  /** Tests at the year end if the picks per period so far go on. */
  paceTests: number;
  /** paceTests ÷ the projected average pool of the year, a fraction; null without a pool. */
  paceRate: number | null;
  /** Average pool of the months passed (exposure ÷ m). */
  avgPool: number;
  verdict: Verdict;
  /** Why, in words (the verdict's rule as it applied). */
  reason: string;
}

/** Periods of a year: 12 months or 4 quarters. */
const perYear = (s: Selection) => (s === 'quarterly' ? 4 : 12);

/**
 * Selection periods through month m (a period counts as done once its first month has passed:
 * its selection is made) and the periods after it, whose selections are still to come.
 */
export function periodsOf(month: number, selection: Selection): { done: number; left: number } {
  const done = selection === 'quarterly' ? Math.ceil(month / 3) : month;
  return { done, left: perYear(selection) - done };
}

/** The plan of one org and test kind. */
export function planOf(p: PlanInput): PlanFigures {
  const { done, left } = periodsOf(p.month, p.selection);
  const pending = Math.max(0, p.pickedYtd - p.completedYtd);
  const total = perYear(p.selection);
  const pacePerPeriod = done === 0 ? 0 : p.pickedYtd / done;
  const paceTests = done === 0 ? 0 : (p.pickedYtd * total) / done;
  // The year's projected average pool, as compliance projects it: (exposure + lastPool × (12 − m)) / 12.
  const projTwelfths = p.exposure + p.lastPool * (12 - p.month);
  const paceRate = projTwelfths === 0 ? null : (paceTests * 12) / projTwelfths;
  const avgPool = p.exposure / p.month;
  const base = { pending, periodsDone: done, periodsLeft: left, pacePerPeriod, paceTests, paceRate, avgPool };
  if (p.target === null)
    return { ...base, needed: null, perPeriod: null, verdict: 'N/A', reason: 'no rate of this kind' };
  if (p.exposure === 0)
    return { ...base, needed: null, perPeriod: null, verdict: 'N/A', reason: 'no pool so far (NO_POOL)' };
  const needed = Math.max(0, p.target - p.completedYtd - pending);
  if (needed === 0)
    return {
      ...base,
      needed,
      perPeriod: 0,
      verdict: 'ON_PACE',
      reason:
        pending > 0
          ? `completed ${p.completedYtd} and ${pending} pending reach the target ${p.target}`
          : `completed ${p.completedYtd} reach the target ${p.target}`,
    };
  if (left === 0)
    return {
      ...base,
      needed,
      perPeriod: null,
      verdict: 'CANNOT_MEET',
      reason: `${needed} still needed and no selection period left`,
    };
  const perPeriod = Math.ceil(needed / left);
  const unit = p.selection === 'quarterly' ? 'quarter' : 'month';
  // perPeriod > exposure / m, exactly.
  if (perPeriod * p.month > p.exposure)
    return {
      ...base,
      needed,
      perPeriod,
      verdict: 'CANNOT_MEET',
      reason: `${perPeriod} a ${unit} exceeds the average pool ${round1(avgPool)}`,
    };
  // paceTests ≥ target, exactly: pickedYtd × periods a year ≥ target × periods done.
  if (p.pickedYtd * total >= p.target * done)
    return {
      ...base,
      needed,
      perPeriod,
      verdict: 'ON_PACE',
      reason: `picks so far (${round1(pacePerPeriod)} a ${unit}) reach the target ${p.target} by the year end`,
    };
  return {
    ...base,
    needed,
    perPeriod,
    verdict: 'NEEDS_MORE',
    reason: `${perPeriod} a ${unit} for the ${left} ${unit}${left === 1 ? '' : 's'} left (picks so far ${round1(pacePerPeriod)} a ${unit})`,
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** The plan rows of orgs at their through-month (OrgCalc with its last month last), most urgent first. */
export function planRows(calcs: readonly OrgCalc[], year: number, selection: Selection): Row[] {
  const rows: Row[] = [];
  for (const calc of calcs) {
    const last = calc.months[calc.months.length - 1] as MonthCalc | undefined;
    if (last === undefined) continue;
    for (const kind of kinds) rows.push(planRow(calc, last, kind, year, selection));
  }
  return sortByUrgency(rows);
}

function planRow(calc: OrgCalc, last: MonthCalc, kind: Kind, year: number, selection: Selection): Row {
  const f = orgFigures(calc, last, kind);
  const plan = planOf({
    month: last.month,
    selection,
    target: f.target,
    completedYtd: f.completedYtd,
    pickedYtd: f.pickedYtd,
    exposure: last.exposure,
    lastPool: last.pool,
  });
  const assumed = calc.rates.assumed && plan.verdict !== 'N/A';
  return {
    orgId: calc.orgId,
    org: calc.org,
    year,
    throughMonth: last.month,
    testType: kind,
    verdict: assumed ? `${plan.verdict}${ASSUMED}` : plan.verdict,
    perPeriod: plan.perPeriod,
    needed: plan.needed,
    annualTarget: f.target,
    completedYtd: f.completedYtd,
    pending: plan.pending,
    selection,
    periodsLeft: plan.periodsLeft,
    pacePerPeriod: plan.pacePerPeriod,
    paceTests: plan.paceTests,
    paceRate: plan.paceRate,
    avgPool: plan.avgPool,
    rate: f.ratePercent,
    rateSource: calc.rates.source,
    assumedRate: calc.rates.assumed,
    reason: plan.reason,
  };
}

/** The verdict code of a cell (without the assumed-rate words) and whether it was assumed. */
export function verdictOf(v: unknown): { verdict: string; assumed: boolean } {
  const s = typeof v === 'string' ? v : '';
  return s.endsWith(ASSUMED)
    ? { verdict: s.slice(0, -ASSUMED.length), assumed: true }
    : { verdict: s, assumed: false };
}

/**
 * Most urgent first: CANNOT_MEET, NEEDS_MORE (most per period first), ON_PACE, N/A; within a
 * verdict, measured before assumed, more needed first, then org name, id and test type.
 */
export function sortByUrgency(rows: Row[]): Row[] {
  const rank = (r: Row) => verdictOrder.indexOf(verdictOf(r.verdict).verdict as Verdict);
  const n = (v: unknown) => (typeof v === 'number' ? v : -1);
  return rows.sort(
    (a, b) =>
      rank(a) - rank(b) ||
      n(b.perPeriod) - n(a.perPeriod) ||
      Number(a.assumedRate) - Number(b.assumedRate) ||
      n(b.needed) - n(a.needed) ||
      String(a.org ?? '').localeCompare(String(b.org ?? '')) ||
      n(a.orgId) - n(b.orgId) ||
      kinds.indexOf(a.testType as Kind) - kinds.indexOf(b.testType as Kind),
  );
}
