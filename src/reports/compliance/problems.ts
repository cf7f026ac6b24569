import type { MonthCalc, NamedProblem, OrgCalc } from './model.js';

export type { NamedProblem };

/**
 * The problems the reports name for one employer, from its compliance figures (docs/reports.md,
 * "No verdict OK over a named problem"). One rule for every report built on compliance: the
 * compliance report's YTD row and Problems sheet, and the catch-up plan, name the same problems
 * from the same OrgCalc, and neither report's verdict is OK while any employer has one.
 *
 * A data problem (`review`) is one the figures cannot be trusted over: a month with no OrgMonth
 * row (pool carried forward), an OrgMonth label that is no month, a quarter that ended with no
 * selection, counts that fail their own check (DATA_CHECK). A plan line over a data problem is
 * never on pace or met: it reads NEEDS_REVIEW. The evidence gaps (picks of an ended month never
 * completed, a month without a covered-employee list) are named too and keep a report from OK,
 * but the figures stand.
 */
type ProblemCode =
  | 'DATA_GAP'
  | 'UNREADABLE_LABEL'
  | 'NO_SELECTION'
  | 'DATA_CHECK'
  | 'PICKS_NOT_COMPLETED'
  | 'NO_COVERED_LIST';

const hasFlag = (mc: MonthCalc, flag: string) => mc.flags.includes(flag);
const list = (months: number[]) => months.join(', ');

/**
 * The problems of one employer at its through-month, in a fixed order (data problems first):
 * those kept on the OrgCalc when only its last month is, else from its months.
 */
export function namedProblems(calc: OrgCalc): readonly NamedProblem[] {
  if (calc.problems !== undefined) return calc.problems;
  const out: (NamedProblem & { code: ProblemCode })[] = [];
  const months = (pick: (mc: MonthCalc) => boolean) => calc.months.filter(pick).map((mc) => mc.month);
  const gaps = months((mc) => hasFlag(mc, 'DATA_GAP'));
  if (gaps.length > 0)
    out.push({
      code: 'DATA_GAP',
      text: `no OrgMonth row (or no pool) for month${gaps.length === 1 ? '' : 's'} ${list(gaps)}`,
      review: true,
    });
  const bad = calc.unreadableLabels ?? 0;
  if (bad > 0)
    out.push({
      code: 'UNREADABLE_LABEL',
      text: `${bad} OrgMonth row${bad === 1 ? '' : 's'} with a label that is no month`,
      review: true,
    });
  const quarters = calc.months.flatMap((mc) =>
    mc.flags.filter((f) => f.startsWith('NO_SELECTION_')).map((f) => f.slice('NO_SELECTION_'.length)),
  );
  if (quarters.length > 0)
    out.push({ code: 'NO_SELECTION', text: `no selection in ${quarters.join(', ')}`, review: true });
  const checks = months((mc) => hasFlag(mc, 'DATA_CHECK'));
  if (checks.length > 0)
    out.push({
      code: 'DATA_CHECK',
      text: `counts fail their check (results above picks, or picks with pool 0) in month${checks.length === 1 ? '' : 's'} ${list(checks)}`,
      review: true,
    });
  const last = calc.months.at(-1)?.month ?? 0;
  // The through-month's picks may still be collected: only earlier months' count as never completed.
  const open = months((mc) => mc.month < last && mc.picksNotCompleted > 0);
  if (open.length > 0)
    out.push({
      code: 'PICKS_NOT_COMPLETED',
      text: `picks never completed in month${open.length === 1 ? '' : 's'} ${list(open)}`,
      review: false,
    });
  const noList = months((mc) => mc.input !== undefined && mc.input.coveredEmployeeDocument == null);
  if (noList.length > 0)
    out.push({
      code: 'NO_COVERED_LIST',
      text: `no covered-employee list for month${noList.length === 1 ? '' : 's'} ${list(noList)}`,
      review: false,
    });
  return out;
}

/** The `problems` cell of a row: the problems in words, `; `-separated, or null when none. */
export function problemsCell(problems: readonly NamedProblem[]): string | null {
  return problems.length === 0 ? null : problems.map((p) => p.text).join('; ');
}

/**
 * The one rule of a report's verdict over named problems: given a report's rows (one or more per
 * employer, each with the `problems` cell), the employers with a named problem. A report whose
 * rows name any is at least "Needs attention", never OK.
 */
export function employersWithProblems(rows: readonly Record<string, unknown>[]): Set<unknown> {
  return new Set(rows.filter((r) => typeof r.problems === 'string' && r.problems !== '').map((r) => r.orgId));
}
