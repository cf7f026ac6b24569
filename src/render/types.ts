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

/**
 * The words a person reads for codes (`STOPPED_TESTING` → "stopped testing"): a report declares
 * its own (its folder's `words.ts`); a page and a verdict say its codes through them.
 */
export type CodeWords = Readonly<Record<string, string>>;

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
  /**
   * The column's exceptions, coloured red / amber in the xlsx (a fill on the cell, and the same
   * rule as conditional formatting) and on the page (a dot and the class): text equal to one of
   * `red` / `amber` (e.g. NOT_MET, STUCK / WARN), with `positive` any number above 0 (the 91+
   * bucket), with `nonZero` any number but 0 (a reconciliation check).
   */
  alert?: { red?: string[]; amber?: string[]; positive?: 'red' | 'amber'; nonZero?: 'red' | 'amber' };
  /**
   * HTML only: the words a page shows for the column's codes (a cell may hold several, separated
   * by `;`); the code stays in the cell's title, and the CSV and the xlsx keep the code.
   */
  words?: CodeWords;
  /**
   * HTML only: the key of a row value holding a link (a relative URL: another page's row of the
   * same as-of); the cell is shown as that link. The CSV and the xlsx keep the cell's text.
   */
  link?: string;
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
  /**
   * Total rows, shown bold in the xlsx: `'label'` (default) any row whose first text column
   * starts with "Total"; `'none'`: none.
   */
  totals?: 'label' | 'none';
  /** xlsx: wrap text cells, rows as tall as their lines (a one-page list with long cells). */
  wrap?: boolean;
  /**
   * xlsx only (the CSV stays one record per row): after each run of rows with the same `by`
   * value, a bold subtotal row summing the `sum` columns, labelled in the `label` column; a
   * grand total at the end. Running sums only, so the detail still streams.
   */
  subtotals?: { by: string; label: string; sum: string[]; skip?: { key: string; values: string[] } };
  /**
   * xlsx only: the print view of a wide sheet. Columns not in `columns` are grouped and
   * collapsed (shown with the outline's +; not printed); the first `titleColumns` columns are
   * frozen and repeated on every printed page.
   */
  print?: { columns: string[]; titleColumns: number };
  /**
   * HTML only: each row's id is `prefix` + its `key` value (`org-1001`), so another page can link
   * to the row (`compliance-2026-06-30.html#org-1001`).
   */
  anchors?: { key: string; prefix: string };
}

/**
 * The figures a report publishes typed, as a type of its own (cents for money, counts, epoch ms
 * for instants): its page summary, the dashboard's card and the run's controls read these, never
 * a sheet's row found by its label (the renderers only hand them on).
 */
export type Facts = object;

export interface ReportResult {
  /**
   * The files' name after the report's when the report decides it (the roll-forward: its
   * period's two ends); absent: the as-of date (and instant) the caller gives.
   */
  fileName?: string;
  /**
   * What the report covers when it is a period, not an instant (the roll-forward: "from … to …"):
   * the page's header and the dashboard's card say it in place of "As of …".
   */
  covers?: string;
  /** The detail rows: the CSV, and the xlsx sheet after the summaries. */
  detail: Sheet;
  /**
   * Summary sheets, first in the workbook (the first is where it opens); their rows may be
   * computed while the detail streams (they are read only once the detail is done).
   */
  summaries: () => Sheet[];
  /** Problems in the data, shown on a Warnings sheet (read after the detail is done). */
  warnings: () => string[];
  /** Lines of the About sheet besides the standard ones (report, as-of, sources, parameters). */
  about: () => [string, string][];
  /**
   * Its typed product (read once the detail is done): what its page, the dashboard, the run's
   * controls and the reports built on it read; absent: it publishes none.
   */
  facts?: () => Facts;
  /** Its Trend sheet (also among `summaries`, last), written again as a CSV of its own. */
  trend?: Sheet;
}
