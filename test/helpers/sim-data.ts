import { request } from 'node:http';
import { expect } from 'vitest';
import { type FieldType, type OperationName, operations, records } from '../../src/schema/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { call, WRITE_TOKEN } from './sim.js';

/**
 * Typed helpers for the sandbox tests: narrowing of JSON answers (no `any`), the paths of the
 * operations, and a reference implementation of the filter operators that the tests run over
 * `sim.truth()` to know which records a query must return.
 */

export type Json = Record<string, unknown>;

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asObj(v: unknown, what = 'value'): Json {
  if (!isObj(v)) throw new Error(`${what}: expected a JSON object, got ${JSON.stringify(v)?.slice(0, 300)}`);
  return v;
}

export function asList(v: unknown, what = 'value'): Json[] {
  if (!Array.isArray(v))
    throw new Error(`${what}: expected a JSON array, got ${JSON.stringify(v)?.slice(0, 300)}`);
  return v.map((x, i) => asObj(x, `${what}[${i}]`));
}

export function num(v: unknown, what = 'value'): number {
  if (typeof v !== 'number') throw new Error(`${what}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

export function str(v: unknown, what = 'value'): string {
  if (typeof v !== 'string') throw new Error(`${what}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

/** The ids of records, in the order given. */
export function idsOf(list: readonly { id?: unknown }[]): (number | string)[] {
  return list.map((r) => {
    if (typeof r.id !== 'number' && typeof r.id !== 'string')
      throw new Error(`record without id: ${JSON.stringify(r)}`);
    return r.id;
  });
}

/** Numeric ids sorted ascending (for set comparisons). */
export function sortedIds(list: readonly { id?: unknown }[]): number[] {
  return idsOf(list)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The path of an operation, `{id}` filled in. */
export function pathOf(name: OperationName, id?: number | string): string {
  const path: string = operations[name].path;
  return id === undefined ? path : path.replace('{id}', encodeURIComponent(String(id)));
}

export type QueryOp = 'queryHsVendor' | 'queryOrderItem' | 'queryTenant' | 'queryRole';

/** A query that must answer 200 with a bare array (envelope 'array'). */
export async function query(
  sim: RunningSim,
  op: QueryOp,
  body: unknown,
  token = WRITE_TOKEN,
): Promise<Json[]> {
  const res = await call(sim, 'POST', pathOf(op), body, token);
  if (res.status !== 200) throw new Error(`${op}: status ${res.status}: ${JSON.stringify(res.body)}`);
  return asList(res.body, op);
}

/** The error body of the sandbox: `{"error":{"status","code","message"}}`. */
export function errorOf(body: unknown): { status: number; code: string; message: string } {
  const e = asObj(asObj(body, 'error body').error, 'error');
  return {
    status: num(e.status, 'error.status'),
    code: str(e.code, 'error.code'),
    message: str(e.message, 'error.message'),
  };
}

/** Asserts a 400 whose message matches `fragment`; returns the message. */
export async function expect400(
  sim: RunningSim,
  method: string,
  path: string,
  body: unknown,
  fragment: string | RegExp,
): Promise<string> {
  const res = await call(sim, method, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  const err = errorOf(res.body);
  expect(err).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  if (typeof fragment === 'string') expect(err.message).toContain(fragment);
  else expect(err.message).toMatch(fragment);
  return err.message;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The bytes received before the response ended or the connection broke. */
  body: Buffer;
  /** false when the connection broke before the whole response arrived. */
  complete: boolean;
}

/**
 * One request with node:http, under full control of the headers (fetch adds a Content-Type to
 * string bodies), that also reports a body cut short instead of only failing.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let done = false;
        const finish = (complete: boolean) => {
          if (done) return;
          done = true;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            complete,
          });
        };
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => finish(res.complete));
        res.on('aborted', () => finish(false));
        res.on('error', () => finish(false));
        res.on('close', () => finish(res.complete));
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** The 14 operators of the interface, written out here independently of the sandbox. */
export const OPERATORS = [
  'contains',
  'endsWith',
  'equals',
  'greaterThan',
  'greaterThanOrEqualTo',
  'isEmpty',
  'isFalse',
  'isNotEmpty',
  'isTrue',
  'lessThan',
  'lessThanOrEqualTo',
  'listContains',
  'notEquals',
  'startsWith',
] as const;
export type Op = (typeof OPERATORS)[number];

export type QueryResource = 'HsVendor' | 'OrderItem' | 'Tenant' | 'Role';

export function fieldType(resource: QueryResource, field: string): FieldType {
  const spec: { readonly [name: string]: { readonly type: FieldType } } = records[resource].fields;
  const f = spec[field];
  if (f === undefined) throw new Error(`${resource} has no field ${field}`);
  return f.type;
}

/**
 * Reference semantics of one filter item, from the comment at the top of src/sim/query.ts:
 * null/absent match only notEquals and isEmpty; numbers compare as numbers; booleans against
 * "true"/"false"; strings by text (case rule configurable) for equality and substring operators
 * and by code-unit order for the ordering operators; listContains is "equals one of the items".
 */
export function refMatch(
  value: unknown,
  type: FieldType,
  op: Op,
  operand: string,
  caseSensitive = false,
): boolean {
  const missing = value === null || value === undefined;
  const norm = (s: string) => (caseSensitive ? s : s.toLowerCase());
  const same = (x: unknown, y: string): boolean => {
    if (type === 'number') return typeof x === 'number' && x === Number(y);
    if (type === 'boolean') return (x === true && y === 'true') || (x === false && y === 'false');
    return typeof x === 'string' && norm(x) === norm(y);
  };
  if (op === 'isEmpty') return missing || value === '';
  if (op === 'isNotEmpty') return !(missing || value === '');
  if (op === 'isTrue') return value === true;
  if (op === 'isFalse') return value === false;
  if (op === 'notEquals') return missing || !same(value, operand);
  if (missing) return false;
  if (op === 'equals') return same(value, operand);
  if (op === 'listContains') return operand.split(',').some((item) => same(value, item.trim()));
  if (op === 'contains') return norm(String(value)).includes(norm(operand));
  if (op === 'startsWith') return norm(String(value)).startsWith(norm(operand));
  if (op === 'endsWith') return norm(String(value)).endsWith(norm(operand));
  // Ordering operators.
  let sign: number;
  if (type === 'number') sign = Math.sign(Number(value) - Number(operand));
  else {
    const a = String(value);
    sign = a === operand ? 0 : a < operand ? -1 : 1;
  }
  if (op === 'greaterThan') return sign > 0;
  if (op === 'greaterThanOrEqualTo') return sign >= 0;
  if (op === 'lessThan') return sign < 0;
  return sign <= 0;
}

export interface FilterItem {
  columnField: string;
  operatorValue: Op;
  value: string;
}

/** The records of `rows` that an advancedFilter keeps, by the reference semantics. */
export function refFilter<R extends Json>(
  resource: QueryResource,
  rows: readonly R[],
  link: 'AND' | 'OR',
  items: readonly FilterItem[],
  caseSensitive = false,
): R[] {
  const test = (r: R, it: FilterItem) =>
    refMatch(
      r[it.columnField],
      fieldType(resource, it.columnField),
      it.operatorValue,
      it.value,
      caseSensitive,
    );
  return rows.filter((r) =>
    link === 'AND' ? items.every((it) => test(r, it)) : items.some((it) => test(r, it)),
  );
}

/** Null and absent first, numbers numerically, other values by code-unit order; ties by id ascending. */
export function refSort<R extends Json>(rows: readonly R[], field: string, direction: 'asc' | 'desc'): R[] {
  const cmp = (a: unknown, b: unknown): number => {
    const na = a === null || a === undefined;
    const nb = b === null || b === undefined;
    if (na || nb) return na === nb ? 0 : na ? -1 : 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    const sa = String(a);
    const sb = String(b);
    return sa === sb ? 0 : sa < sb ? -1 : 1;
  };
  const dir = direction === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => dir * cmp(a[field], b[field]) || Number(a.id) - Number(b.id));
}

/** The value that occurs most often in a field (ties: the smallest as text), for picking test data. */
export function mostCommon(rows: readonly Json[], field: string): unknown {
  const counts = new Map<string, { value: unknown; n: number }>();
  for (const r of rows) {
    const v = r[field];
    if (v === null || v === undefined) continue;
    const key = JSON.stringify(v);
    const c = counts.get(key);
    if (c === undefined) counts.set(key, { value: v, n: 1 });
    else c.n++;
  }
  const best = [...counts.entries()].sort((a, b) => b[1].n - a[1].n || (a[0] < b[0] ? -1 : 1))[0];
  if (best === undefined) throw new Error(`no value in ${field}`);
  return best[1].value;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
