import type { Row } from '../../render/types.js';
import { kindCells, orgFigures } from './cells.js';
import { expectedValue } from './math.js';
import { type Kind, type KindFigures, kinds, type MonthCalc, type OrgCalc, type Program } from './model.js';
import { namedProblems, problemsCell } from './problems.js';

export function detailRow(calc: OrgCalc, mc: MonthCalc, year: number): Row {
  const input = mc.input;
  const row: Row = {
    orgId: calc.orgId,
    org: calc.org,
    year,
    month: mc.month,
    pool: mc.pool,
    exposure: mc.exposure,
    avgPoolYtd: mc.exposure / mc.month,
    projectedAvg: (mc.exposure + mc.pool * (12 - mc.month)) / 12,
  };
  for (const kind of kinds) kindCells(kind, mc.month, mc.exposure, orgFigures(calc, mc, kind), row);
  row.rateSource = calc.rates.source;
  row.flags = mc.flags.length === 0 ? null : mc.flags.join(';');
  row.program = calc.rates.program;
  row.agency = calc.rates.agency;
  row.eligibleAll = input?.eligibleAll ?? null;
  row.randomPickDocument = input?.randomPickDocument ?? null;
  row.coveredEmployeeDocument = input?.coveredEmployeeDocument ?? null;
  row.misReportDocument = input?.misReportDocument ?? null;
  row.picksNotCompleted = mc.picksNotCompleted;
  row.orgMonthId = input?.id ?? null;
  row.label = input?.label ?? null;
  return row;
}

export function ytdRow(calc: OrgCalc, year: number): Row {
  const last = calc.months[calc.months.length - 1] as MonthCalc;
  const flagCounts = new Map<string, number>();
  for (const mc of calc.months) for (const f of mc.flags) flagCounts.set(f, (flagCounts.get(f) ?? 0) + 1);
  const row = detailRow(calc, last, year);
  delete row.month;
  const quarters = calc.months.flatMap((mc) =>
    mc.flags.filter((f) => f.startsWith('NO_SELECTION_')).map((f) => f.slice('NO_SELECTION_'.length)),
  );
  // Picks of the through-month may still be collected: the months before it are the ones whose
  // picks were never completed (problems.ts names the same months).
  const ended = calc.months.filter((mc) => mc.month < last.month);
  return {
    ...row,
    picksNotCompleted: ended.reduce((sum, mc) => sum + mc.picksNotCompleted, 0),
    monthsPicksNotCompleted: ended.filter((mc) => mc.picksNotCompleted > 0).length,
    quartersWithoutSelection: quarters.length === 0 ? null : quarters.join(';'),
    // Months with an OrgMonth row and no list (a month before the employer joined needs none).
    monthsWithoutCoveredList: calc.months.filter(
      (mc) => mc.input !== undefined && mc.input.coveredEmployeeDocument == null,
    ).length,
    unreadableLabels: calc.unreadableLabels ?? 0,
    problems: problemsCell(namedProblems(calc)),
    randomPickDocuments: calc.months.filter((mc) => mc.input?.randomPickDocument != null).length,
    misReportDocument:
      calc.months.map((mc) => mc.input?.misReportDocument ?? null).findLast((d) => d !== null) ?? null,
    throughMonth: last.month,
    flags: flagCounts.size === 0 ? null : [...flagCounts].map(([f, n]) => `${f}(${n})`).join(';'),
  };
}

/**
 * The total of a program's orgs (DOT, non-DOT and orgs without policy are never added together).
 * Picks and completions of a kind count only for orgs with a target of that kind, so the counts
 * and the targets they are read against cover the same orgs.
 */
export function totalRow(calcs: OrgCalc[], program: Program, year: number, m: number): Row {
  const row: Row = { org: `Total ${programLabel[program]}`, program, year, throughMonth: m };
  for (const kind of kinds) {
    let picked = 0;
    let completed = 0;
    let target = 0;
    let expected = 0n;
    for (const { f } of withTargets(calcs, kind)) {
      picked += f.pickedYtd;
      completed += f.completedYtd;
      target += f.target;
      expected += f.expectedNum;
    }
    row[`${kind}PickedYtd`] = picked;
    row[`${kind}CompletedYtd`] = completed;
    row[`${kind}AnnualTarget`] = target;
    row[`${kind}ExpectedToDate`] = expectedValue(expected);
  }
  row.exposure = calcs.reduce((sum, c) => sum + (c.months[c.months.length - 1] as MonthCalc).exposure, 0);
  return row;
}

/** Each org's figures of a kind at its last month, for the orgs with a target of that kind. */
function withTargets(
  calcs: OrgCalc[],
  kind: Kind,
): { last: MonthCalc; f: KindFigures & { target: number; expectedNum: bigint } }[] {
  const out: { last: MonthCalc; f: KindFigures & { target: number; expectedNum: bigint } }[] = [];
  for (const calc of calcs) {
    const last = calc.months[calc.months.length - 1] as MonthCalc;
    const f = orgFigures(calc, last, kind);
    if (f.target !== null && f.expectedNum !== null)
      out.push({ last, f: { ...f, target: f.target, expectedNum: f.expectedNum } });
  }
  return out;
}

const programLabel: Record<Program, string> = {
  DOT: 'DOT',
  NON_DOT: 'non-DOT',
  UNKNOWN: 'without policy',
};
