import type { CodeWords } from '../../render/types.js';

/** The words the page shows for the stages (the code stays in the cell's title and the CSV). */
export const stageWords: CodeWords = {
  ORDERED: 'ordered',
  COLLECTED: 'collected',
  AT_LAB: 'at the lab',
  MRO: 'with the MRO',
  ON_HOLD: 'on hold',
  COMPLETE: 'complete',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
  OTHER: 'other (status not mapped)',
};

/** The words the page shows for the data flags of a row. */
export const dataFlagWords: CodeWords = {
  BAD_CREATED: 'creation time unreadable',
  SINCE_AFTER_AS_OF: 'status first seen after the as-of instant: time in status unknown',
  NO_HISTORY: 'no status history: in status at least since it was first synced',
};

/** A row's flag in words (the Flag column's, and the By org sheet's titles). */
export const flagSaid: CodeWords = { STUCK: 'stuck', WARN: 'past warning age', OK: 'OK' };

/**
 * Every code of order ageing in words, for its verdict, warnings, About lines and column titles
 * (the cells say theirs through their columns). MRO stays: it is a name (the medical review
 * officer), as the service's own status codes in the About lines are data.
 */
export const orderAgeingWords: CodeWords = {
  ...Object.fromEntries(Object.entries(stageWords).filter(([code]) => code !== 'MRO')),
  ...dataFlagWords,
  STUCK: 'stuck',
  WARN: 'past warning age',
};
