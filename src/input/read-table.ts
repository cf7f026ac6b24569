import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { InputConfig } from '../config/schema.js';
import { InputError } from '../errors.js';
import { printable } from '../util/printable.js';
import { type CellValue, edgeTrim, type InputRow, type InputTable } from './table.js';
import { chooseSheet } from './xlsx-book.js';
import { readSheetCells } from './xlsx-cells.js';
import { zipUnpackedSize } from './zip-size.js';

/**
 * Input files of the user (policy files, write-back plans): CSV (comma or semicolon separated),
 * XLSX, JSON (an array of objects) or NDJSON, read into rows of named cells, each with its row number in the file so
 * errors can say `file:row: field: what is wrong`.
 */
export type { CellValue, InputTable } from './table.js';

function cell(value: unknown): CellValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return edgeTrim(value) === '' ? null : edgeTrim(value);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

/**
 * The separator of a CSV file, from its header line outside quotes: `;` or `,`, never both (a
 * header holding both is refused: one delimiter per file); a header of one column is `,`.
 */
export function csvDelimiter(file: string, text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && c === ',') commas++;
    else if (!quoted && c === ';') semicolons++;
  }
  if (commas > 0 && semicolons > 0)
    throw new InputError(
      `${file}:1: the header holds both , and ; between fields: one delimiter per file (quote a header that holds the other)`,
    );
  return semicolons > 0 ? ';' : ',';
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
  delimiter: string,
): InputError {
  const hint =
    fields > expected && delimiter === ','
      ? ': a decimal comma or a comma inside a value must be quoted ("12,50"), or separate the fields with ;'
      : ': every row has one field per header column';
  return new InputError(
    `${file}:${row}: ${fields} field${fields === 1 ? '' : 's'}, header has ${expected}${hint}`,
  );
}

/** Headers are unique whatever their case (`amountToPay` twice, or `AMOUNTTOPAY` beside it, is refused). */
function uniqueHeaders(file: string, columns: string[], name: (k: number) => string): void {
  const seen = new Map<string, number>();
  columns.forEach((c, k) => {
    if (c === '') return;
    const other = seen.get(c.toLowerCase());
    if (other !== undefined)
      throw new InputError(
        `${file}:1: columns ${name(other)} and ${name(k)} are both headed ${printable(c, 100)}: one column per header; delete or rename one`,
      );
    seen.set(c.toLowerCase(), k);
  });
}

function parseCsv(file: string, text: string, delimiter: ',' | ';', limits: InputLimits): string[][] {
  const other = delimiter === ',' ? ';' : ',';
  let stray: InputError | undefined;
  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      // Counted below, row by row, to name the row and both counts (csv-parse would name a line).
      relax_column_count: true,
      skip_empty_lines: false,
      // A record far over the field bound stops the parse there (checkBounds names the field otherwise).
      max_record_size: limits.maxFieldChars * 64,
      // One delimiter: the other one, unquoted, is a second separator in disguise (`1,500` in a ;-file).
      cast: (value, context) => {
        if (stray === undefined && !context.quoting && value.includes(other))
          stray = new InputError(
            `${file}:${context.records + 1}: field ${context.index + 1} (${printable(value, 40)}): a '${other}' in a '${delimiter}'-separated file: quote the field if it is text; amounts have no separators`,
          );
        return value;
      },
    }) as string[][];
  } catch (err) {
    if ((err as { code?: string }).code === 'CSV_MAX_RECORD_SIZE')
      throw new InputError(
        `${file}:${(err as { lines?: number }).lines ?? '?'}: a record over ${limits.maxFieldChars * 64} characters (input.maxFieldChars ${limits.maxFieldChars} per field)`,
      );
    throw new InputError(`${file}: not valid CSV: ${(err as Error).message}`);
  }
  if (stray !== undefined) throw stray;
  return records;
}

/**
 * A CSV file read exactly: one delimiter (`,` or `;`, from the header line; the other one unquoted
 * in a field is refused), one field per header column on every row, headers unique whatever
 * their case. Fields keep what they hold but ASCII spaces and tabs at their edges.
 */
async function readCsv(file: string, limits: InputLimits): Promise<InputTable> {
  const text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  const delimiter = csvDelimiter(file, text);
  const [header = [], ...body] = parseCsv(file, text, delimiter, limits);
  const columns = header.map((h) => edgeTrim(h));
  uniqueHeaders(file, columns, (k) => `${k + 1}`);
  const rows: InputRow[] = [];
  body.forEach((rec, i) => {
    if (rec.every((c) => edgeTrim(c) === '')) return;
    if (rec.length !== header.length)
      throw fieldCountError(file, i + 2, rec.length, header.length, delimiter);
    const values: Record<string, CellValue> = {};
    columns.forEach((c, k) => {
      if (c !== '') values[c] = cell(rec[k]);
    });
    rows.push({ row: i + 2, values });
  });
  return { file, columns, rows };
}

/** How a file is read beyond its bounds: the sheet to read, and whether date cells are taken. */
export interface ReadOptions {
  /** The workbook's sheet to read, matched exactly (`--sheet`); else its only visible sheet. */
  sheet?: string;
  /** Date cells are read as `YYYY-MM-DD` (policy files); write-back files refuse them. */
  dates?: boolean;
}

async function readXlsx(file: string, limits: InputLimits, options: ReadOptions): Promise<InputTable> {
  const sheet = await chooseSheet(file, options.sheet);
  return readSheetCells(file, sheet, { maxRows: limits.maxRows, dates: options.dates === true });
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

async function readByType(
  file: string,
  ext: string,
  limits: InputLimits,
  options: ReadOptions,
): Promise<InputTable | undefined> {
  if (options.sheet !== undefined && ext !== '.xlsx')
    throw new InputError(
      `${file}: --sheet names a sheet of an .xlsx workbook, not of a ${ext || 'file without extension'}`,
    );
  if (ext === '.csv') return readCsv(file, limits);
  if (ext === '.xlsx') return readXlsx(file, limits, options);
  if (ext === '.json') return readJson(file, false);
  if (ext === '.ndjson' || ext === '.jsonl') return readJson(file, true);
  return undefined;
}

/** Reads a CSV, XLSX, JSON or NDJSON file by its extension, within `limits` (config `input`). */
export async function readTable(
  file: string,
  limits: InputLimits,
  options: ReadOptions = {},
): Promise<InputTable> {
  const ext = extname(file).toLowerCase();
  let table: InputTable | undefined;
  try {
    if (['.csv', '.xlsx', '.json', '.ndjson', '.jsonl'].includes(ext)) await checkSize(file, ext, limits);
    table = await readByType(file, ext, limits, options);
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
