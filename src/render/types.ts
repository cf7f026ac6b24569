/**
 * What a report hands to the renderers: sheets of typed columns and rows. Renderers are
 * generic (xlsx-renderer.ts, csv-renderer.ts); no report-specific code lives in src/render.
 */
export type CellType =
  | 'string'
  | 'integer'
  | 'number'
  | 'money'
  | 'percent'
  | 'date'
  | 'datetime'
  | 'boolean';

export interface Column {
  /** Stable camelCase key: the CSV header, and the row property. */
  key: string;
  /** Human title: the xlsx header. */
  title: string;
  type: CellType;
  /** xlsx column width in characters; a sensible one is chosen from the type when absent. */
  width?: number;
  /**
   * Number of decimals for 'number' (default 2) and 'percent' (default 1, counted in percent:
   * 0.125 with 1 decimal is 12.5%); 'money' always has 2. The xlsx keeps the full value and shows
   * these decimals (numFmt); the CSV writes the value rounded to them, percent in percent
   * ("hours with one decimal" is a 'number' with decimals 1; "rates in percent" is a 'percent').
   */
  decimals?: number;
}

/**
 * Cell values by type: string → string; integer/number → number; money → number of cents
 * (integer, so sums are exact) ; percent → number where 1 means 100%; date → 'YYYY-MM-DD';
 * datetime → ISO 8601 UTC; boolean → boolean. null or undefined is an empty cell.
 */
export type Row = Record<string, string | number | boolean | null | undefined>;

export interface Sheet {
  name: string;
  columns: Column[];
  /** Rows, streamed: a report of a million rows must not hold them all. */
  rows: Iterable<Row> | AsyncIterable<Row>;
}

export interface ReportResult {
  /** The detail rows: the CSV, and the first xlsx sheet. */
  detail: Sheet;
  /**
   * Summary sheets, written after the detail; their rows may be computed while the detail
   * streams (they are read only once the detail is done).
   */
  summaries: () => Sheet[];
  /** Problems in the data, shown on a Warnings sheet (read after the detail is done). */
  warnings: () => string[];
  /** Lines of the About sheet besides the standard ones (report, as-of, sources, parameters). */
  about: () => [string, string][];
}
