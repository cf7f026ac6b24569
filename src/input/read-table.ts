import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import type ExcelJS from 'exceljs';
import type { InputConfig } from '../config/schema.js';
import { InputError } from '../errors.js';
import { exceljs } from '../util/exceljs.js';
import { printable } from '../util/printable.js';
import { firstSheetLayout, type SheetLayout } from './xlsx-rows.js';
import { zipUnpackedSize } from './zip-size.js';

/**
 * Input files of the user (policy files, write-back plans): CSV (comma or semicolon separated),
 * XLSX, JSON (an array of objects) or NDJSON, read into rows of named cells, each with its row number in the file so
 * errors can say `file:row: field: what is wrong`.
 */
export type CellValue = string | number | boolean | null;

export interface InputRow {
  /** Row number as the user sees it: the line in CSV/NDJSON (header is 1), the row in XLSX, the item (1-based) in JSON. */
  row: number;
  values: Record<string, CellValue>;
}

export interface InputTable {
  file: string;
  columns: string[];
  rows: InputRow[];
}

function cell(value: unknown): CellValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object' && value !== null) {
    const v = value as { text?: unknown; result?: unknown; richText?: { text: string }[] };
    if (Array.isArray(v.richText)) return v.richText.map((t) => t.text).join('');
    if (v.result !== undefined) return cell(v.result);
    if (typeof v.text === 'string') return v.text;
    return JSON.stringify(value);
  }
  return String(value);
}

/**
 * The separator of a CSV file: `;` when its header line holds more semicolons than commas
 * outside quotes (Excel writes `;` where the decimal mark is a comma), else `,`.
 */
export function csvDelimiter(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c === ',') commas++;
    else if (!quoted && c === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/**
 * A CSV row of more or fewer fields than its header is refused, never cut or padded: under
 * `InvoiceId,amountToPay`, `240019,12,50` (a decimal comma written unquoted) would otherwise be
 * read as 12 to pay. The row is the record's number (the header is 1), which is its line unless
 * a quoted field spans lines.
 */
function fieldCountError(
  file: string,
  row: number,
  fields: number,
  expected: number,
  text: string,
): InputError {
  const comma = csvDelimiter(text) === ',';
  const hint =
    fields > expected && comma
      ? ': a decimal comma or a comma inside a value must be quoted ("12,50"), or separate the fields with ;'
      : ': every row has one field per header column';
  return new InputError(
    `${file}:${row}: ${fields} field${fields === 1 ? '' : 's'}, header has ${expected}${hint}`,
  );
}

async function readCsv(file: string, limits: InputLimits): Promise<InputTable> {
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  let records: string[][];
  try {
    records = parse(text, {
      delimiter: csvDelimiter(text),
      // Counted below, row by row, to name the row and both counts (csv-parse would name a line).
      relax_column_count: true,
      skip_empty_lines: false,
      // A record far over the field bound stops the parse there (checkBounds names the field otherwise).
      max_record_size: limits.maxFieldChars * 64,
    }) as string[][];
  } catch (err) {
    if ((err as { code?: string }).code === 'CSV_MAX_RECORD_SIZE')
      throw new InputError(
        `${file}:${(err as { lines?: number }).lines ?? '?'}: a record over ${limits.maxFieldChars * 64} characters (input.maxFieldChars ${limits.maxFieldChars} per field)`,
      );
    throw new InputError(`${file}: not valid CSV: ${(err as Error).message}`);
  }
  const [header = [], ...body] = records;
  const columns = header.map((h) => h.trim());
  const rows: InputRow[] = [];
  body.forEach((rec, i) => {
    if (rec.every((c) => c.trim() === '')) return;
    if (rec.length !== header.length) throw fieldCountError(file, i + 2, rec.length, header.length, text);
    const values: Record<string, CellValue> = {};
    columns.forEach((c, k) => {
      if (c !== '') values[c] = cell(rec[k]);
    });
    rows.push({ row: i + 2, values });
  });
  return { file, columns, rows };
}

/** A1-style name of a column number (1: A, 27: AA). */
function columnLetter(n: number): string {
  let out = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) out = String.fromCharCode(65 + ((k - 1) % 26)) + out;
  return out;
}

/** Whether a cell holds a formula (its cached result is what it last showed, not what it says). */
function isFormula(value: unknown): boolean {
  return typeof value === 'object' && value !== null && ('formula' in value || 'sharedFormula' in value);
}

/** The first merge over a named column (header or data), refused: it reads as one value in every cell it covers. */
function checkMerges(place: string, columns: string[], layout: SheetLayout): void {
  for (const m of layout.merges) {
    const named = columns.slice(m.left - 1, m.right).find((c) => c !== undefined && c !== '');
    if (named === undefined) continue;
    const rows = m.top === m.bottom ? `row ${m.top}` : `rows ${m.top} to ${m.bottom}`;
    throw new InputError(
      `${place}: cells ${printable(m.ref, 40)} are merged (${rows}, column ${printable(named, 100)}): a merged cell reads as the same value in every cell it covers; unmerge it and give each row its own value`,
    );
  }
}

/**
 * The first sheet of a workbook, read as a person sees it: what is hidden cannot be read, since
 * nobody checked it. A hidden first sheet, a hidden row or a hidden column holding a named
 * column (hidden, of zero size, or hidden by the sheet's defaults or a collapsed outline: the
 * workbook's XML decides, `firstSheetLayout`), a merged range over a named column, and a formula
 * cell (its cached value is what the formula last gave, and a formula can show 20.00 while its
 * value is 2000) are each refused, naming the sheet, row and column.
 */
function readSheet(file: string, sheet: ExcelJS.Worksheet, layout: SheetLayout): InputTable {
  const place = `${file}: sheet '${printable(layout.name, 100)}'`;
  if (layout.state !== 'visible')
    throw new InputError(
      `${place} is ${layout.state}: the first sheet is read and must be visible; unhide it or move a visible sheet first`,
    );
  const columns: string[] = [];
  sheet.getRow(1).eachCell({ includeEmpty: true }, (c, col) => {
    columns[col - 1] = String(cell(c.value) ?? '').trim();
  });
  columns.forEach((c, k) => {
    const unseen = layout.columnHidden(k + 1);
    if (c !== undefined && c !== '' && unseen !== undefined)
      throw new InputError(
        `${place}: column ${columnLetter(k + 1)} (${printable(c, 100)}) is ${unseen}: unhide it or delete it`,
      );
  });
  checkMerges(place, columns, layout);
  const rows: InputRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (r, n) => {
    r.eachCell({ includeEmpty: false }, (c, col) => {
      if (isFormula(c.value))
        throw new InputError(
          `${place} cell ${columnLetter(col)}${n} (row ${n}, column ${printable(columns[col - 1] || columnLetter(col), 100)}): a formula: paste its values instead`,
        );
    });
    const values: Record<string, CellValue> = {};
    columns.forEach((c, k) => {
      if (c !== undefined && c !== '') values[c] = cell(r.getCell(k + 1).value);
    });
    if (Object.values(values).every((v) => v === null)) return;
    const unseen = layout.rowHidden(n);
    if (unseen !== undefined)
      throw new InputError(
        `${place} row ${n}${n === 1 ? ' (the header)' : ''} is ${unseen}: unhide it or delete it`,
      );
    if (n > 1) rows.push({ row: n, values });
  });
  return { file, columns: columns.filter((c) => c !== undefined && c !== ''), rows };
}

async function readXlsx(file: string, limits: InputLimits): Promise<InputTable> {
  const wb = new (exceljs().Workbook)();
  try {
    await wb.xlsx.readFile(file);
  } catch (err) {
    throw new InputError(`${file}: not a readable XLSX file: ${(err as Error).message}`);
  }
  const layout = await firstSheetLayout(file);
  if (layout === undefined)
    throw new InputError(
      `${file}: the first sheet's layout (hidden rows, columns, merged cells) cannot be read from the workbook: save it again from a spreadsheet program`,
    );
  // The first tab by the workbook's order (exceljs numbers sheets by their id, which may differ).
  const sheet = wb.worksheets.find((w) => w.name === layout.name);
  if (sheet === undefined) throw new InputError(`${file}: the workbook has no sheet`);
  if (sheet.rowCount > limits.maxRows + 1)
    throw new InputError(`${file}: ${sheet.rowCount - 1} rows, over input.maxRows (${limits.maxRows})`);
  return readSheet(file, sheet, layout);
}

function objectRow(file: string, row: number, value: unknown): InputRow {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(`${file}:${row}: expected a JSON object`);
  }
  const values: Record<string, CellValue> = {};
  for (const [k, v] of Object.entries(value)) {
    values[k] = typeof v === 'object' && v !== null ? JSON.stringify(v) : cell(v);
  }
  return { row, values };
}

async function readJson(file: string, ndjson: boolean): Promise<InputTable> {
  const text = await readFile(file, 'utf8');
  const rows: InputRow[] = [];
  if (ndjson) {
    text.split(/\r?\n/).forEach((line, i) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        throw new InputError(`${file}:${i + 1}: not valid JSON: ${(err as Error).message}`);
      }
      rows.push(objectRow(file, i + 1, value));
    });
  } else {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputError(`${file}: not valid JSON: ${(err as Error).message}`);
    }
    if (!Array.isArray(value)) throw new InputError(`${file}: expected a JSON array of objects`);
    value.forEach((v, i) => {
      rows.push(objectRow(file, i + 1, v));
    });
  }
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
  return { file, columns, rows };
}

/** The bounds of input files (config `input`, resolved). */
export type InputLimits = InputConfig;

const mb = (bytes: number) =>
  Number.isFinite(bytes)
    ? `${(bytes / 1_048_576).toFixed(1)} MB`
    : 'more than 4 GB (ZIP64 or a broken directory)';

/** Refuses, before reading it, a file over input.maxFileBytes, or an XLSX that unpacks to over input.maxXlsxUnpackedBytes. */
async function checkSize(file: string, ext: string, limits: InputLimits): Promise<void> {
  const { size } = await stat(file);
  if (size > limits.maxFileBytes)
    throw new InputError(
      `${file}: ${mb(size)}, over input.maxFileBytes (${mb(limits.maxFileBytes)}): split the file, or raise the limit`,
    );
  if (ext !== '.xlsx') return;
  const unpacked = await zipUnpackedSize(file);
  if (unpacked !== undefined && unpacked > limits.maxXlsxUnpackedBytes)
    throw new InputError(
      `${file}: unpacks to ${mb(unpacked)} (its zip directory says), over input.maxXlsxUnpackedBytes (${mb(limits.maxXlsxUnpackedBytes)}): not read`,
    );
}

/** Refuses a table over input.maxRows, or a field over input.maxFieldChars (naming file, row and column). */
function checkBounds(table: InputTable, limits: InputLimits): InputTable {
  if (table.rows.length > limits.maxRows)
    throw new InputError(
      `${table.file}: ${table.rows.length} rows, over input.maxRows (${limits.maxRows}): split the file, or raise the limit`,
    );
  for (const r of table.rows)
    for (const [column, v] of Object.entries(r.values))
      if (typeof v === 'string' && v.length > limits.maxFieldChars)
        throw new InputError(
          `${table.file}:${r.row}: ${printable(column, 100)}: ${v.length} characters, over input.maxFieldChars (${limits.maxFieldChars})`,
        );
  return table;
}

async function readByType(file: string, ext: string, limits: InputLimits): Promise<InputTable | undefined> {
  if (ext === '.csv') return readCsv(file, limits);
  if (ext === '.xlsx') return readXlsx(file, limits);
  if (ext === '.json') return readJson(file, false);
  if (ext === '.ndjson' || ext === '.jsonl') return readJson(file, true);
  return undefined;
}

/** Reads a CSV, XLSX, JSON or NDJSON file by its extension, within `limits` (config `input`). */
export async function readTable(file: string, limits: InputLimits): Promise<InputTable> {
  const ext = extname(file).toLowerCase();
  let table: InputTable | undefined;
  try {
    if (['.csv', '.xlsx', '.json', '.ndjson', '.jsonl'].includes(ext)) await checkSize(file, ext, limits);
    table = await readByType(file, ext, limits);
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${file}: cannot read: ${code ?? (err as Error).message}`);
  }
  if (table === undefined)
    throw new InputError(
      `${file}: unknown file type '${ext || '(none)'}': use .csv, .xlsx, .json or .ndjson`,
    );
  return checkBounds(table, limits);
}
