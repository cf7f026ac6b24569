import { createHash, type Hash } from 'node:crypto';
import type ExcelJS from 'exceljs';
import { workbookWriter } from '../util/exceljs.js';
import { exclusiveStream } from '../util/safe-file.js';
import { alertOf } from './alert.js';
import type { DetailLayout, Renderer, RenderTail } from './renderer.js';
import { drained, type Emitter, forEachRow } from './streams.js';
import type { Column, Row, Sheet } from './types.js';
import type { CellPlace, CellValue } from './values.js';
import { type Convert, clip, columnLetter, numFmtOf, SheetNames, widthOf, xlsxCell } from './xlsx-cells.js';
import { Subtotals } from './xlsx-subtotals.js';
import type { XlsxValue } from './xlsx-value.js';

/**
 * The xlsx of a report through exceljs's streaming writer, so a million rows fit in bounded
 * memory: each row is committed (turned into XML and dropped) as soon as it is added. Sheets, in
 * order: the summaries (the workbook opens on the first), the detail (human titles, header frozen,
 * autofilter), "Warnings" when there are any, and "About". The detail is written first and the
 * summaries after it (their rows are computed while the detail streams), then the summaries are
 * moved to the front of the workbook's sheet list.
 *
 * Every sheet prints landscape when wide, fits one page wide, repeats its header row on each
 * page, and has a footer with the report, the as-of date and "Page X of Y". Column widths come
 * from the titles and the data (the first rows of the detail, all rows of a summary); headers wrap.
 * Total rows are bold; columns with an `alert` get red / amber conditional formatting.
 *
 * Cells are typed: dates and timestamps are Excel dates (UTC, `yyyy-mm-dd` and
 * `yyyy-mm-dd hh:mm`); money is units (cents / 100) shown `#,##0.00`; integers `0`; numbers
 * `#,##0.00` with Column.decimals; percent `0.0%` with Column.decimals (1 = 100%); booleans
 * TRUE/FALSE. Text is always written as a typed string cell, which no spreadsheet runs as a
 * formula, so it is stored as it is (the CSV, read by anything, is the file that neutralises).
 */

/** Rows between two looks at how much XML waits for the zip. */
const CHECK_EVERY = 128;
/** XML a sheet may hold waiting for the zip before the writer waits for it to drain. */
const MAX_PENDING_BYTES = 1 << 20; // 1 MiB
/** Detail rows held to measure column widths before the first is written. */
const SAMPLE_ROWS = 200;
/** Sheets with more columns than this print landscape. */
const LANDSCAPE_COLUMNS = 6;

const HEADER_STYLE: Partial<ExcelJS.Style> = {
  font: { bold: true },
  alignment: { wrapText: true, vertical: 'top' },
};
const KEY_STYLE: Partial<ExcelJS.Style> = { font: { bold: true }, alignment: { vertical: 'top' } };
const WRAP_STYLE: Partial<ExcelJS.Style> = { alignment: { wrapText: true, vertical: 'top' } };
const RED = { font: { color: { argb: 'FF9C0006' } }, fill: fill('FFFFC7CE') };
const AMBER = { font: { color: { argb: 'FF9C5700' } }, fill: fill('FFFFEB9C') };

function fill(argb: string): ExcelJS.Fill {
  return { type: 'pattern', pattern: 'solid', bgColor: { argb }, fgColor: { argb } };
}

export interface XlsxSettings {
  report: string;
  asOf: string;
}

export class XlsxRenderer implements Renderer {
  readonly format = 'xlsx';
  private readonly file: ReturnType<typeof exclusiveStream>;
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  /** Settles when the file closes: rejects if it failed. */
  private readonly closed: Promise<void>;
  private readonly names = new SheetNames();
  private readonly detail: SheetWriter;
  /** SHA-256 of the detail sheet's XML part, as stored in the file (About: "Detail SHA-256"). */
  private readonly detailHash: Hash = createHash('sha256');
  private detailPart = '';
  private detailZipped: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    path: string,
    detail: DetailLayout,
    private readonly settings: XlsxSettings = { report: 'report', asOf: '' },
  ) {
    // Order ageing holds person names: the file is the owner's only, like the mirror.
    this.file = exclusiveStream(path, 0o600);
    this.closed = new Promise<void>((resolve, reject) => {
      this.file.on('error', (err: unknown) => {
        this.failure ??= err;
      });
      this.file.once('close', () => (this.failure === undefined ? resolve() : reject(this.failure)));
    });
    this.closed.catch(() => undefined);
    this.workbook = new (workbookWriter())({
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
    this.hashPart(this.detailHash, (path, zipped) => {
      this.detailPart = path;
      this.detailZipped = zipped;
    });
    this.detail = this.sheet(detail.name, detail.columns, {
      sample: SAMPLE_ROWS,
      subtotals: detail.subtotals,
      totals: detail.totals,
      print: detail.print,
    });
  }

  write(row: Row): Promise<void> | undefined {
    if (this.failure !== undefined) throw this.failure;
    return this.detail.write(row);
  }

  async finish(tail: RenderTail): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    const counts: [string, string][] = [];
    await this.detail.end();
    // The hash is complete once the zip has taken the whole detail part (at most the backlog
    // the writer allows, so this wait is short); a failed file ends the wait too.
    await Promise.race([this.detailZipped, this.closed.catch(() => undefined)]);
    if (this.failure !== undefined) throw this.failure;
    counts.push([`Rows (${this.detail.name})`, String(this.detail.rows)]);
    const summaries: ExcelJS.Worksheet[] = [];
    for (const summary of tail.summaries) {
      // A summary is small (a row per org or status): its rows are read whole for the widths.
      const rows: Row[] = [];
      await forEachRow(summary.rows, (row) => {
        rows.push(row);
        return undefined;
      });
      const sheet = this.sheet(summary.name, summary.columns, {
        sample: rows.length,
        totals: summary.totals,
        subtotals: summary.subtotals,
        wrap: summary.wrap,
      });
      for (const row of rows) {
        if (this.failure !== undefined) throw this.failure;
        const wait = sheet.write(row);
        if (wait !== undefined) await wait;
      }
      await sheet.end();
      summaries.push(sheet.worksheet);
      counts.push([`Rows (${sheet.name})`, String(sheet.rows)]);
    }
    if (tail.warnings.length > 0) {
      const sheet = this.sheet(
        'Warnings',
        [{ key: 'warning', title: 'Warning', type: 'string', width: 110 }],
        { sample: 0, totals: 'none', wrap: true },
      );
      for (const warning of tail.warnings) {
        const wait = sheet.write({ warning });
        if (wait !== undefined) await wait;
      }
      await sheet.end();
    }
    this.about([
      ...tail.about,
      ...counts,
      [
        'Detail SHA-256',
        this.detailPart === ''
          ? 'not available'
          : `${this.detailHash.digest('hex')} (the detail sheet as stored: unzip -p FILE ${this.detailPart.replace(/^\//, '')} | sha256sum)`,
      ],
      ['Sheets', this.sheetList(summaries, tail.warnings.length > 0)],
    ]);
    moveToFront(this.workbook, summaries);
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

  /**
   * Hashes the XML of the next sheet part opened (the detail, added first) as the zip receives
   * it: one native update per 64 KiB batch, far cheaper than hashing the rows again in
   * JavaScript, and anyone can check it from the file. `_openStream` and the part's `pipe` are
   * internal to exceljs 4; without them the About line says the hash is not available.
   */
  private hashPart(hash: Hash, opened: (path: string, zipped: Promise<void>) => void): void {
    type Sink = { write(chunk: unknown, ...rest: unknown[]): unknown };
    type Part = { pipes?: Sink[]; once?(event: string, f: () => void): unknown };
    const wb = this.workbook as unknown as { _openStream?: (path: string) => Part };
    const open = wb._openStream;
    if (typeof open !== 'function') return;
    wb._openStream = (path: string) => {
      const part = open.call(this.workbook, path);
      wb._openStream = open;
      // The zip pipes the part into its entry stream as soon as it is appended (see
      // sheetBacklog): that stream's writes are the part's bytes, in order.
      const dest = part.pipes?.[0];
      if (dest === undefined || typeof part.once !== 'function') return part;
      // exceljs emits 'zipped' once the zip has taken the whole part.
      const zipped = new Promise<void>((resolve) => part.once?.('zipped', resolve));
      opened(path, zipped);
      const write = dest.write;
      dest.write = (chunk: unknown, ...rest: unknown[]) => {
        if (typeof chunk === 'string' || Buffer.isBuffer(chunk)) hash.update(chunk);
        return write.call(dest, chunk, ...rest);
      };
      return part;
    };
  }

  /** The sheets in the order a reader sees them (the About sheet never names one that is not there). */
  private sheetList(summaries: ExcelJS.Worksheet[], warnings: boolean): string {
    return [
      ...summaries.map((s) => s.name),
      this.detail.name,
      ...(warnings ? ['Warnings'] : []),
      'About',
    ].join(', ');
  }

  private sheet(name: string, columns: Column[], options: SheetOptions): SheetWriter {
    const taken = this.names.take(name);
    // A print view's title columns are frozen and repeated on every page, like the header row.
    const titles = options.print?.titleColumns ?? 0;
    const printed = options.print === undefined ? columns.length : options.print.columns.length;
    const corner = `${columnLetter(titles + 1)}2`;
    const ws = this.workbook.addWorksheet(taken, {
      views: [{ state: 'frozen', xSplit: titles, ySplit: 1, topLeftCell: corner, activeCell: corner }],
      pageSetup: {
        ...pageSetupOf(printed),
        ...(titles > 0 ? { printTitlesColumn: `A:${columnLetter(titles)}` } : {}),
      },
      headerFooter: this.footer(taken),
      ...(options.print === undefined ? {} : { properties: { outlineLevelCol: 1 } }),
    });
    return new SheetWriter(ws, columns, [this.file], options);
  }

  private footer(sheet: string): Partial<ExcelJS.HeaderFooter> {
    // `&` starts a code in a header or footer: a literal one is doubled.
    const text = (s: string) => s.replace(/&/g, '&&');
    return {
      oddFooter: `&L${text(this.settings.report)}: ${text(sheet)}&CAs of ${text(this.settings.asOf)}&RPage &P of &N`,
    };
  }

  private about(lines: [string, string][]): void {
    const sheet = this.sheet(
      'About',
      [
        { key: 'item', title: 'Item', type: 'string', width: 30 },
        { key: 'value', title: 'Value', type: 'string', width: 100 },
      ],
      { sample: 0, totals: 'none', wrap: true, keyColumn: true },
    );
    for (const [item, value] of lines) sheet.write({ item, value });
    sheet.endNow();
  }
}

/** Portrait for narrow sheets; every sheet one page wide, header row on every page. */
function pageSetupOf(columns: number): Partial<ExcelJS.PageSetup> {
  return {
    orientation: columns > LANDSCAPE_COLUMNS ? 'landscape' : 'portrait',
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    printTitlesRow: '1:1',
    margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.3, footer: 0.3 },
  };
}

/**
 * exceljs's streaming writer lists sheets in the order they were added, and a sheet must be
 * added before its rows stream; the summaries are computed from the detail, so they are added
 * after it and moved to the front of its (sparse, id-indexed) sheet list here, before the
 * workbook part is written. The ids (and file names) of the sheets are unchanged. If exceljs ever
 * keeps the list elsewhere, the order simply stays as written.
 */
function moveToFront(workbook: ExcelJS.stream.xlsx.WorkbookWriter, sheets: ExcelJS.Worksheet[]): void {
  const list = (workbook as unknown as { _worksheets?: unknown })._worksheets;
  if (!Array.isArray(list) || sheets.length === 0) return;
  const rest = list.filter((ws) => ws !== undefined && !sheets.includes(ws as ExcelJS.Worksheet));
  // Called once every sheet is added: the list is only iterated from here on (sheet parts,
  // relationships, workbook), never indexed by id.
  list.length = 0;
  list.push(...sheets, ...rest);
}

interface SheetOptions {
  /** Rows held to measure widths before the header is written (0: titles and types only). */
  sample: number;
  subtotals?: Sheet['subtotals'];
  totals?: Sheet['totals'];
  /** Wrap text cells (Warnings, About). */
  wrap?: boolean;
  /** First column bold (About). */
  keyColumn?: boolean;
  /** The print view: the other columns grouped, collapsed and not printed. */
  print?: Sheet['print'];
}

/** Points per line of wrapped 11 pt text (Excel's default row is 15 pt). */
const LINE_POINTS = 15;

/** The lines a text takes in a column of `width` characters (its own breaks counted). */
function linesOf(text: string, width: number): number {
  const per = Math.max(1, Math.floor(width) - 1);
  let lines = 0;
  for (const part of text.split('\n')) lines += Math.max(1, Math.ceil(part.length / per));
  return lines;
}

/** One worksheet being streamed: its header row, then rows committed one by one. */
class SheetWriter {
  readonly name: string;
  /** Data rows written (subtotal rows not counted). */
  rows = 0;
  /** Rows of the sheet, header and subtotals included. */
  private sheetRows = 0;
  private readonly keys: string[];
  private readonly converts: Convert[];
  private readonly styles: Partial<ExcelJS.Style>[];
  private readonly boldStyles: Partial<ExcelJS.Style>[];
  /** Per alerting column: its style with the red / amber fill (exception cells carry it). */
  private readonly alertStyles: ({ bad: Partial<ExcelJS.Style>; warn: Partial<ExcelJS.Style> } | null)[];
  private readonly places: CellPlace[];
  private sample: (XlsxValue | undefined)[][] | null = [];
  /** Column widths, once the header is written. */
  private widths: number[] = [];
  private readonly labelColumn: number;
  private readonly sub: Subtotals | null;

  constructor(
    private readonly ws: ExcelJS.Worksheet,
    private readonly columns: Column[],
    private readonly watched: Emitter[],
    private readonly options: SheetOptions,
  ) {
    this.name = ws.name;
    this.keys = columns.map((c) => c.key);
    this.converts = columns.map(xlsxCell);
    // One style object per column, shared by its cells: exceljs caches a style's id by object,
    // so a shared object is looked up once, not rebuilt for every cell.
    this.styles = columns.map((c) => {
      const numFmt = numFmtOf(c);
      const base: Partial<ExcelJS.Style> = options.wrap ? { ...WRAP_STYLE } : {};
      return numFmt === undefined ? base : { ...base, numFmt };
    });
    this.boldStyles = this.styles.map((st) => ({ ...st, font: { bold: true } }));
    if (options.keyColumn) this.styles[0] = KEY_STYLE;
    this.alertStyles = columns.map((c, i) =>
      c.alert === undefined
        ? null
        : { bad: { ...this.styles[i], ...RED }, warn: { ...this.styles[i], ...AMBER } },
    );
    this.places = columns.map((column) => ({ sheet: ws.name, row: 0, column }));
    this.labelColumn = columns.findIndex((c) => c.type === 'string');
    this.sub =
      options.subtotals === undefined ? null : new Subtotals(options.subtotals, this.keys, this.labelColumn);
    if (options.sample <= 0) this.start();
  }

  get worksheet(): ExcelJS.Worksheet {
    return this.ws;
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
    if (this.sample !== null) {
      this.sample.push(values);
      if (this.sample.length >= this.options.sample) this.start();
      return undefined;
    }
    this.emit(values);
    return this.rows % CHECK_EVERY === 0 ? this.backpressure() : undefined;
  }

  /** After the last row: subtotals, autofilter, conditional formatting; commits the sheet. */
  async end(): Promise<void> {
    this.endNow();
  }

  endNow(): void {
    if (this.sample !== null) this.start();
    if (this.sub !== null) for (const r of this.sub.close()) this.addRow(r, true);
    if (!this.options.keyColumn)
      this.ws.autoFilter = {
        from: { row: 1, column: 1 },
        to: { row: Math.max(1, this.sheetRows), column: this.columns.length },
      };
    this.ws.pageSetup.printArea = `A1:${columnLetter(this.columns.length)}${Math.max(1, this.sheetRows)}`;
    this.alerts();
    this.ws.commit();
  }

  /** Widths from the titles and the sampled rows; the header; the sampled rows. */
  private start(): void {
    const sample = this.sample ?? [];
    this.sample = null;
    this.widths = this.columns.map((c, i) => widthOf(c, sample, i, this.options.wrap === true));
    const shown = this.options.print === undefined ? null : new Set(this.options.print.columns);
    this.ws.columns = this.columns.map((c, i) => ({
      width: this.widths[i],
      // Outside the print view: grouped and collapsed, so neither shown at first nor printed.
      ...(shown === null || shown.has(c.key) ? {} : { hidden: true, outlineLevel: 1 }),
    }));
    const header = this.ws.addRow(this.columns.map((c) => clip(c.title)));
    for (let i = 1; i <= this.columns.length; i++) header.getCell(i).style = HEADER_STYLE;
    // Wrapped titles get the height of their lines, so they do not overprint in print.
    header.height =
      LINE_POINTS * Math.max(...this.columns.map((c, i) => linesOf(c.title, this.widths[i] ?? 8)));
    header.commit();
    this.sheetRows = 1;
    for (const values of sample) this.emit(values);
  }

  private emit(values: (XlsxValue | undefined)[]): void {
    if (this.sub !== null) for (const r of this.sub.next(values)) this.addRow(r, true);
    const label = this.labelColumn < 0 ? undefined : values[this.labelColumn];
    const total = this.options.totals !== 'none' && typeof label === 'string' && label.startsWith('Total');
    this.addRow(values, total);
  }

  private addRow(values: (XlsxValue | undefined)[], bold: boolean): void {
    const added = this.ws.addRow(values);
    const styles = bold ? this.boldStyles : this.styles;
    for (let i = 0; i < values.length; i++) {
      if (values[i] !== undefined || bold) added.getCell(i + 1).style = styles[i]!;
      // An exception is filled red or amber on the cell itself, so every reader sees it (the
      // conditional formatting below keeps the rule for a cell edited later).
      const alerting = bold ? null : this.alertStyles[i];
      if (alerting != null) {
        const level = alertOf(this.columns[i] as Column, values[i]);
        if (level !== undefined) added.getCell(i + 1).style = alerting[level];
      }
    }
    if (this.options.wrap) {
      // Wrapped text gets the height of its lines: Excel does not grow a row it reads with no
      // height when printing, so long lines would overprint the next row.
      let lines = 1;
      for (let i = 0; i < values.length; i++) {
        const v = values[i];
        if (typeof v === 'string') lines = Math.max(lines, linesOf(v, this.widths[i] ?? 8));
      }
      if (lines > 1) added.height = LINE_POINTS * lines;
    }
    added.commit();
    this.sheetRows++;
  }

  /** Red / amber conditional formatting over each alerting column's data rows. */
  private alerts(): void {
    if (this.sheetRows < 2) return;
    this.columns.forEach((c, i) => {
      if (c.alert === undefined) return;
      const letter = columnLetter(i + 1);
      const ref = `${letter}2:${letter}${this.sheetRows}`;
      const rules: ExcelJS.ConditionalFormattingRule[] = [];
      let priority = 1;
      const first = `${letter}2`;
      const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;
      const equal = (texts: string[] | undefined, style: Partial<ExcelJS.Style>) => {
        for (const t of texts ?? [])
          rules.push({
            type: 'cellIs',
            operator: 'equal',
            formulae: [quote(t)],
            style,
            priority: priority++,
          });
      };
      equal(c.alert.red, RED);
      equal(c.alert.amber, AMBER);
      // A code with a qualifier after it ("BEHIND (assumed rate)"): amber, as alertOf reads it.
      for (const t of [...(c.alert.red ?? []), ...(c.alert.amber ?? [])]) {
        const qualified = quote(`${t} (`);
        rules.push({
          type: 'expression',
          formulae: [`LEFT(${first},LEN(${qualified}))=${qualified}`],
          style: AMBER,
          priority: priority++,
        });
      }
      if (c.alert.positive !== undefined)
        rules.push({
          type: 'cellIs',
          operator: 'greaterThan',
          formulae: ['0'],
          style: c.alert.positive === 'red' ? RED : AMBER,
          priority: priority++,
        });
      if (c.alert.nonZero !== undefined)
        // Blank cells (lines that are no check) are no exception: only a number but 0.
        rules.push({
          type: 'expression',
          formulae: [`AND(ISNUMBER(${first}),${first}<>0)`],
          style: c.alert.nonZero === 'red' ? RED : AMBER,
          priority: priority++,
        });
      if (rules.length > 0) this.ws.addConditionalFormatting({ ref, rules });
    });
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

export { numFmtOf, SheetNames } from './xlsx-cells.js';
