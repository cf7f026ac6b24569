import { ASSUMED } from '../compliance/model.js';
import type { Selection } from './plan.js';

/** The About sheet's rules of the plan (what each figure is, and each verdict's rule). */
export function planRules(selection: Selection): [string, string][] {
  const unit = selection === 'quarterly' ? 'quarters' : 'months';
  return [
    [
      'Figures',
      "From the compliance report's own figures at its through-month (the same rows, targets and rates): completed YTD, annual target, pending = picked YTD − completed YTD (picks whose result is not in yet)",
    ],
    ['Needed', 'needed = max(0, annual target − completed YTD − pending)'],
    [
      'Selection periods',
      `options.selectionPeriod = ${selection}: periods left = the ${unit} after the through-month (a quarter whose first month has passed has had its selection); the mirror's policies hold no selection frequency, so the option sets it for every employer`,
    ],
    ['Per period', 'perPeriod = ceil(needed ÷ periods left)'],
    [
      'Pace',
      'picks per period so far = picked YTD ÷ periods done; tests at year end = that × periods a year; year-end rate = those tests ÷ the projected average pool of the year (compliance: the months passed, and the last pool for the months left)',
    ],
    [
      'Verdict',
      'N/A: no rate of the kind, or no pool so far; ON_PACE: nothing needed, or the pace reaches the target; CANNOT_MEET: needed > 0 with no period left, or perPeriod above the average pool of the months passed; NEEDS_MORE: otherwise (perPeriod shows how many a period)',
    ],
    [
      'Assumed rates',
      `An employer without a policy (or a DOT policy without an agency) is planned on the default rates: its verdict reads "...${ASSUMED}", is not coloured as a measured finding, and never counts as on pace in the verdict of the report`,
    ],
    [
      'Order',
      'Most urgent first: CANNOT_MEET, NEEDS_MORE (most per period first), ON_PACE, N/A; measured before assumed',
    ],
  ];
}
