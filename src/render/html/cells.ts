import { instantsInWords, instantWords } from '../../dates.js';
import { formatCents } from '../../util/money.js';
import type { Column } from '../types.js';
import {
  booleanOf,
  type CellPlace,
  centsOf,
  dateOf,
  decimalsOf,
  integerOf,
  isoSecondOf,
  numberOf,
  rawTextOf,
} from '../values.js';
import { esc, groupDigits } from './escape.js';
import { cellInWords } from './words.js';

/** toFixed without "-0.0" (as the CSV writes numbers). */
export function fixed(value: number, decimals: number): string {
  const s = value.toFixed(decimals);
  return s.charCodeAt(0) === 0x2d && Number(s) === 0 ? s.slice(1) : s;
}

/**
 * How a column's values read in the page: the CSV's figures (money to the cent, percent in
 * percent with the column's decimals, numbers with its decimals), money with thousands
 * separators, text as it is (escaped: a page is not a spreadsheet, so nothing is
 * neutralised). Checked by the same rules as the CSV and the xlsx (values.ts).
 */
export function htmlCell(
  column: Column,
  zone = 'UTC',
): (value: string | number | boolean, place: CellPlace) => string {
  switch (column.type) {
    case 'string': {
      const words = column.words;
      // Words for people (codes in words, instants to the second with the zone named), the
      // cell's text in the title (what the CSV holds).
      return (v, p) => {
        const code = rawTextOf(v, p);
        const said = instantsInWords(words === undefined ? code : cellInWords(code, words), zone);
        return said === code ? esc(code) : `<span title="${esc(code)}">${esc(said)}</span>`;
      };
    }
    case 'integer':
      return (v, p) => String(integerOf(v, p)); // ids and years: no separators
    case 'number': {
      const d = decimalsOf(column);
      return (v, p) => fixed(numberOf(v, p), d);
    }
    case 'percent': {
      const d = decimalsOf(column);
      return (v, p) => `${fixed(numberOf(v, p) * 100, d)}%`;
    }
    case 'money':
      return (v, p) => groupDigits(formatCents(centsOf(v, p)));
    case 'date':
      return (v, p) => {
        dateOf(v, p);
        return esc(v);
      };
    case 'datetime':
      // To the second in the reporting zone, named; the ISO instant (the CSV's) in the title.
      return (v, p) => {
        const iso = isoSecondOf(v, p);
        return `<span title="${esc(iso)}">${esc(instantWords(Date.parse(iso), zone))}</span>`;
      };
    case 'boolean':
      return (v, p) => (booleanOf(v, p) ? 'yes' : 'no');
  }
}

/** Numbers right-aligned (tabular figures), text left. */
export const isNumeric = (c: Column) => ['integer', 'number', 'percent', 'money'].includes(c.type);

export { alertOf } from '../alert.js';
