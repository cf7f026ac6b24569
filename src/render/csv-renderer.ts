import { pipeline } from 'node:stream/promises';
import { type Stringifier, stringify } from 'csv-stringify';
import { formatCents } from '../util/money.js';
import { exclusiveStream } from '../util/safe-file.js';
import type { CsvSettings, DetailLayout, Renderer } from './renderer.js';
import { drained } from './streams.js';
import type { Column, Row } from './types.js';
import {
  booleanOf,
  type CellPlace,
  type CellValue,
  centsOf,
  dateOf,
  decimalsOf,
  integerOf,
  isoSecondOf,
  numberOf,
  rawTextOf,
  textOf,
} from './values.js';

/**
 * The CSV of a report: the detail rows only, for machines and BI (docs/reports.md).
 *
 * - RFC 4180: CRLF after every record, the header included; a field is quoted when it holds a
 *   comma, a quote (doubled inside), or a CR or LF on its own (csv-stringify quotes only the whole
 *   record delimiter by itself, hence `quoted_match`).
 * - UTF-8 with a byte order mark unless `reports.csv.bom` is false: Excel opening the file by
 *   double-click decodes a CSV without one as the ANSI code page, so "Peña" or "Müller" show
 *   garbled. Programs that read the BOM as part of the first header (`\uFEFForgId`) can turn it
 *   off (`reports.csv.bom: false`). `reports.csv.delimiter: ";"` (or `--csv-excel`) writes the
 *   separator Excel expects in locales whose decimal separator is a comma.
 * - Header: the stable camelCase column keys. Values: dates `YYYY-MM-DD`; timestamps ISO 8601
 *   UTC to the second (`2025-06-10T12:00:00Z`); booleans `true`/`false`; money in units with two
 *   decimals and no currency sign (1250 cents -> `12.50`); percent in percent (0.5 -> `50.0`,
 *   Column.decimals, default 1: "rates in percent"); numbers with Column.decimals (default 2:
 *   "hours with one decimal" is decimals 1); integers as they are; null and undefined empty.
 * - Text beginning with = + - @, a tab or a CR gets a leading `'` (formula injection), unless
 *   `reports.csv.neutralise` is false (for programs that need the text exactly).
 */
export class CsvRenderer implements Renderer {
  readonly format = 'csv';
  private readonly stringifier: Stringifier;
  private readonly done: Promise<void>;
  private readonly keys: string[];
  private readonly cells: ((value: string | number | boolean, place: CellPlace) => string)[];
  private readonly places: CellPlace[];
  private failure: unknown;
  private rowNumber = 0;

  constructor(path: string, detail: DetailLayout, settings: CsvSettings) {
    this.keys = detail.columns.map((c) => c.key);
    this.cells = detail.columns.map((c) => csvCell(c, settings.neutralise));
    this.places = detail.columns.map((column) => ({ sheet: detail.name, row: 0, column }));
    this.stringifier = stringify({
      header: true,
      columns: this.keys,
      record_delimiter: 'windows',
      delimiter: settings.delimiter,
      quoted_match: /[\r\n]/,
      bom: settings.bom,
    });
    // Order ageing holds person names: the file is the owner's only, like the mirror.
    this.done = pipeline(this.stringifier, exclusiveStream(path, 0o600));
    // Kept for the next write or finish; a failure is never left unhandled.
    this.done.catch((err: unknown) => {
      this.failure ??= err;
    });
  }

  write(row: Row): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    this.rowNumber++;
    const record: string[] = new Array(this.keys.length);
    for (let i = 0; i < this.keys.length; i++) {
      const value: CellValue = row[this.keys[i]!];
      if (value === null || value === undefined) {
        record[i] = '';
      } else {
        const place = this.places[i]!;
        place.row = this.rowNumber;
        record[i] = this.cells[i]!(value, place);
      }
    }
    if (this.stringifier.write(record)) return undefined;
    return drained(this.stringifier, [this.stringifier]);
  }

  async finish(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    this.stringifier.end();
    await this.done;
  }

  async abort(): Promise<void> {
    this.stringifier.destroy();
    await this.done.catch(() => undefined);
  }
}

/** How a column's values read in CSV. */
function csvCell(
  column: Column,
  neutralise: boolean,
): (value: string | number | boolean, place: CellPlace) => string {
  switch (column.type) {
    case 'string':
      return neutralise ? textOf : rawTextOf;
    case 'integer':
      return (v, p) => String(integerOf(v, p));
    case 'number': {
      const d = decimalsOf(column);
      return (v, p) => fixed(numberOf(v, p), d);
    }
    case 'percent': {
      const d = decimalsOf(column);
      return (v, p) => fixed(numberOf(v, p) * 100, d);
    }
    case 'money':
      return (v, p) => formatCents(centsOf(v, p));
    case 'date':
      // Checked, then written as given: it already is YYYY-MM-DD.
      return (v, p) => {
        dateOf(v, p);
        return v as string;
      };
    case 'datetime':
      return isoSecondOf;
    case 'boolean':
      return (v, p) => (booleanOf(v, p) ? 'true' : 'false');
  }
}

/** toFixed without "-0.0" for a small negative that rounds to zero. */
function fixed(value: number, decimals: number): string {
  const s = value.toFixed(decimals);
  return s.charCodeAt(0) === 0x2d && Number(s) === 0 ? s.slice(1) : s;
}
