import { z } from 'zod';
import { InputError } from '../errors.js';
import type { CellValue, InputTable } from '../input/read-table.js';
import { type FieldSpec, isIdField, type ObjectSpec } from '../schema/index.js';
import { closestName, didYouMean } from '../util/closest.js';
import { AMOUNT_RULE, parseAmount } from './amount.js';
import { columnsOf, isOpName, type OpName, opNames, ops } from './ops/index.js';
import { printable } from './privacy.js';

/**
 * Validation of a write-back file. The zod schemas are derived from the schema module's
 * ObjectSpecs (no field list of our own): each field becomes z.string() / z.number() /
 * z.boolean() (whole numbers for `id` and `...Id` links, minLength where the interface states
 * one), each nested array a strict array of strict objects, recursively. Unknown fields are
 * errors. Top-level cells of CSV/XLSX are text, so they are coerced by the field's type; nested
 * arrays come as JSON cells (a column `staff` holding `[{"jobTitle":"Driver"}]`) and must be
 * typed JSON. An empty cell (or JSON null) means "not given".
 * Every problem of every row is reported at once (`file:row: field: what is wrong`); one bad
 * row and nothing is planned.
 *
 * Headers match fields whatever their case (`invoiceid` is `InvoiceId`; two columns of one field
 * are refused when the file is read), and an unknown header gets the closest field as a
 * suggestion. Numbers and amounts are read by one grammar each: digits, one point, a leading minus
 * (amount.ts); a currency sign, a thousands separator or a space is refused, never removed.
 */
export interface ValidRow {
  row: number;
  op: OpName;
  /** The target's id (person or applicant) for updates and deletes. */
  targetId: number | null;
  body: Record<string, unknown>;
}

const trueWords = new Set(['true', 'yes', 'y', '1']);
const falseWords = new Set(['false', 'no', 'n', '0']);

/**
 * A number written as text, in the grammar of amounts without their bound on decimals: digits
 * 0-9, one optional point, a leading minus only. No currency sign, separator, space, exponent
 * (`1e2`), hex (`0x10`) or `Infinity`.
 */
const decimal = /^-?[0-9]+(\.[0-9]+)?$/;

export function coerceNumber(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  return decimal.test(v) && Number.isFinite(Number(v)) ? Number(v) : v;
}

function coerceBoolean(v: unknown): unknown {
  if (typeof v === 'number') return v === 1 ? true : v === 0 ? false : v;
  if (typeof v !== 'string') return v;
  const t = v.trim().toLowerCase();
  return trueWords.has(t) ? true : falseWords.has(t) ? false : v;
}

function fieldSchema(name: string, spec: FieldSpec, coerce: boolean): z.ZodType {
  if (spec.type === 'string') {
    let s = z.string({ error: 'expected text' });
    if (spec.minLength !== undefined)
      s = s.min(spec.minLength, `must be at least ${spec.minLength} character(s)`);
    return coerce ? z.preprocess((v) => (typeof v === 'number' ? String(v) : v), s) : s;
  }
  if (spec.type === 'number' && spec.money === true)
    // The value read is shown: `amountToPay: "12,50" is not an amount: ...` (an amount is no personal value).
    return z.unknown().transform((v, ctx) => {
      if (v === undefined) return v;
      const amount = parseAmount(v);
      if (amount !== undefined) return amount;
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(printable(String(v)))} is ${AMOUNT_RULE}` });
      return z.NEVER;
    });
  if (spec.type === 'number') {
    let n = z.number({ error: 'expected a number' });
    if (isIdField(name)) n = n.int('expected a whole number');
    return coerce ? z.preprocess(coerceNumber, n) : n;
  }
  const b = z.boolean({ error: 'expected true or false' });
  return coerce ? z.preprocess(coerceBoolean, b) : b;
}

function parseJsonCell(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return dropNulls(JSON.parse(v));
  } catch {
    return v;
  }
}

const cache = new Map<string, z.ZodType>();

/**
 * The strict zod schema of an ObjectSpec: every field optional, unknown keys rejected, nested
 * arrays as JSON. `coerce` (top level of a row): text cells are read as numbers and booleans.
 */
export function schemaOf(spec: ObjectSpec, coerce: boolean): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, f] of Object.entries(spec.fields)) shape[name] = fieldSchema(name, f, coerce).optional();
  for (const [name, child] of Object.entries(spec.arrays ?? {})) {
    const arr = z.array(schemaOf(child, false), { error: 'expected a JSON array of objects' });
    shape[name] = z.preprocess(parseJsonCell, arr).optional();
  }
  return z.strictObject(shape);
}

function opSchema(op: OpName): z.ZodType {
  const cached = cache.get(op);
  if (cached !== undefined) return cached;
  const schema = schemaOf(ops[op].spec, true);
  cache.set(op, schema);
  return schema;
}

/** The op's own rules (required fields, its declared row rules), checked whatever else is wrong with the row. */
function opRules(op: OpName, input: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const field of ops[op].required) if (input[field] === undefined) lines.push(`${field}: required`);
  lines.push(...(ops[op].rowRules?.(input) ?? []));
  return lines;
}

/** Drops nulls (empty cells, JSON null) everywhere: "not given". */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else out += out === '' ? String(p) : `.${String(p)}`;
  }
  return out;
}

function issueLines(op: OpName, issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) lines.push(`${pathText([...issue.path, key])}: not a field of ${op}`);
      continue;
    }
    lines.push(`${pathText(issue.path) || 'row'}: ${issue.message}`);
  }
  return lines;
}

function targetId(v: CellValue): number | string {
  const n = coerceNumber(v);
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 'expected a whole number above 0';
}

/**
 * The table's headers as fields: exact, else the field of the same name in another case
 * (`invoiceid` -> `InvoiceId`). Returns the header -> field map.
 */
function headerFields(columns: readonly string[], known: Set<string>): Map<string, string> {
  const byLower = new Map([...known].map((k) => [k.toLowerCase(), k]));
  const out = new Map<string, string>();
  for (const c of columns) out.set(c, known.has(c) ? c : (byLower.get(c.toLowerCase()) ?? c));
  return out;
}

/** Why a column is not read, with a suggestion: another op's field, or the closest field. */
function unknownColumnMessage(column: string, used: OpName[], known: Set<string>): string {
  const of = used.length > 0 ? used.join(', ') : 'any op';
  const owners = opNames.filter(
    (o) => !used.includes(o) && [...columnsOf(o)].some((f) => f.toLowerCase() === column.toLowerCase()),
  );
  if (owners.length > 0)
    return `unknown column: not a field of ${of} (it is a field of ${owners.join(', ')}: check --op or the op column)`;
  const hint = closestName(column, known);
  return `unknown column (not a field of ${of})${hint === undefined ? '' : `: did you mean ${hint}?`}`;
}

export interface Validation {
  valid: ValidRow[];
  /** `file:row: field: what is wrong`, every problem of every row. */
  problems: string[];
  /** Each row's op and cells read as fields (for the checks against the mirror, bad rows too). */
  rows: { row: number; op: OpName; values: Record<string, CellValue> }[];
}

/**
 * Validates every row of a table for write-back; `op` (from `--op`) applies to rows whose `op`
 * cell is empty. Every problem is collected; the caller adds its own and throws once.
 */
export function checkRows(table: InputTable, op?: OpName): Validation {
  const problems: string[] = [];
  const at = (row: number, field: string, message: string) =>
    problems.push(`${table.file}:${row}: ${printable(field)}: ${message}`);
  const allFields = new Set(opNames.flatMap((o) => [...columnsOf(o)]));
  const header = headerFields(table.columns, allFields);
  const field = (c: string) => header.get(c) ?? c;
  const byField = new Map<string, string>();
  for (const c of table.columns) {
    const other = byField.get(field(c));
    if (other !== undefined && other !== c)
      at(
        1,
        field(c),
        `columns ${printable(other)} and ${printable(c)} are the same field: one column per field`,
      );
    byField.set(field(c), c);
  }
  const hasOpColumn = table.columns.some((c) => field(c) === 'op');
  if (op === undefined && !hasOpColumn)
    at(1, 'op', 'no op column: add one, or give --op OP for the whole file');

  const rows: Validation['rows'] = [];
  for (const r of table.rows) {
    const values: Record<string, CellValue> = {};
    for (const [c, v] of Object.entries(r.values)) values[field(c)] = v;
    const cellOp = values.op ?? null;
    if (cellOp !== null && !isOpName(cellOp)) {
      at(
        r.row,
        'op',
        `'${printable(String(cellOp))}' is not one of ${opNames.join(', ')}${didYouMean(String(cellOp), opNames)}`,
      );
      continue;
    }
    if (cellOp !== null && op !== undefined && cellOp !== op) {
      at(r.row, 'op', `'${cellOp}' differs from --op ${op}`);
      continue;
    }
    const rowOp = cellOp ?? op;
    if (rowOp === undefined) {
      if (hasOpColumn) at(r.row, 'op', 'required (or give --op OP)');
      continue;
    }
    rows.push({ row: r.row, op: rowOp, values });
  }

  // Columns no op of this file knows are reported once, on the header row.
  const used = [...new Set(rows.map((r) => r.op))];
  const known = new Set(used.flatMap((o) => [...columnsOf(o)]));
  const unknownColumns = new Set(table.columns.map(field).filter((c) => c !== '' && !known.has(c)));
  for (const c of unknownColumns) at(1, c, unknownColumnMessage(c, used, known.size > 0 ? known : allFields));

  const valid: ValidRow[] = [];
  for (const r of rows) {
    const row = validateRow(r, unknownColumns);
    for (const line of row.problems) problems.push(`${table.file}:${r.row}: ${line}`);
    if (row.valid !== undefined) valid.push(row.valid);
  }
  if (table.rows.length === 0) problems.push(`${table.file}: no rows`);
  return { valid, problems, rows };
}

function validateRow(
  r: { row: number; op: OpName; values: Record<string, CellValue> },
  unknownColumns: Set<string>,
): { valid?: ValidRow; problems: string[] } {
  const def = ops[r.op];
  const { op: _op, id, ...cells } = r.values;
  const lines: string[] = [];
  let target: number | null = null;
  if (def.targeted) {
    if (id === null || id === undefined) lines.push(`id: required: the ${def.target ?? 'record'} id`);
    else {
      const t = targetId(id);
      if (typeof t === 'string') lines.push(`id: ${t}`);
      else target = t;
    }
  } else if (id !== null && id !== undefined) {
    lines.push(`id: not used by ${r.op} (the service gives the new record its id)`);
  }
  const input: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(cells)) if (!unknownColumns.has(k) && v !== null) input[k] = v;
  const parsed = opSchema(r.op).safeParse(input);
  lines.push(...opRules(r.op, input), ...(parsed.success ? [] : issueLines(r.op, parsed.error.issues)));
  const problems = [...new Set(lines)].map((l) => printable(l));
  if (problems.length > 0 || !parsed.success) return { problems };
  return {
    problems,
    valid: {
      row: r.row,
      op: r.op,
      targetId: target,
      body: dropNulls(parsed.data) as Record<string, unknown>,
    },
  };
}

/** Throws one InputError listing every problem, sorted by row. */
export function throwProblems(file: string, problems: string[]): void {
  if (problems.length === 0) return;
  const rowOf = (line: string) => Number(line.slice(file.length + 1).split(':')[0]) || 0;
  problems.sort((a, b) => rowOf(a) - rowOf(b));
  throw new InputError(`${file}: ${problems.length} problem(s), nothing planned`, { detail: problems });
}
