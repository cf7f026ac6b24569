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
import { ASSUMED, type Kind, type KindFigures, type MonthCalc, type OrgCalc } from './model.js';

export function kindCells(kind: Kind, m: number, exposure: number, f: KindFigures): Row {
  const row: Row = {
    [`${kind}Rate`]: f.ratePercent,
    [`${kind}Picked`]: f.picked,
    [`${kind}Completed`]: f.completed,
    [`${kind}PickedYtd`]: f.pickedYtd,
    [`${kind}CompletedYtd`]: f.completedYtd,
  };
  if (f.target === null || f.expectedNum === null) {
    return {
      ...row,
      [`${kind}ExpectedToDate`]: null,
      [`${kind}AnnualTarget`]: null,
      [`${kind}Status`]: f.noRate,
      [`${kind}Shortfall`]: null,
      [`${kind}Remaining`]: null,
      [`${kind}NeededPerMonth`]: null,
      [`${kind}AnnualizedRate`]: null,
      [`${kind}CompletionRatio`]: f.pickedYtd === 0 ? null : f.completedYtd / f.pickedYtd,
    };
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
  return {
    ...row,
    [`${kind}ExpectedToDate`]: d.expectedToDate,
    [`${kind}AnnualTarget`]: f.target,
    [`${kind}Status`]: f.assumed && status !== 'N/A' ? `${status}${ASSUMED}` : status,
    [`${kind}Shortfall`]: d.shortfall,
    [`${kind}Remaining`]: d.remaining,
    [`${kind}NeededPerMonth`]: d.neededPerMonth,
    [`${kind}AnnualizedRate`]: d.annualizedRate,
    [`${kind}CompletionRatio`]: d.completionRatio,
  };
}

export function poolCells(m: number, pool: number, exposure: number): Row {
  return {
    pool,
    exposure,
    avgPoolYtd: exposure / m,
    projectedAvg: (exposure + pool * (12 - m)) / 12,
  };
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
