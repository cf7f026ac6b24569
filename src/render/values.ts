import { RenderValueError } from './errors.js';
import type { CellType, Column } from './types.js';

/**
 * What both renderers share about cell values: reading each type's value as the report contract
 * (types.ts) gives it, checking it, and neutralising text that a spreadsheet would run as a formula.
 */
export type CellValue = string | number | boolean | null | undefined;

/** Where a value came from, for the message of a RenderValueError. */
export interface CellPlace {
  sheet: string;
  /** 1-based data row (the header is not counted). */
  row: number;
  column: Column;
}

export function invalid(place: CellPlace, expected: string, value: unknown): RenderValueError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value);
  return new RenderValueError(
    `sheet '${place.sheet}', row ${place.row}, column '${place.column.key}' (${place.column.type}): expected ${expected}, got ${shown}`,
  );
}

/**
 * Formula injection (OWASP "CSV injection"): a spreadsheet reads text beginning with `=`, `+`,
 * `-`, `@`, a tab or a carriage return as a formula, and a field is cut into cells wherever the
 * reader's separator or a line break falls, in whichever dialect it is opened (`,` or `;`, a
 * `--csv-excel` file opened with `,`), so a `'` goes before such a character at the start of the
 * text AND after every line break, comma, semicolon or tab inside it (`Acme,=1+1` becomes
 * `Acme,'=1+1`); Excel, LibreOffice and Sheets then show it as text. NUL and the other control
 * characters are dropped (`stripControls`). Only text is touched, never a number.
 */
export function neutralise(text: string): string {
  return stripControls(text).replace(/(?<=^|[\n\r,;\t])(?=[=+\-@\t\r])/g, "'");
}

/**
 * Text without NUL and the other control characters (C0 but tab, LF and CR; DEL; C1): they end
 * strings in C readers, are not allowed in XML, and carry terminal escape sequences.
 */
export function stripControls(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, '');
}

/**
 * Text of a 'string' cell. Numbers and booleans are accepted (a numeric id in a text column) and
 * written as they print; they are not text from the data, so they are not neutralised.
 */
export function textOf(value: string | number | boolean, place: CellPlace): string {
  if (typeof value === 'string') return neutralise(value);
  return rawTextOf(value, place);
}

/**
 * Text as it is: the xlsx stores text in a typed string cell, which a spreadsheet never runs as
 * a formula, so a leading `'` there would only show as part of the name.
 */
export function rawTextOf(value: string | number | boolean, place: CellPlace): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw invalid(place, 'text', value);
  return typeof value === 'string' ? stripControls(value) : String(value);
}

export function numberOf(value: string | number | boolean, place: CellPlace): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(place, 'a finite number', value);
  return value;
}

export function integerOf(value: string | number | boolean, place: CellPlace): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(place, 'an integer', value);
  return value;
}

/** Money is whole cents (so sums are exact); anything else is a bug in the report. */
export function centsOf(value: string | number | boolean, place: CellPlace): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(place, 'whole cents', value);
  return value;
}

/** Booleans; 0 and 1 are accepted too, as SQLite (which has no boolean) returns them. */
export function booleanOf(value: string | number | boolean, place: CellPlace): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 0 || value === 1) return value === 1;
  throw invalid(place, 'a boolean', value);
}

/** The number written in `text[from, to)` if it is all ASCII digits, else -1. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Milliseconds since the epoch at 00:00 UTC of the date `text` starts with (YYYY-MM-DD), or
 * undefined if it is not a real date (2025-02-30). Parsed by hand: a report has a million of them.
 */
function dateMs(text: string): number | undefined {
  if (text.length < 10 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return undefined;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0))) return undefined;
  return Date.UTC(year, month - 1, day);
}

/** A 'YYYY-MM-DD' date as milliseconds since the epoch at 00:00 UTC; rejects 2025-02-30. */
export function dateOf(value: string | number | boolean, place: CellPlace): number {
  const ms = typeof value === 'string' && value.length === 10 ? dateMs(value) : undefined;
  if (ms === undefined) throw invalid(place, 'a date YYYY-MM-DD', value);
  return ms;
}

/**
 * Milliseconds of a timestamp in the canonical form `YYYY-MM-DDTHH:MM:SSZ` (what the CSV writes),
 * or undefined for any other form.
 */
function canonicalMs(text: string): number | undefined {
  if (text.length !== 20 || text.charCodeAt(10) !== 0x54 || text.charCodeAt(19) !== 0x5a) return undefined;
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return undefined;
  const day = dateMs(text);
  const h = digits(text, 11, 13);
  const m = digits(text, 14, 16);
  const s = digits(text, 17, 19);
  if (day === undefined || h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59) return undefined;
  return day + ((h * 60 + m) * 60 + s) * 1000;
}

// Date, time with optional seconds and fraction, optional zone; 'T' or a space (SQLite's
// datetime()) between date and time.
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO 8601 timestamp as milliseconds since the epoch. One without a zone is read as UTC (the
 * contract says timestamps are UTC), never as the local time JavaScript would assume.
 */
export function datetimeOf(value: string | number | boolean, place: CellPlace): number {
  if (typeof value !== 'string') throw invalid(place, 'an ISO 8601 timestamp', value);
  const canonical = canonicalMs(value);
  if (canonical !== undefined) return canonical;
  const m = DATETIME.exec(value);
  // Date.parse would roll 2025-02-30 over to March: the date part is checked on its own.
  if (m === null || dateMs(m[1] ?? '') === undefined) throw invalid(place, 'an ISO 8601 timestamp', value);
  const ms = Date.parse(`${m[1]}T${m[2]}${m[3] === undefined ? 'Z' : m[3].toUpperCase()}`);
  if (Number.isNaN(ms)) throw invalid(place, 'an ISO 8601 timestamp', value);
  return ms;
}

/** A timestamp as the CSV writes it: ISO 8601 UTC to the second, `2025-06-10T12:00:00Z`. */
export function isoSecondOf(value: string | number | boolean, place: CellPlace): string {
  if (typeof value === 'string' && canonicalMs(value) !== undefined) return value;
  return `${new Date(datetimeOf(value, place)).toISOString().slice(0, 19)}Z`;
}

/** Decimals shown for a column: 'number' 2 unless given, 'percent' 1 (in percent), money 2. */
export function decimalsOf(column: Column): number {
  const fallback: Partial<Record<CellType, number>> = { number: 2, percent: 1, money: 2 };
  const d = column.type === 'money' ? 2 : (column.decimals ?? fallback[column.type] ?? 0);
  if (!Number.isInteger(d) || d < 0 || d > 10)
    throw new RenderValueError(`column '${column.key}': decimals must be an integer from 0 to 10, got ${d}`);
  return d;
}
