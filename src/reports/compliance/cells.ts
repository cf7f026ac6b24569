import type { Row } from '../../render/types.js';
import {
  annualTarget,
  type ComplianceStatus,
  derive,
  expectedNumerator,
  ratePercent,
  statusOf,
  weightedTarget,
} from './math.js';
import { ASSUMED, type Kind, type KindFigures, kinds, type MonthCalc, type OrgCalc } from './model.js';

/** The cells of a kind, in their column order: `${kind}${name}`. */
const CELLS = [
  'Rate',
  'Picked',
  'Completed',
  'PickedYtd',
  'CompletedYtd',
  'ExpectedToDate',
  'AnnualTarget',
  'Status',
  'Shortfall',
  'Remaining',
  'NeededPerMonth',
  'AnnualizedRate',
  'CompletionRatio',
] as const;
type Cell = (typeof CELLS)[number];

/**
 * Each kind's cell names, made once: a compliance run writes these cells for every org, month and
 * kind, and building the names anew each time (template keys in an object literal, then spread into
 * the row) was the largest single cost of `ohs report compliance` (5% of its CPU, 9% of `report all`).
 */
const NAMES = Object.fromEntries(
  kinds.map((kind) => [kind, Object.fromEntries(CELLS.map((c) => [c, `${kind}${c}`]))]),
) as Record<Kind, Record<Cell, string>>;

/** Writes the cells of one test kind through month m into `row` (a new row when none is given). */
export function kindCells(kind: Kind, m: number, exposure: number, f: KindFigures, row: Row = {}): Row {
  const n = NAMES[kind];
  row[n.Rate] = f.ratePercent;
  row[n.Picked] = f.picked;
  row[n.Completed] = f.completed;
  row[n.PickedYtd] = f.pickedYtd;
  row[n.CompletedYtd] = f.completedYtd;
  if (f.target === null || f.expectedNum === null) {
    row[n.ExpectedToDate] = null;
    row[n.AnnualTarget] = null;
    row[n.Status] = f.noRate;
    row[n.Shortfall] = null;
    row[n.Remaining] = null;
    row[n.NeededPerMonth] = null;
    row[n.AnnualizedRate] = null;
    row[n.CompletionRatio] = f.pickedYtd === 0 ? null : f.completedYtd / f.pickedYtd;
    return row;
  }
  const d = derive(m, exposure, f.target, f.expectedNum, f.pickedYtd, f.completedYtd);
  const status: ComplianceStatus = statusOf(
    m,
    f.target,
    f.expectedNum,
    f.pickedYtd,
    f.completedYtd,
    exposure,
  );
  row[n.ExpectedToDate] = d.expectedToDate;
  row[n.AnnualTarget] = f.target;
  row[n.Status] = f.assumed && status !== 'N/A' ? `${status}${ASSUMED}` : status;
  row[n.Shortfall] = d.shortfall;
  row[n.Remaining] = d.remaining;
  row[n.NeededPerMonth] = d.neededPerMonth;
  row[n.AnnualizedRate] = d.annualizedRate;
  row[n.CompletionRatio] = d.completionRatio;
  return row;
}

/** An org's own figures of a kind at a month. */
export function orgFigures(calc: OrgCalc, mc: MonthCalc, kind: Kind): KindFigures {
  // The month's own rate when months are scored by the policy in force for each (month-rates.ts).
  const units = mc.units === undefined ? calc.rates[kind] : mc.units[kind];
  const has = units !== null && units > 0n;
  const weighted = mc.weighted?.[kind];
  return {
    ...mc[kind],
    ratePercent: units === null ? null : ratePercent(units),
    target: has
      ? weighted === undefined
        ? annualTarget(units, mc.exposure, mc.pool, mc.month)
        : weightedTarget(weighted, units, mc.pool, mc.month)
      : null,
    expectedNum: has ? (weighted ?? expectedNumerator(units, mc.exposure)) : null,
    noRate: kind === 'drug' ? 'NO_RATE' : 'N/A',
    assumed: calc.rates.assumed,
  };
}
