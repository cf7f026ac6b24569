import { type FieldSpec, type ObjectSpec, type Operator, operators } from '../schema/index.js';
import { badRequest } from './http-error.js';
import type { SimOptions } from './options.js';
import type { SimRecord, Table } from './store.js';

/**
 * The query operations (1 to 4) of the sandbox: validation of the common query body, filtering,
 * sorting, paging and field selection. The meaning chosen for each operator is written in
 * docs/sandbox.md; in short:
 *
 * - equals / notEquals: numbers compare as numbers (the value must parse as one), booleans
 *   against "true"/"false", strings by text with the configured case rule. notEquals matches
 *   null or absent fields; every other comparison never matches them.
 * - contains / startsWith / endsWith: string fields only, with the configured case rule.
 * - greaterThan / greaterThanOrEqualTo / lessThan / lessThanOrEqualTo: number fields as numbers,
 *   string fields by code-unit order (so ISO 8601 timestamps compare as times); not booleans.
 * - isEmpty: null, absent or ""; isNotEmpty: the opposite. isTrue / isFalse: boolean fields only.
 * - listContains: the value is a comma-separated list; the field equals one of its items.
 *
 * Simple filters (extra body keys) are `equals` filters, combined with AND with each other and
 * with `advancedFilter`.
 */
export { operators };

const bodyKeys = new Set([
  'advancedFilter',
  'return',
  'isAdditionalData',
  'page',
  'pageSize',
  'sortBy',
  'sortDirection',
]);

interface Condition {
  field: string;
  spec: FieldSpec;
  op: Operator;
  value: string;
}

export interface ParsedQuery {
  conditions: Condition[];
  link: 'AND' | 'OR';
  simple: Condition[];
  returnFields: string[] | undefined;
  isAdditionalData: boolean;
  page: number;
  pageSize: number;
  sortBy: string | undefined;
  sortDirection: 'asc' | 'desc';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fieldSpec(spec: ObjectSpec, field: string, where: string): FieldSpec {
  // Own properties only: 'toString' or 'constructor' is no field of any resource.
  const f = Object.hasOwn(spec.fields, field) ? spec.fields[field] : undefined;
  if (f === undefined) throw badRequest(`${where}: unknown field '${field}'`);
  return f;
}

function positiveInt(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw badRequest(`${name}: expected a whole number of at least 1, got ${JSON.stringify(v)}`);
  }
  return v;
}

function checkOperator(c: Condition, where: string): void {
  const t = c.spec.type;
  const stringOnly = c.op === 'contains' || c.op === 'startsWith' || c.op === 'endsWith';
  const ordered = c.op.startsWith('greaterThan') || c.op.startsWith('lessThan');
  if (stringOnly && t !== 'string')
    throw badRequest(`${where}: operator ${c.op} needs a string field, '${c.field}' is a ${t}`);
  if (ordered && t === 'boolean')
    throw badRequest(`${where}: operator ${c.op} cannot compare boolean field '${c.field}'`);
  if ((c.op === 'isTrue' || c.op === 'isFalse') && t !== 'boolean') {
    throw badRequest(`${where}: operator ${c.op} needs a boolean field, '${c.field}' is a ${t}`);
  }
  const needsValue = c.op === 'equals' || c.op === 'notEquals' || ordered;
  if (needsValue && t === 'number' && !isNumeric(c.value)) {
    throw badRequest(`${where}: '${c.field}' is a number, value ${JSON.stringify(c.value)} is not`);
  }
  if (needsValue && t === 'boolean' && c.value !== 'true' && c.value !== 'false') {
    throw badRequest(`${where}: '${c.field}' is a boolean, value must be "true" or "false"`);
  }
  if (c.op === 'listContains' && t === 'number' && !c.value.split(',').every((x) => isNumeric(x.trim()))) {
    throw badRequest(
      `${where}: '${c.field}' is a number, list ${JSON.stringify(c.value)} holds a non-number`,
    );
  }
}

function isNumeric(s: string): boolean {
  return s.trim() !== '' && Number.isFinite(Number(s));
}

/** Validates a query body against a resource; throws a 400 naming what is wrong. */
export function parseQuery(spec: ObjectSpec, body: unknown): ParsedQuery {
  if (!isObject(body)) throw badRequest('query body: expected a JSON object');
  const q: ParsedQuery = {
    conditions: [],
    link: 'AND',
    simple: [],
    returnFields: undefined,
    isAdditionalData: false,
    page: 1,
    pageSize: 500,
    sortBy: undefined,
    sortDirection: 'desc',
  };
  for (const [key, value] of Object.entries(body)) {
    if (bodyKeys.has(key)) continue;
    const f = fieldSpec(spec, key, 'simple filter');
    if (typeof value !== 'string') throw badRequest(`simple filter '${key}': expected a string value`);
    q.simple.push({ field: key, spec: f, op: 'equals', value });
  }
  for (const c of q.simple) checkOperator(c, `simple filter '${c.field}'`);

  if (body.advancedFilter !== undefined) {
    const af = body.advancedFilter;
    if (!isObject(af)) throw badRequest('advancedFilter: expected an object');
    for (const k of Object.keys(af)) {
      if (k !== 'linkOperator' && k !== 'items') throw badRequest(`advancedFilter: unexpected key '${k}'`);
    }
    if (af.linkOperator !== 'AND' && af.linkOperator !== 'OR') {
      throw badRequest('advancedFilter.linkOperator: required, "AND" or "OR"');
    }
    q.link = af.linkOperator;
    if (!Array.isArray(af.items)) throw badRequest('advancedFilter.items: required, an array');
    af.items.forEach((item: unknown, i: number) => {
      const where = `advancedFilter.items[${i}]`;
      if (!isObject(item)) throw badRequest(`${where}: expected an object`);
      for (const k of Object.keys(item)) {
        if (k !== 'columnField' && k !== 'operatorValue' && k !== 'value')
          throw badRequest(`${where}: unexpected key '${k}'`);
      }
      if (typeof item.columnField !== 'string') throw badRequest(`${where}.columnField: required, a string`);
      if (
        typeof item.operatorValue !== 'string' ||
        !(operators as readonly string[]).includes(item.operatorValue)
      ) {
        throw badRequest(`${where}.operatorValue: required, one of ${operators.join(', ')}`);
      }
      if (typeof item.value !== 'string') throw badRequest(`${where}.value: required, a string`);
      const c: Condition = {
        field: item.columnField,
        spec: fieldSpec(spec, item.columnField, `${where}.columnField`),
        op: item.operatorValue as Operator,
        value: item.value,
      };
      checkOperator(c, where);
      q.conditions.push(c);
    });
  }

  if (body.return !== undefined) {
    if (!Array.isArray(body.return) || !body.return.every((f) => typeof f === 'string')) {
      throw badRequest('return: expected an array of field names');
    }
    for (const f of body.return as string[]) {
      if (!Object.hasOwn(spec.fields, f) && !Object.hasOwn(spec.arrays ?? {}, f))
        throw badRequest(`return: unknown field '${f}'`);
    }
    q.returnFields = body.return as string[];
  }
  if (body.isAdditionalData !== undefined) {
    if (typeof body.isAdditionalData !== 'boolean')
      throw badRequest('isAdditionalData: expected true or false');
    q.isAdditionalData = body.isAdditionalData;
  }
  if (body.page !== undefined) q.page = positiveInt(body.page, 'page');
  if (body.pageSize !== undefined) q.pageSize = positiveInt(body.pageSize, 'pageSize');
  if (body.sortBy !== undefined) {
    if (typeof body.sortBy !== 'string') throw badRequest('sortBy: expected a field name');
    fieldSpec(spec, body.sortBy, 'sortBy');
    q.sortBy = body.sortBy;
  }
  if (body.sortDirection !== undefined) {
    if (body.sortDirection !== 'asc' && body.sortDirection !== 'desc')
      throw badRequest('sortDirection: "asc" or "desc"');
    q.sortDirection = body.sortDirection;
  }
  return q;
}

type Fold = (s: string) => string;

function matches(
  record: SimRecord,
  c: Condition,
  fold: Fold,
  listContains: SimOptions['listContains'] = 'any',
): boolean {
  const v = record[c.field];
  const empty = v === null || v === undefined;
  switch (c.op) {
    case 'isEmpty':
      return empty || v === '';
    case 'isNotEmpty':
      return !(empty || v === '');
    case 'isTrue':
      return v === true;
    case 'isFalse':
      return v === false;
    case 'notEquals':
      return empty || !equalsValue(v, c, c.value, fold);
    default:
      break;
  }
  if (empty) return false;
  switch (c.op) {
    case 'equals':
      return equalsValue(v, c, c.value, fold);
    case 'listContains':
      // 'whole': the other reading of the gap, the field's text containing the value as a whole.
      if (listContains === 'whole') return fold(String(v)).includes(fold(c.value));
      return c.value.split(',').some((item) => equalsValue(v, c, item.trim(), fold));
    case 'contains':
      return fold(String(v)).includes(fold(c.value));
    case 'startsWith':
      return fold(String(v)).startsWith(fold(c.value));
    case 'endsWith':
      return fold(String(v)).endsWith(fold(c.value));
    default: {
      const cmp = c.spec.type === 'number' ? Number(v) - Number(c.value) : compareText(String(v), c.value);
      if (c.op === 'greaterThan') return cmp > 0;
      if (c.op === 'greaterThanOrEqualTo') return cmp >= 0;
      if (c.op === 'lessThan') return cmp < 0;
      return cmp <= 0;
    }
  }
}

function equalsValue(v: unknown, c: Condition, value: string, fold: Fold): boolean {
  if (c.spec.type === 'number') return Number(v) === Number(value);
  if (c.spec.type === 'boolean') return String(v) === value;
  return fold(String(v)) === fold(value);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The [lo, hi) index range of an id-sorted table that AND-ed id conditions allow. */
function idRange(table: Table, conds: readonly Condition[]): [number, number] {
  let lo = 0;
  let hi = table.size;
  for (const c of conds) {
    if (c.field !== 'id' || c.spec.type !== 'number') continue;
    const n = Number(c.value);
    if (c.op === 'greaterThan') lo = Math.max(lo, table.upperBound(n));
    else if (c.op === 'greaterThanOrEqualTo') lo = Math.max(lo, table.lowerBound(n));
    else if (c.op === 'lessThan') hi = Math.min(hi, table.lowerBound(n));
    else if (c.op === 'lessThanOrEqualTo') hi = Math.min(hi, table.upperBound(n));
    else if (c.op === 'equals') {
      lo = Math.max(lo, table.lowerBound(n));
      hi = Math.min(hi, table.upperBound(n));
    }
  }
  return [lo, Math.max(lo, hi)];
}

export interface QueryResult {
  records: Record<string, unknown>[];
  total: number;
}

/** Runs a parsed query over a table: filter, order, page, project. */
export function runQuery(table: Table, q: ParsedQuery, options: SimOptions): QueryResult {
  const fold: Fold = options.stringCase === 'insensitive' ? (s) => s.toLowerCase() : (s) => s;
  const andConds = q.link === 'AND' ? [...q.simple, ...q.conditions] : q.simple;
  const orConds = q.link === 'OR' ? q.conditions : [];
  const keep = (r: SimRecord) =>
    andConds.every((c) => matches(r, c, fold, options.listContains)) &&
    (orConds.length === 0 || orConds.some((c) => matches(r, c, fold, options.listContains)));

  const size = options.pageCap > 0 ? Math.min(q.pageSize, options.pageCap) : q.pageSize;
  const offset = (q.page - 1) * size;
  const byId = q.sortBy === 'id' || (q.sortBy === undefined && options.defaultOrder === 'id');

  let ordered: SimRecord[];
  if (byId) {
    // The table is id-sorted: narrow to the id range, walk it in the asked direction.
    const [lo, hi] = idRange(table, andConds);
    const rows = table.all();
    ordered = [];
    const asc = q.sortBy === undefined || q.sortDirection === 'asc';
    if (asc) for (let i = lo; i < hi; i++) pushIf(ordered, rows[i], keep);
    else for (let i = hi - 1; i >= lo; i--) pushIf(ordered, rows[i], keep);
  } else if (q.sortBy === undefined) {
    ordered = table.inHashOrder().filter(keep);
  } else {
    const field = q.sortBy;
    const dir = q.sortDirection === 'asc' ? 1 : -1;
    ordered = table
      .all()
      .filter(keep)
      .sort((a, b) => dir * compareValues(a[field], b[field]) || compareNumbers(a.id, b.id));
  }
  const page = ordered.slice(offset, offset + size);
  return {
    records: page.map((r) => project(r, q.returnFields, q.isAdditionalData, options.lean)),
    total: ordered.length,
  };
}

function pushIf(out: SimRecord[], r: SimRecord | undefined, keep: (r: SimRecord) => boolean): void {
  if (r !== undefined && keep(r)) out.push(r);
}

/** Null and absent sort as the smallest values. */
function compareValues(a: unknown, b: unknown): number {
  const na = a === null || a === undefined;
  const nb = b === null || b === undefined;
  if (na || nb) return na && nb ? 0 : na ? -1 : 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareText(String(a), String(b));
}

function compareNumbers(a: unknown, b: unknown): number {
  return Number(a) - Number(b);
}

/**
 * The fields of a record a response carries: without `fields`, the default response (the whole
 * record; in lean mode without computed `c_*` fields); with `fields` and not `additional`, those
 * fields plus `id`; with both, the default response plus those fields.
 */
export function project(
  record: SimRecord,
  fields: readonly string[] | undefined,
  additional: boolean,
  lean: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields === undefined || additional) {
    for (const [k, v] of Object.entries(record)) {
      if (lean && k.startsWith('c_')) continue;
      out[k] = v;
    }
  } else {
    out.id = record.id;
  }
  for (const f of fields ?? []) {
    if (f in record) out[f] = record[f];
  }
  return out;
}
