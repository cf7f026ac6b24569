import type { CodeWords } from '../types.js';

/**
 * Codes said in words. A report declares the words a person reads for its codes (its folder's
 * `words.ts`, the declaration's `words`); the renderer reads them from there and knows no
 * report's codes. Table cells keep their codes in the CSV and the workbook (they are data); the
 * page shows a column's codes through the column's own `words`, and the report's verdict,
 * problems, figures, warnings, About lines and column titles through the report's `words`.
 */

/** The outcomes of a sync, a stream or a job (the mirror's ledger; no report's). */
const outcomes: CodeWords = {
  ok: 'OK',
  failed: 'failed',
  interrupted: 'interrupted',
  incomplete: 'incomplete',
  running: 'running',
};

/**
 * A code token: capitals, digits and underscores. Only tokens a report's words name are
 * replaced: an error code (AS_OF_BEFORE_HISTORY), a bucket (91+) or a word that happens to be
 * in capitals (A/R, CSV) stays as it is.
 */
const token = /\b[A-Z][A-Z0-9_]*[A-Z0-9]\b(\()?/g;

/**
 * `text` with each code `words` names in words ("249 STOPPED_TESTING" → "249 stopped testing"; a
 * count right after a code keeps a space: "NO_POLICY(11)" → "no policy (11)").
 */
export function inWords(text: string, words: CodeWords): string {
  return text.replace(token, (match: string, paren: string | undefined) => {
    const code = paren === undefined ? match : match.slice(0, -1);
    const said = words[code];
    if (said === undefined) return match;
    return paren === undefined ? said : `${said} (`;
  });
}

/** A label's words with a capital first letter ("STOPPED_TESTING" → "Stopped testing"). */
export function labelOf(text: string, words: CodeWords): string {
  const said = inWords(text, words);
  return /^[a-z]/.test(said) ? `${said.charAt(0).toUpperCase()}${said.slice(1)}` : said;
}

/**
 * A cell of a column with words: the whole cell's words, else each of its `;`-separated parts
 * said in words ("NO_POLICY(11); DATA_GAP(1)", "ON_TRACK (assumed rate)").
 */
export function cellInWords(text: string, words: CodeWords): string {
  const whole = words[text];
  if (whole !== undefined) return whole;
  if (!text.includes(';')) return inWords(text, words);
  return text
    .split(';')
    .map((part) => words[part.trim()] ?? inWords(part.trim(), words))
    .join('; ');
}

/** An outcome of a sync, a stream or a job in words, the outcome itself when it has none. */
export function outcomeWords(outcome: string): string {
  return outcomes[outcome] ?? outcome;
}
