import type { OrgFacts } from './join.js';
import { KINDS } from './kinds.js';

/** Employers showing one kind of risk, and how many of them on an assumed rate. */
export interface KindCount {
  count: number;
  assumed: number;
}

/**
 * The accounts-at-risk report's typed product: its employers, those at risk, the oldest bucket's
 * balance over them (cents), the employers scored on an assumed rate or with no compliance row,
 * each kind's employers, and the warnings of the joined reports. Its rows and sheets are views of
 * the same employers; its page reads this, never a sheet by its name.
 */
export interface AtRiskProduct {
  employers: number;
  atRisk: number;
  overdue: number;
  assumed: number;
  none: number;
  kinds: ReadonlyMap<string, KindCount>;
  joinedWarnings: number;
}

/** The product of the employers joined, each with its kinds. */
export function atRiskProduct(
  employers: readonly { f: OrgFacts; kinds: readonly string[] }[],
  joinedWarnings: number,
): AtRiskProduct {
  const kinds = new Map<string, KindCount>();
  const p = { employers: employers.length, atRisk: 0, overdue: 0, assumed: 0, none: 0 };
  for (const { f, kinds: list } of employers) {
    const basis = f.compliance === null ? 'none' : f.compliance.assumed ? 'assumed' : 'measured';
    if (basis === 'assumed') p.assumed++;
    if (basis === 'none') p.none++;
    if (list.length > 0) {
      p.atRisk++;
      p.overdue += f.invoices?.oldBucket ?? 0;
    }
    for (const k of list) {
      const c = kinds.get(k) ?? { count: 0, assumed: 0 };
      c.count++;
      // TESTING_UNPAID rests on A/R and orders only, never on a rate.
      if (k !== KINDS.TESTING_UNPAID && basis === 'assumed') c.assumed++;
      kinds.set(k, c);
    }
  }
  return { ...p, kinds, joinedWarnings };
}
