import type { CellType, Column } from './types.js';
import {
  booleanOf,
  type CellPlace,
  centsOf,
  dateOf,
  datetimeOf,
  decimalsOf,
  integerOf,
  numberOf,
  rawTextOf,
} from './values.js';
import type { XlsxValue } from './xlsx-value.js';

// The cells of a workbook: each column's values converted and formatted, widths, sheet names.

/** A value of the report as the workbook writer takes it. */
export type Convert = (value: string | number | boolean, place: CellPlace) => XlsxValue;
/** Excel's limit on the text of one cell; longer text makes Excel "repair" the file. */
const MAX_TEXT = 32767;
/** Widest column, characters; longer text wraps. */
const MAX_WIDTH = 60;
const typeWidth: Record<CellType, number> = {
  string: 8,
  integer: 6,
  number: 8,
  money: 12,
  percent: 7,
  date: 11,
  datetime: 17,
  boolean: 6,
};

/** A column's width: its longest title word, its type's minimum and its longest sampled value. */
export function widthOf(c: Column, sample: (XlsxValue | undefined)[][], i: number, wrap: boolean): number {
  if (wrap && c.width !== undefined) return c.width;
  const longestWord = Math.max(...c.title.split(/\s+/).map((w) => w.length));
  let data = 0;
  for (const values of sample) {
    const v = values[i];
    if (v === undefined) continue;
    const len =
      typeof v === 'string'
        ? v.length
        : typeof v === 'number'
          ? String(Math.round(v * 100) / 100).length + 2
          : v instanceof Date
            ? typeWidth[c.type]
            : 5;
    if (len > data) data = len;
  }
  // A title wraps onto at most three lines before it widens the column.
  const titleShare = Math.ceil(c.title.length / 3);
  return Math.min(MAX_WIDTH, Math.max(typeWidth[c.type], longestWord + 2, titleShare + 2, data + 2));
}

/** A (1-based) column number as its letters: 1 → A, 27 → AA. */
export function columnLetter(n: number): string {
  let s = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

export function xlsxCell(column: Column): Convert {
  switch (column.type) {
    case 'string':
      return (v, p) => clip(rawTextOf(v, p));
    case 'integer':
      return integerOf;
    case 'number':
    case 'percent':
      return numberOf;
    case 'money':
      return (v, p) => centsOf(v, p) / 100;
    case 'date':
      return (v, p) => new Date(dateOf(v, p));
    case 'datetime':
      return (v, p) => new Date(datetimeOf(v, p));
    case 'boolean':
      return booleanOf;
  }
}

export function numFmtOf(column: Column): string | undefined {
  const places = (d: number): string => (d === 0 ? '' : `.${'0'.repeat(d)}`);
  switch (column.type) {
    case 'integer':
      return '0';
    case 'number':
      return `#,##0${places(decimalsOf(column))}`;
    case 'money':
      return '#,##0.00';
    case 'percent':
      return `0${places(decimalsOf(column))}%`;
    case 'date':
      return 'yyyy-mm-dd';
    case 'datetime':
      return 'yyyy-mm-dd hh:mm';
    default:
      return undefined;
  }
}

/**
 * Text as a cell can hold it: at most Excel's 32767 characters, and line breaks as LF, Excel's own
 * in-cell break (a raw CR in the XML would be read back as LF anyway, by XML's end-of-line rule).
 */
export function clip(text: string): string {
  const lf = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  return lf.length <= MAX_TEXT ? lf : `${lf.slice(0, MAX_TEXT - 1)}…`;
}

/**
 * Excel's rules for sheet names: at most 31 characters, none of \ / ? * [ ] :, not starting or
 * ending with an apostrophe, unique regardless of case.
 */
export class SheetNames {
  private readonly taken = new Set<string>();

  take(wanted: string): string {
    const base =
      wanted
        .replace(/[\\/?*[\]:]/g, '_')
        .replace(/^'+|'+$/g, '')
        .trim()
        .slice(0, 31) || 'Sheet';
    let name = base;
    for (let n = 2; this.taken.has(name.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      name = `${base.slice(0, 31 - suffix.length)}${suffix}`;
    }
    this.taken.add(name.toLowerCase());
    return name;
  }
}
