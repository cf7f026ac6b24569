import { ASSUMED } from '../compliance/model.js';
import type { Selection } from '../compliance/plan.js';

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
      `options.selectionPeriod = ${selection}: periods left = the ${unit} not yet ended after the through-month${selection === 'quarterly' ? ', the quarter under way among them while it has months to run (a supplemental draw can still be made in it)' : ''}; periods done = those ended since the employer joined (its first month with an OrgMonth row); the mirror's policies hold no selection frequency, so the option sets it for every employer`,
    ],
    ['Per period', 'perPeriod = ceil(needed ÷ periods left)'],
    [
      'Regular draw',
      'regular draw per period = rate × the pool now (the through-month) ÷ periods a year, beside perPeriod: the draw the employer would make anyway',
    ],
    [
      'Pace',
      'picks per period so far = picked YTD over the months since the employer joined, as periods; tests at year end = that pace carried to December; year-end rate = those tests ÷ the projected average pool of the year (compliance: the months passed, and the pool now for the months left)',
    ],
    [
      'Verdict',
      'N/A: no rate of the kind, or no pool so far. A closed year (its last month through: through-month 12; a past year asked as of a month inside it is planned as of that month): MET (completed reach the target) or NOT_MET. Otherwise ON_PACE: nothing needed, or the pace reaches the target; CANNOT_MEET: needed > 0 with no period left, or perPeriod above the pool now (testing every covered employee each period left still falls short; months before the employer joined never count); NEEDS_MORE: otherwise (perPeriod shows how many a period). NEEDS_REVIEW replaces ON_PACE or MET where a data problem is named for the employer (a month with no OrgMonth row, a label that is no month, a quarter with no selection, DATA_CHECK)',
    ],
    [
      'Problems',
      'Column Problems names what the compliance report names for the employer (data problems and evidence gaps, the same rule in both reports); while any employer has one, the report is never OK',
    ],
    [
      'Assumed rates',
      `An employer without a policy (or a DOT policy without an agency) is planned on the default rates: its verdict reads "...${ASSUMED}", is not coloured as a measured finding, and never counts as on pace in the verdict of the report`,
    ],
    [
      'Order',
      'Most urgent first: CANNOT_MEET, NOT_MET, NEEDS_REVIEW, NEEDS_MORE (most per period first), ON_PACE, MET, N/A; measured before assumed',
    ],
  ];
}
