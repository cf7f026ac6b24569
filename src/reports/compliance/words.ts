import type { CodeWords } from '../../render/types.js';

/** The program statuses of a kind (drug, alcohol) in words. */
export const statusSaid: CodeWords = {
  MET: 'met',
  NOT_MET: 'not met',
  ON_TRACK: 'on track',
  PENDING_RESULTS: 'pending results',
  AT_RISK: 'at risk',
  BEHIND: 'behind',
  NO_RATE: 'no rate',
};

/** The catch-up plan's verdicts in words (the plan is compliance's: plan.ts). */
export const verdictSaid: CodeWords = {
  CANNOT_MEET: 'cannot meet',
  NOT_MET: 'not met',
  NEEDS_REVIEW: 'needs review',
  NEEDS_MORE: 'needs more',
  ON_PACE: 'on pace',
  MET: 'met',
};

/** The flags of a row (a month's, or the months' of a year) in words. */
export const flagSaid: CodeWords = {
  NO_POLICY: 'no policy imported (assumed rate)',
  BELOW_AGENCY_MIN: "policy rate raised to its agency's minimum",
  DATA_CHECK: 'counts fail their check',
  DATA_GAP: 'month missing',
  NO_POOL: 'no pool',
  NO_RATE: 'no rate',
  PICKS_NOT_COMPLETED: 'picks never completed',
  NO_SELECTION_Q1: 'no selection in Q1',
  NO_SELECTION_Q2: 'no selection in Q2',
  NO_SELECTION_Q3: 'no selection in Q3',
  NO_SELECTION_Q4: 'no selection in Q4',
};

/** The programs of an employer in words (DOT stays: it is the agency's name). */
export const programSaid: CodeWords = { NON_DOT: 'non-DOT', UNKNOWN: 'unknown' };

/**
 * Every code of compliance in words: its page, its verdict and the dashboard say them; the CSV
 * and the workbook keep the codes. The reports built on it (catch-up, accounts at risk) say its
 * codes with these words too.
 */
export const complianceWords: CodeWords = { ...statusSaid, ...verdictSaid, ...flagSaid, ...programSaid };
