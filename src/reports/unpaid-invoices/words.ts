import type { CodeWords } from '../../render/types.js';

/**
 * The codes of unpaid invoices in words (its Flags column's; VOID is said there alone, being also
 * the name of a sheet the warnings point to).
 */
export const unpaidInvoicesWords: CodeWords = {
  NO_DUE_DATE: 'no due date: aged from the invoice date',
  BAD_DUE_DATE: 'due date unreadable: aged from the invoice date',
  DATA_CHECK: 'due before its invoice date',
  BAD_LATE_FEE: 'late fee unreadable',
};

/** The Flags column's words: the report's, and VOID. */
export const flagWords: CodeWords = { ...unpaidInvoicesWords, VOID: 'cancelled' };
