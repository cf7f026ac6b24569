import type { Row } from '../../render/types.js';
import type { Movement } from './movements.js';
import { RESULTS } from './payments.js';
import type { Period } from './period.js';

/** Each line's total over the invoices' rows, cents, by the line's key. */
export type Totals = Movement & {
  decreasesApplied: number;
  decreasesElsewhere: number;
  openingOwed: number;
  openingCredits: number;
  closingOwed: number;
  closingCredits: number;
};

/** Each check's difference (must be 0), cents. */
export interface Checks {
  lines: number;
  opening: number;
  closing: number;
  openingCredits: number;
  closingCredits: number;
}

/**
 * The roll-forward's typed figures (its page, the dashboard and the run's controls read these):
 * every line's amount in cents by its key, each check's difference, the payments' results and
 * the period's ends (epoch ms).
 */
export type RollforwardFacts = Totals & {
  checkLines: number;
  checkOpening: number;
  checkClosing: number;
  checkOpeningCredits: number;
  checkClosingCredits: number;
  paymentsMatched: number;
  paymentsNotSeen: number;
  paymentsDifferent: number;
  fromMs: number;
  toMs: number;
};

/**
 * The roll-forward's typed product: its figures, whether its period was shortened to the mirror's
 * history, and the Roll-forward sheet's rows (the lines in `LINES`' order after the Period row:
 * the workbook shows these same rows). Its page and the run's controls read this, never a sheet
 * or a line by its name. A period with no history publishes none.
 */
export type RollforwardProduct = RollforwardFacts & {
  shortened: boolean;
  lines: readonly Row[];
};

export function rollforwardFacts(
  total: Totals,
  checks: Checks,
  reconciliation: readonly Row[],
  period: Period,
): RollforwardFacts {
  const n = (result: string) => reconciliation.filter((p) => p.result === result).length;
  return {
    ...total,
    checkLines: checks.lines,
    checkOpening: checks.opening,
    checkClosing: checks.closing,
    checkOpeningCredits: checks.openingCredits,
    checkClosingCredits: checks.closingCredits,
    paymentsMatched: n(RESULTS.matched),
    paymentsNotSeen: n(RESULTS.notSeen),
    paymentsDifferent: n(RESULTS.different),
    fromMs: period.fromMs,
    toMs: period.toMs,
  };
}
