/**
 * JSON numbers a double cannot hold (`1e309`, a 400-digit integer) are valid JSON that
 * `JSON.parse` turns into Infinity, which the mirror would then store as null: an invoice with
 * such a balance would silently leave the A/R report. Such a number is kept as its text instead
 * (the string "1e309"), which the record checks count as a wrong type and the reports list as
 * unreadable (docs/reports.md). Only a body that may hold one (an exponent of three digits or a
 * run of 309 digits) is scanned: the hot path is two regular-expression tests (mayHoldHugeNumber).
 */
const EXPONENT_3 = /[eE]\+?\d{3}/;
/** Sixteen digits spelt out: V8 scans for the run at once (0.2 ms a MB; `\d{309}` 1.4 ms a MB). */
const DIGITS_16 = /\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d\d/;
const DIGITS_309 = /\d{309}/;

/**
 * Whether a body may hold such a number: `/[eE]\+?\d{3}|\d{309}/`, tested as its parts (a run
 * of 309 digits is looked for only where one of 16 is), at a sixth of that one expression's CPU
 * (0.55 against 3.3 ms for 1.1 MB of records: three quarters of what JSON.parse takes).
 */
export function mayHoldHugeNumber(text: string): boolean {
  return EXPONENT_3.test(text) || (DIGITS_16.test(text) && DIGITS_309.test(text));
}

export function parseJsonKeepingHugeNumbers(text: string): unknown {
  if (!mayHoldHugeNumber(text)) return JSON.parse(text);
  return JSON.parse(quoteHugeNumbers(text));
}

/** The JSON text with every number outside strings that is not a finite double put in quotes. */
export function quoteHugeNumbers(text: string): string {
  const parts: string[] = [];
  let from = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // a string: skip to its closing quote, over escapes
      i++;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i++;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && /[0-9eE+\-.]/.test(text[j] as string)) j++;
      const token = text.slice(i, j);
      if (!Number.isFinite(Number(token))) {
        parts.push(text.slice(from, i), JSON.stringify(token));
        from = j;
      }
      i = j;
      continue;
    }
    i++;
  }
  if (from === 0) return text;
  parts.push(text.slice(from));
  return parts.join('');
}
