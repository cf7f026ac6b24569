import type { Row } from '../../render/types.js';
import { orgFigures } from './cells.js';
import { ASSUMED, type Kind, kinds, type MonthCalc, type OrgCalc } from './model.js';
import { namedProblems, problemsCell } from './problems.js';

/**
 * The catch-up plan (docs/reports.md): per employer and test kind, from the compliance report's
 * own figures at its through-month (the same OrgCalc, target and counts), the picks still needed,
 * the selection periods left, the picks needed per period beside the regular draw, the year-end
 * rate at the pace so far, and a verdict. Pure arithmetic on whole numbers: every comparison is
 * exact.
 */
export type Verdict = 'CANNOT_MEET' | 'NOT_MET' | 'NEEDS_REVIEW' | 'NEEDS_MORE' | 'ON_PACE' | 'MET' | 'N/A';

/** Most urgent first: the sort order of the plan and the order its counts are shown in. */
export const verdictOrder: readonly Verdict[] = [
  'CANNOT_MEET',
  'NOT_MET',
  'NEEDS_REVIEW',
  'NEEDS_MORE',
  'ON_PACE',
  'MET',
  'N/A',
];

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
  /** The pool of month m, the pool the employer has now (the compliance projection carries it on). */
  lastPool: number;
  /** The first month with an OrgMonth row (the employer joined then); default 1. */
  firstMonth?: number;
  /** The year is closed (its last month is through; through-month 12 always is): MET / NOT_MET only. */
  closed?: boolean;
  /** The data problems named for the employer (problems.ts): the line reads NEEDS_REVIEW over them. */
  review?: readonly string[];
  /** The rate of the kind (a fraction), for the regular draw; null: no rate. */
  rate?: number | null;
}

export interface PlanFigures {
  /** Picks made and not (yet) completed: counted as coming, so not needed again. */
  pending: number;
  needed: number | null;
  /** Selection periods that have ended since the employer joined. */
  periodsDone: number;
  /** Periods still to select in: those not begun and the one under way. */
  periodsLeft: number;
  perPeriod: number | null;
  /** The regular draw a period: rate × the pool now ÷ periods a year (null without a rate). */
  regularPerPeriod: number | null;
  /** Picks per period so far (the picks since joining over its months, as periods). */
  pacePerPeriod: number;
  /** Tests at the year end if the picks so far go on at their pace. */
  paceTests: number;
  /** paceTests ÷ the projected average pool of the year, a fraction; null without a pool. */
  paceRate: number | null;
  /** Average pool of the months passed (exposure ÷ m). */
  avgPool: number;
  /** The pool of the through-month: the pool the employer has now. */
  currentPool: number;
  verdict: Verdict;
  /** Why, in words (the verdict's rule as it applied). */
  reason: string;
}

/** Periods of a year: 12 months or 4 quarters. */
const perYear = (s: Selection) => (s === 'quarterly' ? 4 : 12);
const monthsPer = (s: Selection) => (s === 'quarterly' ? 3 : 1);

/**
 * Selection periods through month m for an employer that joined in month `first`: those ended
 * (from the period it joined in), and those left, whose selections are still to come. A quarter
 * under way is left while it has months to run: a supplemental draw can still be made in it.
 */
export function periodsOf(month: number, selection: Selection, first = 1): { done: number; left: number } {
  const per = monthsPer(selection);
  const ended = Math.floor(month / per);
  const before = Math.floor((first - 1) / per);
  return { done: Math.max(0, ended - before), left: perYear(selection) - ended };
}

const unitOf = (s: Selection) => (s === 'quarterly' ? 'quarter' : 'month');

/** The plan of one org and test kind. */
export function planOf(p: PlanInput): PlanFigures {
  const first = Math.min(p.firstMonth ?? 1, p.month);
  const closed = p.closed === true || p.month === 12;
  const { done, left } = periodsOf(p.month, p.selection, first);
  const pending = Math.max(0, p.pickedYtd - p.completedYtd);
  const active = p.month - first + 1;
  // The pace of the months since joining, carried to the year end: picked × (13 − first) ÷ active.
  const pacePerPeriod = (p.pickedYtd * monthsPer(p.selection)) / active;
  const paceTests = (p.pickedYtd * (13 - first)) / active;
  // The year's projected average pool, as compliance projects it: (exposure + lastPool × (12 − m)) / 12.
  const projTwelfths = p.exposure + p.lastPool * (12 - p.month);
  const paceRate = projTwelfths === 0 ? null : (paceTests * 12) / projTwelfths;
  const avgPool = p.exposure / p.month;
  const regularPerPeriod =
    p.rate === undefined || p.rate === null ? null : (p.rate * p.lastPool) / perYear(p.selection);
  const base = {
    pending,
    periodsDone: done,
    periodsLeft: closed ? 0 : left,
    pacePerPeriod,
    paceTests,
    paceRate,
    avgPool,
    currentPool: p.lastPool,
    regularPerPeriod,
  };
  if (p.target === null)
    return { ...base, needed: null, perPeriod: null, verdict: 'N/A', reason: 'no rate of this kind' };
  if (p.exposure === 0)
    return { ...base, needed: null, perPeriod: null, verdict: 'N/A', reason: 'no pool so far (NO_POOL)' };
  const figures = closed ? closedYear(p, p.target) : openYear(p, p.target, pending, done, left, first);
  const review = p.review ?? [];
  // A line over a named data problem is never on pace or met: its figures need a look first.
  if (review.length > 0 && (figures.verdict === 'ON_PACE' || figures.verdict === 'MET'))
    return {
      ...base,
      ...figures,
      verdict: 'NEEDS_REVIEW',
      reason: `${figures.reason}, but the data needs review: ${review.join('; ')}`,
    };
  return { ...base, ...figures };
}

type Decided = Pick<PlanFigures, 'needed' | 'perPeriod' | 'verdict' | 'reason'>;

/** A closed year: nothing is left to plan, the target was met or not by the tests completed. */
function closedYear(p: PlanInput, target: number): Decided {
  const needed = Math.max(0, target - p.completedYtd);
  return needed === 0
    ? {
        needed,
        perPeriod: null,
        verdict: 'MET',
        reason: `completed ${p.completedYtd} of the target ${target}`,
      }
    : {
        needed,
        perPeriod: null,
        verdict: 'NOT_MET',
        reason: `completed ${p.completedYtd} of the target ${target}: ${needed} short, the year is closed`,
      };
}

function openYear(
  p: PlanInput,
  target: number,
  pending: number,
  done: number,
  left: number,
  first: number,
): Decided {
  const needed = Math.max(0, target - p.completedYtd - pending);
  const unit = unitOf(p.selection);
  if (needed === 0)
    return {
      needed,
      perPeriod: 0,
      verdict: 'ON_PACE',
      reason:
        pending > 0
          ? `completed ${p.completedYtd} and ${pending} pending reach the target ${target}`
          : `completed ${p.completedYtd} reach the target ${target}`,
    };
  if (left === 0)
    return {
      needed,
      perPeriod: null,
      verdict: 'CANNOT_MEET',
      reason: `${needed} still needed and no selection period left`,
    };
  const perPeriod = Math.ceil(needed / left);
  // Testing every covered employee in every period left still falls short.
  if (perPeriod > p.lastPool)
    return {
      needed,
      perPeriod,
      verdict: 'CANNOT_MEET',
      reason: `${perPeriod} a ${unit} exceeds the pool now (${p.lastPool})`,
    };
  // paceTests ≥ target, exactly: picked × (13 − first) ≥ target × months since joining.
  if (p.pickedYtd * (13 - first) >= target * (p.month - first + 1))
    return {
      needed,
      perPeriod,
      verdict: 'ON_PACE',
      reason: `picks so far (${round1((p.pickedYtd * monthsPer(p.selection)) / (p.month - first + 1))} a ${unit}) reach the target ${target} by the year end`,
    };
  const under = p.selection === 'quarterly' && p.month % 3 !== 0;
  const what =
    left === 1
      ? under
        ? `${needed} more this quarter`
        : `${needed} more in the last ${unit}`
      : `${perPeriod} a ${unit} for the ${left} ${unit}s left${under ? ' (this quarter among them)' : ''}`;
  return {
    needed,
    perPeriod,
    verdict: 'NEEDS_MORE',
    reason: `${what} (picks so far ${round1((p.pickedYtd * monthsPer(p.selection)) / (p.month - first + 1))} a ${unit}${done === 0 ? ', no period ended yet' : ''})`,
  };
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** What every plan line of a run shares: the year, its selection periods, whether it is closed. */
export interface PlanYear {
  year: number;
  selection: Selection;
  /** Through-month 12: the year's last month is through. */
  closed: boolean;
}

/**
 * The plan year of a compliance run's setup. It is closed only when its last month is through
 * (m = 12). A past year asked as of a month inside it (`year=2025 throughMonth=6`) is planned as of
 * that month, like the current year at that month, as compliance scores it; a past year asked
 * without a through-month is read through December (months.ts), so closed.
 */
export function planYear(s: { year: number; m: number; opts: { selectionPeriod: Selection } }): PlanYear {
  return { year: s.year, selection: s.opts.selectionPeriod, closed: s.m === 12 };
}

/** The plan rows of orgs at their through-month (OrgCalc with its last month last), most urgent first. */
export function planRows(calcs: readonly OrgCalc[], y: PlanYear): Row[] {
  const rows: Row[] = [];
  for (const calc of calcs) {
    const last = calc.months[calc.months.length - 1] as MonthCalc | undefined;
    if (last === undefined) continue;
    for (const kind of kinds) rows.push(planRow(calc, last, kind, y));
  }
  return sortByUrgency(rows);
}

function planRow(calc: OrgCalc, last: MonthCalc, kind: Kind, y: PlanYear): Row {
  const f = orgFigures(calc, last, kind);
  const problems = namedProblems(calc);
  const plan = planOf({
    month: last.month,
    selection: y.selection,
    target: f.target,
    completedYtd: f.completedYtd,
    pickedYtd: f.pickedYtd,
    exposure: last.exposure,
    lastPool: last.pool,
    firstMonth: calc.firstMonth ?? 1,
    closed: y.closed || last.month === 12,
    review: problems.filter((p) => p.review).map((p) => p.text),
    rate: f.ratePercent === null ? null : f.ratePercent / 100,
  });
  const assumed = calc.rates.assumed && plan.verdict !== 'N/A';
  return {
    orgId: calc.orgId,
    org: calc.org,
    year: y.year,
    throughMonth: last.month,
    testType: kind,
    verdict: assumed ? `${plan.verdict}${ASSUMED}` : plan.verdict,
    perPeriod: plan.perPeriod,
    regularPerPeriod: plan.regularPerPeriod,
    needed: plan.needed,
    annualTarget: f.target,
    completedYtd: f.completedYtd,
    pending: plan.pending,
    selection: y.selection,
    periodsLeft: plan.periodsLeft,
    pacePerPeriod: plan.pacePerPeriod,
    paceTests: plan.paceTests,
    paceRate: plan.paceRate,
    avgPool: plan.avgPool,
    rate: f.ratePercent,
    rateSource: calc.rates.source,
    assumedRate: calc.rates.assumed,
    reason: plan.reason,
    currentPool: plan.currentPool,
    periodsDone: plan.periodsDone,
    firstMonth: calc.firstMonth ?? 1,
    problems: problemsCell(problems),
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
 * Most urgent first (verdictOrder), NEEDS_MORE most per period first; within a
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
