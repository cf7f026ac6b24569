import { createWriteStream, type WriteStream } from 'node:fs';
import ExcelJS from 'exceljs';
import type { DetailLayout, Renderer, RenderTail } from './renderer.js';
import { drained, type Emitter, forEachRow } from './streams.js';
import type { CellType, Column, Row } from './types.js';
import {
  booleanOf,
  type CellPlace,
  type CellValue,
  centsOf,
  dateOf,
  datetimeOf,
  decimalsOf,
  integerOf,
  neutralise,
  numberOf,
  textOf,
} from './values.js';

/**
 * The xlsx of a report through exceljs's streaming writer, so a million rows fit in bounded
 * memory: each row is committed (turned into XML and dropped) as soon as it is added. Sheets, in
 * order: the detail (human titles, header frozen, autofilter over header and rows), the summaries,
 * "Warnings" when there are any, and "About".
 *
 * Cells are typed: dates and timestamps are Excel dates (UTC, `yyyy-mm-dd` and
 * `yyyy-mm-dd hh:mm`); money is units (cents / 100) shown `#,##0.00`; integers `0`; numbers
 * `#,##0.00` with Column.decimals; percent `0.0%` with Column.decimals (1 = 100%); booleans
 * TRUE/FALSE. Text is always written as a string cell (never a formula), and text beginning with
 * = + - @, a tab or a CR gets the same leading `'` as in the CSV, so that the two files agree and
 * the text stays inert if the sheet is edited or saved again as CSV.
 */
type XlsxValue = string | number | boolean | Date;
type Convert = (value: string | number | boolean, place: CellPlace) => XlsxValue;

/** Excel's limit on the text of one cell; longer text makes Excel "repair" the file. */
const MAX_TEXT = 32767;
/** Rows between two looks at how much XML waits for the zip. */
const CHECK_EVERY = 128;
/** XML a sheet may hold waiting for the zip before the writer waits for it to drain. */
const MAX_PENDING_BYTES = 1 << 20; // 1 MiB

const typeWidth: Record<CellType, number> = {
  string: 24,
  integer: 10,
  number: 12,
  money: 14,
  percent: 9,
  date: 12,
  datetime: 17,
  boolean: 8,
};

const HEADER_STYLE: Partial<ExcelJS.Style> = { font: { bold: true } };
const KEY_STYLE: Partial<ExcelJS.Style> = { font: { bold: true } };

export class XlsxRenderer implements Renderer {
  readonly format = 'xlsx';
  private readonly file: WriteStream;
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  /** Settles when the file closes: rejects if it failed. */
  private readonly closed: Promise<void>;
  private readonly names = new SheetNames();
  private readonly detail: SheetWriter;
  private failure: unknown;

  constructor(path: string, detail: DetailLayout) {
    this.file = createWriteStream(path);
    this.closed = new Promise<void>((resolve, reject) => {
      this.file.on('error', (err: unknown) => {
        this.failure ??= err;
      });
      this.file.once('close', () => (this.failure === undefined ? resolve() : reject(this.failure)));
    });
    this.closed.catch(() => undefined);
    this.workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: this.file,
      useStyles: true,
      useSharedStrings: false,
    });
    this.workbook.creator = 'ohs-mirror';
    // The zip (archiver) reports its own failures as 'error' events; without a listener one
    // would end the process.
    const internals = this.workbook as unknown as {
      zip?: { on(event: 'error', f: (err: unknown) => void): unknown };
    };
    internals.zip?.on('error', (err: unknown) => {
      this.failure ??= err;
    });
    this.detail = this.sheet(detail.name, detail.columns);
  }

  write(row: Row): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    return this.detail.write(row);
  }

  async finish(tail: RenderTail): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const counts: [string, string][] = [];
    this.detail.autoFilter();
    this.detail.commit();
    counts.push([`Rows (${this.detail.name})`, String(this.detail.rows)]);
    for (const summary of tail.summaries) {
      const sheet = this.sheet(summary.name, summary.columns);
      await forEachRow(summary.rows, (row) => {
        if (this.failure !== undefined) throw this.failure;
        return sheet.write(row);
      });
      sheet.commit();
      counts.push([`Rows (${sheet.name})`, String(sheet.rows)]);
    }
    if (tail.warnings.length > 0) {
      const sheet = this.sheet('Warnings', [
        { key: 'warning', title: 'Warning', type: 'string', width: 100 },
      ]);
      for (const warning of tail.warnings) {
        const wait = sheet.write({ warning });
        if (wait !== undefined) await wait;
      }
      sheet.commit();
    }
    this.about([...tail.about, ...counts]);
    const committed = this.workbook.commit();
    committed.catch(() => undefined);
    // commit() waits for the file's 'finish', which never comes if the file failed first.
    await Promise.race([committed, this.closed]);
    await this.closed;
  }

  async abort(): Promise<void> {
    // The zip is piped into the file; Node unpipes it once the file closes.
    this.file.destroy();
    await this.closed.catch(() => undefined);
  }

  private sheet(name: string, columns: Column[]): SheetWriter {
    const ws = this.workbook.addWorksheet(this.names.take(name), {
      views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
    });
    return new SheetWriter(ws, columns, [this.file]);
  }

  private about(lines: [string, string][]): void {
    const ws = this.workbook.addWorksheet(this.names.take('About'));
    ws.columns = [{ width: 28 }, { width: 80 }];
    for (const [key, value] of lines) {
      const row = ws.addRow([clip(neutralise(key)), clip(neutralise(value))]);
      row.getCell(1).style = KEY_STYLE;
      row.commit();
    }
    ws.commit();
  }
}

/** One worksheet being streamed: its header row, then rows committed one by one. */
class SheetWriter {
  readonly name: string;
  rows = 0;
  private readonly keys: string[];
  private readonly converts: Convert[];
  private readonly styles: Partial<ExcelJS.Style>[];
  private readonly places: CellPlace[];

  constructor(
    private readonly ws: ExcelJS.Worksheet,
    private readonly columns: Column[],
    private readonly watched: Emitter[],
  ) {
    this.name = ws.name;
    this.keys = columns.map((c) => c.key);
    this.converts = columns.map(xlsxCell);
    // One style object per column, shared by its cells: exceljs caches a style's id by object,
    // so a shared object is looked up once, not rebuilt for every cell.
    this.styles = columns.map((c) => {
      const numFmt = numFmtOf(c);
      return numFmt === undefined ? {} : { numFmt };
    });
    this.places = columns.map((column) => ({ sheet: ws.name, row: 0, column }));
    ws.columns = columns.map((c) => ({
      width: c.width ?? Math.min(60, Math.max(typeWidth[c.type], c.title.length + 3)),
    }));
    const header = ws.addRow(columns.map((c) => clip(neutralise(c.title))));
    for (let i = 1; i <= columns.length; i++) header.getCell(i).style = HEADER_STYLE;
    header.commit();
  }

  write(row: Row): Promise<void> | undefined {
    this.rows++;
    const n = this.keys.length;
    const values: (XlsxValue | undefined)[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const value: CellValue = row[this.keys[i]!];
      if (value === null || value === undefined) {
        values[i] = undefined;
      } else {
        const place = this.places[i]!;
        place.row = this.rows;
        values[i] = this.converts[i]!(value, place);
      }
    }
    const added = this.ws.addRow(values);
    for (let i = 0; i < n; i++) if (values[i] !== undefined) added.getCell(i + 1).style = this.styles[i]!;
    added.commit();
    return this.rows % CHECK_EVERY === 0 ? this.backpressure() : undefined;
  }

  /** The autofilter over the header and every row written. */
  autoFilter(): void {
    this.ws.autoFilter = {
      from: { row: 1, column: 1 },
      to: { row: this.rows + 1, column: this.columns.length },
    };
  }

  commit(): void {
    this.ws.commit();
  }

  /**
   * exceljs has no backpressure: a committed row's XML is written into the sheet's zip entry
   * whether or not the zip keeps up, and a synchronous source (better-sqlite3's iterate) never
   * lets the zip run at all, so memory grows with the report. So we look at how much XML waits
   * in the entry's stream and wait for it to drain. That stream is internal to exceljs 4; if it
   * is not where we look, we still let the event loop run so the zip can progress.
   */
  private backpressure(): Promise<void> | undefined {
    const pending = sheetBacklog(this.ws);
    if (pending === undefined) return new Promise((resolve) => setImmediate(resolve));
    if (pendingBytes(pending) <= MAX_PENDING_BYTES) return undefined;
    return drained(pending, [pending, ...this.watched]);
  }
}

/** The part of a (readable-stream 2) Writable that tells how much it holds. */
export interface PendingStream extends Emitter {
  writableLength?: number;
  _writableState?: { length?: number };
}

/**
 * The stream a worksheet's XML waits in before the zip takes it: exceljs 4 writes the sheet into
 * a StreamBuf (`_stream`) piped into the zip entry's PassThrough.
 */
export function sheetBacklog(ws: ExcelJS.Worksheet): PendingStream | undefined {
  return (ws as unknown as { _stream?: { pipes?: PendingStream[] } })._stream?.pipes?.[0];
}

function pendingBytes(stream: PendingStream): number {
  return stream.writableLength ?? stream._writableState?.length ?? 0;
}

function xlsxCell(column: Column): Convert {
  switch (column.type) {
    case 'string':
      return (v, p) => clip(textOf(v, p));
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
function clip(text: string): string {
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
