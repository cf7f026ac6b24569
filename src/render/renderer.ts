import type { PageSummary, ReportSummary } from './html/summary.js';
import type { Column, Row, Sheet } from './types.js';

export type ReportFormat = 'xlsx' | 'csv' | 'html';

/** The detail sheet's shape, known before its first row. */
export interface DetailLayout {
  name: string;
  columns: Column[];
  subtotals?: Sheet['subtotals'];
  totals?: Sheet['totals'];
  print?: Sheet['print'];
  anchors?: Sheet['anchors'];
}

/** How the CSV reads: config `reports.csv` (its defaults in config/default.json). */
export interface CsvSettings {
  /** A UTF-8 byte order mark first, so Excel reads "Peña" right. */
  bom: boolean;
  /** `,` (RFC 4180) or `;` (Excel in locales whose decimal separator is a comma). */
  delimiter: ',' | ';';
  /** Text beginning with = + - @, tab or CR gets a leading `'` (formula injection). */
  neutralise: boolean;
}

/** What follows the detail rows; read once the detail is done. */
export interface RenderTail {
  /** Their rows, like the detail's, can be read once: only the xlsx renderer reads them. */
  summaries: Sheet[];
  warnings: string[];
  /** Key/value lines of the About sheet, in order. */
  about: [string, string][];
  /** The report's verdict, computed once (writeReport): every format shows this one. */
  summary: ReportSummary;
  /** The page's charts and first list, from the same computation (the report's builder). */
  page?: PageSummary;
}

/**
 * One output format. `writeReport` opens every renderer asked for, feeds each detail row to all of
 * them in one pass over the rows (which can be read only once), then finishes them. A renderer
 * writes to the path it was opened on; making that file appear whole or not at all is the
 * caller's job (temporary name, rename at the end).
 */
export interface Renderer {
  readonly format: ReportFormat;
  /**
   * Writes one detail row. Returns a promise only when the output is behind and the caller must
   * wait before the next row (backpressure), so that memory stays bounded; else `undefined`, so
   * that a synchronous source costs no promise per row. Throws RenderValueError for a value
   * that does not fit its column.
   */
  write(row: Row): Promise<void> | undefined;
  /** After the last detail row: writes what the format keeps of the tail, and closes the file. */
  finish(tail: RenderTail): Promise<void>;
  /** After a failure: stops writing and closes the file (which the caller removes). Never rejects. */
  abort(): Promise<void>;
}
