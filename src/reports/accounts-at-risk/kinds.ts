import { DAY, parseInstant } from '../../dates.js';
import type { OrgFacts } from './join.js';
import type { AccountsAtRiskOptions } from './options.js';

export const KINDS = {
  STOPPED_TESTING: 'STOPPED_TESTING',
  TESTING_UNPAID: 'TESTING_UNPAID',
  ON_HOLD_AND_BEHIND: 'ON_HOLD_AND_BEHIND',
} as const;

/** Each kind's rule in words, with the thresholds in force (the About sheet and the docs). */
export function kindRules(opts: AccountsAtRiskOptions, oldLabel: string): [string, string][] {
  const behind = opts.behindStatuses.join(', ');
  return [
    [
      KINDS.STOPPED_TESTING,
      `behind (the worse of drug and alcohol compliance is ${behind}) and no drug or alcohol order created in the ${opts.recentOrderDays} days before the as-of instant`,
    ],
    [
      KINDS.TESTING_UNPAID,
      `a ${oldLabel} balance above ${opts.unpaidAbove.toFixed(2)} and a drug or alcohol order created in the ${opts.recentOrderDays} days before the as-of instant`,
    ],
    [KINDS.ON_HOLD_AND_BEHIND, `an open order on hold (stage ON_HOLD) and behind (${behind})`],
  ];
}

/** The kinds of risk of one employer, and the figures they rest on. */
export function kindsOf(
  f: OrgFacts,
  opts: AccountsAtRiskOptions,
  instantMs: number,
): { kinds: string[]; behind: boolean; recent: boolean; daysSinceOrder: number | null } {
  const behind =
    f.compliance !== null && (opts.behindStatuses as readonly string[]).includes(f.compliance.status);
  const last = f.orders.lastDrugAlcohol === null ? null : parseInstant(f.orders.lastDrugAlcohol, 'UTC');
  const recent = last !== null && instantMs - last <= opts.recentOrderDays * DAY;
  const kinds: string[] = [];
  if (behind && !recent) kinds.push(KINDS.STOPPED_TESTING);
  if ((f.invoices?.oldBucket ?? 0) > Math.round(opts.unpaidAbove * 100) && recent)
    kinds.push(KINDS.TESTING_UNPAID);
  if (behind && f.orders.onHold > 0) kinds.push(KINDS.ON_HOLD_AND_BEHIND);
  return {
    kinds,
    behind,
    recent,
    daysSinceOrder: last === null ? null : Math.floor((instantMs - last) / DAY),
  };
}
