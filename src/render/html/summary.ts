import { formatCents } from '../../util/money.js';
import type { Column, Facts, Row } from '../types.js';
import type { Chart } from './charts.js';
import { groupDigits } from './escape.js';

export { type Chart, palette } from './charts.js';

/**
 * What a report's page summary is made of: the builder a report declares (its folder's
 * `html.ts`, src/reports/core/types.ts `html`), what it returns, and the few helpers the builders
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

/**
 * A headline figure: its label, its value, and what qualifies it (e.g. "1,394 on assumed rates"),
 * shown under the value, never inside it, so the value stays a figure.
 */
export interface Figure {
  label: string;
  value: string;
  note?: string;
}

/**
 * What part of a count rests on an assumed rate, said under its figure: "all on an assumed rate",
 * "1 on an assumed rate", "1,394 on assumed rates"; undefined when none does.
 */
export function assumedNote(n: number, assumed: number): string | undefined {
  if (assumed === 0 || n === 0) return undefined;
  if (assumed === n) return 'all on an assumed rate';
  return `${count(assumed)} on ${assumed === 1 ? 'an assumed rate' : 'assumed rates'}`;
}

/** A count as a figure: the number as its value, the part on an assumed rate as its note. */
export function countFigure(label: string, n: number, assumed = 0): Figure {
  const note = assumedNote(n, assumed);
  return { label, value: count(n), ...(note === undefined ? {} : { note }) };
}

/** When a report stands: the period it covers ("From … to …"), else "As of" its instant or date. */
export function whenOf(s: Pick<ReportSummary, 'covers' | 'instant' | 'asOf'>): string {
  if (s.covers !== undefined) return `${s.covers.charAt(0).toUpperCase()}${s.covers.slice(1)}`;
  return `As of ${s.instant ?? s.asOf}`;
}

/** A figure's `<div>` of a `<dl class="figures">`: label, value, and its qualifier under it. */
export function figureHtml(f: Figure, esc: (v: unknown) => string): string {
  return `<div><dt>${esc(f.label)}</dt><dd>${esc(f.value)}</dd>${f.note === undefined ? '' : `<dd class="qualifier">${esc(f.note)}</dd>`}</div>`;
}

/**
 * Reports' statuses counted for the verdict: per group (e.g. drug, alcohol, or the order flags),
 * how many carry each status and how many of them on an assumption (an assumed rate).
 */
export interface StatusCount {
  group: string;
  status: string;
  count: number;
  /** Of `count`, how many rest on an assumption (counted all the same). */
  assumed: number;
}

/**
 * A report's verdict, computed once per run (src/render/index.ts writeReport) from its builder:
 * the level and what it rests on. The page's badge, tiles and charts, the workbook's About lines,
 * the dashboard's card (the `NAME-ASOF.summary.json` sidecar of the page) and the command's line
 * all read this one object.
 */
export interface ReportSummary {
  report: string;
  title: string;
  asOf: string;
  /** The explicit instant (`--as-of-time`), ISO 8601 UTC; absent: the as-of date's own reading. */
  instant?: string;
  /** What a report of a period covers ("from … to …"), said in place of its as-of. */
  covers?: string;
  level: Level;
  /** The level in one line: what needs attention, or that nothing does. */
  verdict: string;
  figures: Figure[];
  counts: StatusCount[];
  /** What makes the level what it is, one line each (empty when OK). */
  problems: string[];
  rows: number;
  warnings: number;
  /**
   * One sentence a person reads first, where a report has one (the changes report: "since the
   * last run: 3 employers fell behind, 12 invoices passed 90 days"); the dashboard shows it.
   */
  headline?: string;
}

/** A report's page summary: its headline figures, charts, and a short list shown first. */
export interface PageSummary {
  status: Level;
  figures: Figure[];
  charts: Chart[];
  /** Statuses counted (drug / alcohol, flags), assumed ones included and said so. */
  counts?: StatusCount[];
  /** What makes the status what it is, one line each (empty or absent when OK). */
  problems?: string[];
  /** Detail rows shown before the charts, in the detail's columns (order ageing: the stuck list). */
  first?: { title: string; rows: Row[]; more: number };
  /** One sentence read first (ReportSummary `headline`). */
  headline?: string;
}

/**
 * The per-report part of the page: it sees every detail row as it streams (to count or keep a
 * few) and builds the summary from the report's typed product once the detail is done, never
 * from a sheet (it is handed none). A report declares a function making one per page (`html` of
 * its declaration).
 */
export interface SummaryBuilder<F extends Facts = Facts> {
  onRow(row: Row): void;
  /** `facts`: the report's typed product (its `facts`), the one source of what the page shows. */
  build(facts?: F): PageSummary;
}

/** A number cell's value; anything else (empty, text) is 0. */
export const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** Cents as the page shows money: `$1,234.50`; a credit `-$1,493.26` (the sign before the symbol). */
export const money = (cents: unknown) => {
  const c = num(cents);
  return `${c < 0 ? '-' : ''}$${groupDigits(formatCents(Math.abs(c)))}`;
};
/** A count with thousands separators. */
export const count = (n: number) => groupDigits(String(n));
/**
 * A count and its noun agreeing: "1 warning", "2 warnings", "1,200 rows" (`many` for nouns that
 * do not take an s: "1 employer's", "2 classes").
 */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function level(bad: boolean, warn: boolean): Level {
  return bad ? 'bad' : warn ? 'warn' : 'ok';
}

/** The words of a level: the badge, the dashboard's card and the terminal say the same. */
export const levelText: Record<Level, string> = { ok: 'OK', warn: 'Needs attention', bad: 'Action needed' };

/**
 * A count and how much of it rests on an assumption, in a line of words (a verdict's problem):
 * "350", "350, all on an assumed rate", "350, 120 on an assumed rate". A figure keeps the two
 * apart: countFigure.
 */
export function withAssumed(n: number, assumed: number, what = 'on an assumed rate'): string {
  if (assumed === 0 || n === 0) return count(n);
  return `${count(n)}, ${assumed === n ? 'all' : count(assumed)} ${what}`;
}

/**
 * The rows of a Trend sheet the mirror's history covers (no note), and the month ends it
 * omitted (a note: before the history begins).
 */
export function coveredMonthEnds(rows: readonly Row[]): { covered: Row[]; omitted: string[] } {
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
