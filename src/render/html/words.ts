/**
 * The words a person reads for the codes that reach a verdict, a problem line, a figure's label,
 * a headline or the dashboard: one mapping, used by the verdict's maker (report-summary.ts) and
 * the dashboard. Table cells keep their codes in the CSV and the workbook (they are data); a
 * page shows a column's codes in words through the column's own `words` (a code such as
 * DATA_CHECK means one thing per report, so those stay with their columns), and
 * test/render/words.test.ts holds this mapping to them where both name a code.
 */
export const codeWords: Readonly<Record<string, string>> = {
  // Program statuses (compliance) and catch-up verdicts.
  MET: 'met',
  NOT_MET: 'not met',
  ON_TRACK: 'on track',
  PENDING_RESULTS: 'pending results',
  AT_RISK: 'at risk',
  BEHIND: 'behind',
  NO_RATE: 'no rate',
  CANNOT_MEET: 'cannot meet',
  NEEDS_REVIEW: 'needs review',
  NEEDS_MORE: 'needs more',
  ON_PACE: 'on pace',
  // Kinds of risk (accounts at risk).
  STOPPED_TESTING: 'stopped testing',
  TESTING_UNPAID: 'testing unpaid',
  ON_HOLD_AND_BEHIND: 'on hold and behind',
  // Order flags and stages.
  STUCK: 'stuck',
  AT_LAB: 'at the lab',
  ON_HOLD: 'on hold',
  // Outcomes of a sync, a stream or a job.
  ok: 'OK',
  failed: 'failed',
  interrupted: 'interrupted',
  incomplete: 'incomplete',
  running: 'running',
};

/**
 * A code token: capitals, digits and underscores, or a lower-case outcome alone. Only tokens the
 * mapping names are replaced: an error code (AS_OF_BEFORE_HISTORY), a bucket (91+) or a word
 * that happens to be in capitals (A/R, CSV) stays as it is.
 */
const token = /\b[A-Z][A-Z0-9_]*[A-Z0-9]\b/g;

/** `text` with each code the mapping names in words ("249 STOPPED_TESTING" → "249 stopped testing"). */
export function inWords(text: string): string {
  return text.replace(token, (code) => codeWords[code] ?? code);
}

/** One code or outcome in words, the code itself when the mapping has none. */
export function wordsOf(code: string): string {
  return codeWords[code] ?? inWords(code);
}

/** A label's words with a capital first letter ("STOPPED_TESTING" → "Stopped testing"). */
export function labelOf(text: string): string {
  const said = inWords(text);
  return /^[a-z]/.test(said) ? `${said.charAt(0).toUpperCase()}${said.slice(1)}` : said;
}
