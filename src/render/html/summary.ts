import { formatCents } from '../csv-renderer.js';
import type { Column, Row } from '../types.js';
import type { Chart } from './charts.js';
import { groupDigits } from './escape.js';

export { type Chart, palette, statusColour } from './charts.js';

/**
 * What a report's page summary is made of: the builder a report declares (its folder's
 * `html.ts`, src/reports/types.ts `html`), what it returns, and the few helpers the builders
 * share. Nothing here knows a report by name: the page of a report that declares no builder
 * shows its tables only.
 */

/** A summary sheet with its rows read (they are few: one per org or bucket). */
export interface ReadSheet {
  name: string;
  columns: Column[];
  rows: Row[];
}

export type Level = 'ok' | 'warn' | 'bad';

/** What the dashboard shows of a report: a few figures and a status. */
export interface Headline {
  report: string;
  title: string;
  asOf: string;
  status: Level;
  figures: { label: string; value: string }[];
}

/** A report's page summary: its headline figures, charts, and a short list shown first. */
export interface PageSummary {
  status: Level;
  figures: { label: string; value: string }[];
  charts: Chart[];
  /** Detail rows shown before the charts, in the detail's columns (order ageing: the stuck list). */
  first?: { title: string; rows: Row[]; more: number };
}

/**
 * The per-report part of the page: it sees every detail row as it streams (to count or keep a
 * few) and builds the summary from the summary sheets once the detail is done. A report declares
 * a function making one per page (`html` of its declaration).
 */
export interface SummaryBuilder {
  onRow(row: Row): void;
  build(sheets: ReadSheet[]): PageSummary;
}

/** A number cell's value; anything else (empty, text) is 0. */
export const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** Cents as the page shows money: `$1,234.50`. */
export const money = (cents: unknown) => `$${groupDigits(formatCents(num(cents)))}`;
/** A count with thousands separators. */
export const count = (n: number) => groupDigits(String(n));
/** The summary sheet of a name, if the report made one. */
export const sheet = (sheets: ReadSheet[], name: string) => sheets.find((s) => s.name === name);
/** A total row's label ("Total", "Total (all orgs)"). */
export const isTotal = (v: unknown) => typeof v === 'string' && /^Total/.test(v);

export function level(bad: boolean, warn: boolean): Level {
  return bad ? 'bad' : warn ? 'warn' : 'ok';
}

/**
 * The rows of a Trend sheet the mirror's history covers (no note), and the month ends it
 * omitted (a note: before the history begins).
 */
export function coveredMonthEnds(trend: ReadSheet | undefined): { covered: Row[]; omitted: string[] } {
  const rows = trend?.rows ?? [];
  const covered = rows.filter((r) => r.note === null || r.note === undefined || r.note === '');
  return { covered, omitted: rows.filter((r) => !covered.includes(r)).map((r) => String(r.monthEnd)) };
}

/** Stacked bars per month end of a Trend sheet (oldest first), stacked in `order`'s order. */
export function monthEndBars(
  values: Row[],
  y: Record<string, unknown>,
  color: Record<string, unknown>,
  order: string,
): Chart['spec'] {
  return {
    data: { values },
    width: 320,
    height: 180,
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'monthEnd', type: 'ordinal', title: null, sort: null },
      y,
      color,
      order: { field: order },
    },
  };
}
