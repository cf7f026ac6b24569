import { z } from 'zod';
import { InputError } from '../errors.js';
import type { CellValue, InputTable } from '../input/read-table.js';
import { type FieldSpec, isIdField, type ObjectSpec } from '../schema/index.js';
import { columnsOf, isOpName, type OpName, opNames, ops } from './ops.js';

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

function coerceNumber(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const t = v.trim().replace(/^\$/, '');
  return t !== '' && Number.isFinite(Number(t)) ? Number(t) : v;
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

/** The op's own rules (required fields, amounts), checked whatever else is wrong with the row. */
function opRules(op: OpName, input: Record<string, unknown>): string[] {
  const lines: string[] = [];
  for (const field of ops[op].required) if (input[field] === undefined) lines.push(`${field}: required`);
  if (op === 'payment') {
    const amount = coerceNumber(input.amountToPay);
    if (typeof amount === 'number') {
      if (!(amount > 0)) lines.push('amountToPay: must be greater than 0');
      else if (Math.abs(Math.round(amount * 100) - amount * 100) > 1e-6)
        lines.push('amountToPay: at most 2 decimals (cents)');
    }
  }
  if (ops[op].targeted && op !== 'person.delete' && Object.keys(input).length === 0)
    lines.push('row: nothing to change: give at least one field besides id');
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
 * Validates every row of a table for write-back; `op` (from `--op`) applies to rows whose `op`
 * cell is empty. Throws one InputError listing every problem.
 */
export function validateRows(table: InputTable, op?: OpName): ValidRow[] {
  const problems: string[] = [];
  const at = (row: number, field: string, message: string) =>
    problems.push(`${table.file}:${row}: ${field}: ${message}`);
  const hasOpColumn = table.columns.includes('op');
  if (op === undefined && !hasOpColumn)
    at(1, 'op', 'no op column: add one, or give --op OP for the whole file');

  const rows: { row: number; op: OpName; values: Record<string, CellValue> }[] = [];
  for (const r of table.rows) {
    const cellOp = r.values.op ?? null;
    if (cellOp !== null && !isOpName(cellOp)) {
      at(r.row, 'op', `'${String(cellOp)}' is not one of ${opNames.join(', ')}`);
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
    rows.push({ row: r.row, op: rowOp, values: r.values });
  }

  // Columns no op of this file knows are reported once, on the header row.
  const used = new Set(rows.map((r) => r.op));
  const known = new Set([...used].flatMap((o) => [...columnsOf(o)]));
  const unknownColumns = new Set(table.columns.filter((c) => c !== '' && !known.has(c)));
  for (const c of unknownColumns)
    at(1, c, `unknown column (not a field of ${[...used].join(', ') || 'any op'})`);

  const valid: ValidRow[] = [];
  for (const r of rows) {
    const def = ops[r.op];
    const { op: _op, id, ...cells } = r.values;
    let target: number | null = null;
    let bad = false;
    if (def.targeted) {
      if (id === null || id === undefined) {
        at(r.row, 'id', `required: the ${def.target ?? 'record'} id`);
        bad = true;
      } else {
        const t = targetId(id);
        if (typeof t === 'string') {
          at(r.row, 'id', t);
          bad = true;
        } else target = t;
      }
    } else if (id !== null && id !== undefined) {
      at(r.row, 'id', `not used by ${r.op} (the service gives the new record its id)`);
      bad = true;
    }
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(cells)) if (!unknownColumns.has(k) && v !== null) input[k] = v;
    const parsed = opSchema(r.op).safeParse(input);
    const lines = [...opRules(r.op, input), ...(parsed.success ? [] : issueLines(r.op, parsed.error.issues))];
    for (const line of new Set(lines)) problems.push(`${table.file}:${r.row}: ${line}`);
    if (bad || !parsed.success || lines.length > 0) continue;
    valid.push({
      row: r.row,
      op: r.op,
      targetId: target,
      body: dropNulls(parsed.data) as Record<string, unknown>,
    });
  }
  if (table.rows.length === 0) problems.push(`${table.file}: no rows`);
  if (problems.length > 0) {
    const rowOf = (line: string) => Number(line.slice(table.file.length + 1).split(':')[0]) || 0;
    problems.sort((a, b) => rowOf(a) - rowOf(b));
    throw new InputError(`${table.file}: ${problems.length} problem(s), nothing planned`, {
      detail: problems,
    });
  }
  return valid;
}
