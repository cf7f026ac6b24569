import type { CodeWords } from '../../render/types.js';
import { complianceWords } from '../compliance/words.js';
import { orderAgeingWords } from '../order-ageing/words.js';

/** The kinds of risk in words. */
export const kindWords: CodeWords = {
  STOPPED_TESTING: 'stopped testing',
  TESTING_UNPAID: 'testing unpaid',
  ON_HOLD_AND_BEHIND: 'on hold and behind',
};

/**
 * Every code of accounts at risk in words: its kinds, and the codes of the reports it joins that
 * its page repeats (compliance's statuses, an order's stage, their warnings).
 */
export const accountsAtRiskWords: CodeWords = { ...orderAgeingWords, ...complianceWords, ...kindWords };
