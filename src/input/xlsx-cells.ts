import { InputError } from '../errors.js';
import { printable } from '../util/printable.js';
import { type CellValue, edgeTrim, type InputRow, type InputTable } from './table.js';
import type { ChosenSheet } from './xlsx-book.js';
import { type SheetLayout, sheetLayout } from './xlsx-rows.js';
import { dateFormat, readStyles, type Styles, styleProblem } from './xlsx-style.js';
import {
  arr,
  cellRef,
  columnLetter,
  inRange,
  int,
  type Node,
  obj,
  type Range,
  rangeOf,
  text,
} from './xlsx-xml.js';

/**
 * The cells of the chosen sheet, read from its XML, each one read only when it is plain: a number
 * or a text (or TRUE/FALSE), typed in, shown by its style as it is (xlsx-style.ts), in a row and a
 * column a person sees (xlsx-rows.ts), under one header of its own. Everything else is refused
 * naming the sheet, the cell and what was found: a formula (its cached value is what it last
 * showed), a cell of a data table or an array formula, a date (unless the reader takes dates:
 * policy files), rich text, an error value, linked data, a merged cell, a drawing or conditional
 * formatting on the sheet, a second column under the same header.
 */
export interface CellOptions {
  maxRows: number;
  /** Date cells are read as `YYYY-MM-DD` (policy files); else refused. */
  dates: boolean;
}

interface Cell {
  row: number;
  col: number;
  node: Node;
}

/** A date serial as `YYYY-MM-DD` (1900 system with its phantom 29 February, or 1904). */
function serialDate(serial: number, date1904: boolean): string {
  const days = Math.floor(serial);
  const base = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, days < 60 ? 31 : 30);
  return new Date(base + days * 86_400_000).toISOString().slice(0, 10);
}

type Read = { value: CellValue } | { problem: string };

interface Context {
  styles: Styles;
  strings: Node[];
  ranges: { range: Range; what: string }[];
  options: CellOptions;
  date1904: boolean;
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function stringItem(item: Node): Read {
  if (arr(item.r).length > 0)
    return { problem: 'rich text (runs with fonts of their own): clear its formatting' };
  const t = text(item.t) ?? '';
  return { value: edgeTrim(t) === '' ? null : edgeTrim(t) };
}

/** What a cell holds, or why it is not read. */
function readCell(cell: Cell, ctx: Context): Read {
  const c = cell.node;
  if (c.vm !== undefined || c.cm !== undefined) return { problem: 'linked data or dynamic metadata (vm/cm)' };
  if (c.f !== undefined) {
    const t = String(obj(c.f).t ?? '').trim();
    return {
      problem:
        t === 'dataTable'
          ? 'a data table (a TABLE formula): paste its values instead'
          : 'a formula: paste its values instead',
    };
  }
  const covering = ctx.ranges.find((r) => inRange(r.range, cell.row, cell.col));
  if (covering !== undefined)
    return { problem: `part of ${covering.what} (${covering.range.ref}): paste its values instead` };
  const type = (c.t ?? 'n').trim();
  const s = int(c.s, 0);
  const raw = text(c.v);
  let read: Read;
  let number: number | undefined;
  if (type === 'n') {
    if (raw === undefined || raw.trim() === '') return { value: null };
    number = Number(raw.trim());
    if (!NUMBER.test(raw.trim()) || !Number.isFinite(number))
      return { problem: `a number cell holding '${printable(raw, 40)}'` };
    const date = dateFormat(ctx.styles, s);
    if (date !== undefined) {
      if (!ctx.options.dates) return { problem: `a date (${date} shows the number ${number} as a date)` };
      return { value: serialDate(number, ctx.date1904) };
    }
    read = { value: number };
  } else if (type === 's') {
    const item = ctx.strings[int(raw, -1)];
    read = item === undefined ? { problem: 'a shared string the workbook does not hold' } : stringItem(item);
  } else if (type === 'inlineStr') read = stringItem(obj(c.is));
  else if (type === 'b') {
    if (raw?.trim() !== '0' && raw?.trim() !== '1')
      return { problem: `a TRUE/FALSE cell holding '${printable(raw ?? '', 40)}'` };
    read = { value: raw.trim() === '1' };
  } else if (type === 'd') {
    if (!ctx.options.dates) return { problem: 'a date (a date-typed cell)' };
    read = { value: (raw ?? '').trim().slice(0, 10) };
  } else if (type === 'e') return { problem: `an error value (${printable(raw ?? '', 40)})` };
  else if (type === 'str') return { problem: 'the text of a formula: paste its values instead' };
  else return { problem: `a cell of type '${printable(type, 20)}'` };
  if ('problem' in read || read.value === null) return read;
  const shown = styleProblem(ctx.styles, s, number);
  return shown === undefined ? read : { problem: shown };
}

/** The sheet's cells in order, refusing a sheet whose XML lists a row or cell twice or out of order. */
function cellsOf(place: string, ws: Node, maxRows: number): Cell[] {
  const rows = arr(obj(ws.sheetData).row);
  const cells: Cell[] = [];
  let lastRow = 0;
  for (const r of rows) {
    const n = int(r.r, lastRow + 1);
    if (n <= lastRow)
      throw new InputError(`${place}: row ${n} is listed twice or out of order in the sheet's XML`);
    if (n > maxRows + 1 && arr(r.c).length > 0)
      throw new InputError(`${place}: rows up to ${n}, over input.maxRows (${maxRows})`);
    lastRow = n;
    let lastCol = 0;
    for (const c of arr(r.c)) {
      const at = c.r === undefined ? { row: n, col: lastCol + 1 } : cellRef(c.r);
      if (at === undefined || at.row !== n || at.col <= lastCol)
        throw new InputError(
          `${place}: cell ${printable(String(c.r ?? '?'), 20)} of row ${n} is misplaced, repeated or out of order in the sheet's XML`,
        );
      lastCol = at.col;
      cells.push({ row: n, col: at.col, node: c });
    }
  }
  return cells;
}

function sheetFeatures(place: string, ws: Node): void {
  if (ws.drawing !== undefined || ws.legacyDrawing !== undefined || ws.legacyDrawingHF !== undefined)
    throw new InputError(
      `${place}: drawings (shapes, pictures, text boxes or comments can cover cells): delete them, or copy the cells to a new sheet`,
    );
  const cf = arr(ws.conditionalFormatting)[0];
  if (cf !== undefined)
    throw new InputError(
      `${place}: conditional formatting on ${printable(String(cf.sqref ?? '?'), 60)} (it can change how a cell shows): clear its rules`,
    );
}

/** Formula ranges whose other cells hold only cached values: data tables and array formulas. */
function formulaRanges(cells: Cell[]): Context['ranges'] {
  return cells.flatMap((c) => {
    const f = obj(c.node.f);
    const t = String(f.t ?? '').trim();
    const range = typeof f.ref === 'string' ? rangeOf(f.ref) : undefined;
    if (range === undefined || (t !== 'dataTable' && t !== 'array')) return [];
    return [{ range, what: t === 'dataTable' ? 'a data table' : 'an array formula' }];
  });
}

function headers(place: string, header: Cell[], ctx: Context, layout: SheetLayout): Map<number, string> {
  const columns = new Map<number, string>();
  const byName = new Map<string, number>();
  for (const cell of header) {
    const read = readCell(cell, ctx);
    const ref = `${columnLetter(cell.col)}1`;
    if ('problem' in read) throw new InputError(`${place} cell ${ref} (the header): ${read.problem}`);
    if (read.value === null) continue;
    if (typeof read.value !== 'string')
      throw new InputError(`${place} cell ${ref} (the header): a header is text, not ${String(read.value)}`);
    const other = byName.get(read.value.toLowerCase());
    if (other !== undefined)
      throw new InputError(
        `${place}: cells ${columnLetter(other)}1 and ${ref} are both headed ${printable(read.value, 100)}: one column per header; delete or rename one`,
      );
    byName.set(read.value.toLowerCase(), cell.col);
    columns.set(cell.col, read.value);
  }
  for (const [col, name] of columns) {
    const unseen = layout.columnHidden(col);
    if (unseen !== undefined)
      throw new InputError(
        `${place}: column ${columnLetter(col)} (${printable(name, 100)}) is ${unseen}: unhide it or delete it`,
      );
  }
  for (const m of layout.merges) {
    const named = [...columns].find(([col]) => col >= m.left && col <= m.right)?.[1];
    if (named === undefined) continue;
    const rows = m.top === m.bottom ? `row ${m.top}` : `rows ${m.top} to ${m.bottom}`;
    throw new InputError(
      `${place}: cells ${printable(m.ref, 40)} are merged (${rows}, column ${printable(named, 100)}): a merged cell reads as the same value in every cell it covers; unmerge it and give each row its own value`,
    );
  }
  return columns;
}

/** The chosen sheet as a table: row 1 the header, each later row with a value under a header a row of the table. */
export function readSheetCells(file: string, sheet: ChosenSheet, options: CellOptions): InputTable {
  const place = `${file}: sheet '${printable(sheet.name, 100)}'`;
  sheetFeatures(place, sheet.ws);
  const layout = sheetLayout(sheet.ws);
  const cells = cellsOf(place, sheet.ws, options.maxRows);
  const ctx: Context = {
    styles: readStyles(sheet.styles, sheet.theme),
    strings: sheet.strings,
    ranges: formulaRanges(cells),
    options,
    date1904: sheet.date1904,
  };
  const byRow = new Map<number, Cell[]>();
  for (const c of cells) byRow.set(c.row, [...(byRow.get(c.row) ?? []), c]);
  const columns = headers(place, byRow.get(1) ?? [], ctx, layout);
  const headerHidden = columns.size > 0 ? layout.rowHidden(1) : undefined;
  if (headerHidden !== undefined)
    throw new InputError(`${place} row 1 (the header) is ${headerHidden}: unhide it or delete it`);
  const rows: InputRow[] = [];
  for (const [n, line] of byRow) {
    if (n === 1) continue;
    const named = line.filter((c) => columns.has(c.col));
    const read = named.map((c) => ({ c, read: readCell(c, ctx) }));
    if (read.every((x) => 'value' in x.read && x.read.value === null)) continue;
    const unseen = layout.rowHidden(n);
    if (unseen !== undefined) throw new InputError(`${place} row ${n} is ${unseen}: unhide it or delete it`);
    const values: Record<string, CellValue> = Object.fromEntries(
      [...columns.values()].map((name) => [name, null]),
    );
    for (const { c, read: r } of read) {
      const name = columns.get(c.col) as string;
      if ('problem' in r)
        throw new InputError(
          `${place} cell ${columnLetter(c.col)}${n} (row ${n}, column ${printable(name, 100)}): ${r.problem}`,
        );
      values[name] = r.value;
    }
    rows.push({ row: n, values });
  }
  return { file, columns: [...columns.values()], rows };
}
