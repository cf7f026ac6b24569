import type { ColumnKind } from '../ddl.js';
import { type ColumnDef, columnKind } from '../tables.js';

/**
 * Values of the typed columns as PostgreSQL takes them. SQLite keeps whatever a record holds in
 * any column (its types are affinities); PostgreSQL refuses a string in a number column, so a
 * value that does not fit its column is stored as null there (the record's `raw` keeps it, and
 * the sync counts it in sync_type_error). What fits is stored as SQLite stores it: booleans as
 * 0/1, numbers in text columns as their text, objects as JSON.
 */
export type PgValue = string | number | null;

const MONEY_LIMIT = 1e12; // numeric(14,2): 12 digits before the point

function asNumber(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

/** PostgreSQL text cannot hold U+0000: it becomes U+FFFD (the record's raw says what came). */
export function pgText(s: string): string {
  return s.includes('\u0000') ? s.replaceAll('\u0000', '\uFFFD') : s;
}

export function pgValue(kind: ColumnKind, v: unknown): PgValue {
  if (v === undefined || v === null) return null;
  switch (kind) {
    case 'text':
      if (typeof v === 'string') return pgText(v);
      if (typeof v === 'number') return String(v);
      if (typeof v === 'boolean') return v ? '1' : '0';
      return pgText(JSON.stringify(v));
    case 'id':
    case 'int':
    case 'bigint': {
      const n = asNumber(v);
      if (n === null || !Number.isInteger(n)) return null;
      if (kind === 'int' && Math.abs(n) > 2_147_483_647) return null;
      return Number.isSafeInteger(n) ? n : null;
    }
    case 'money': {
      const n = asNumber(v);
      return n === null || Math.abs(n) >= MONEY_LIMIT ? null : n;
    }
    case 'float':
      return asNumber(v);
    case 'json':
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/** A column's values over a page, one per record. */
export function columnArray(c: ColumnDef, records: readonly Record<string, unknown>[]): PgValue[] {
  const kind = columnKind(c);
  return records.map((r) => pgValue(kind, r[c.field]));
}

function deepText(v: unknown): unknown {
  if (typeof v === 'string') return pgText(v);
  if (Array.isArray(v)) return v.map(deepText);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [pgText(k), deepText(x)]));
  return v;
}

/** A record's JSON as jsonb takes it (jsonb refuses `\u0000`; it becomes U+FFFD). */
export function rawJson(record: Record<string, unknown>): string {
  const raw = JSON.stringify(record);
  return raw.includes('\\u0000') ? JSON.stringify(deepText(record)) : raw;
}

/** PostgreSQL's array type of a kind, for `unnest($n::type[])`. */
export function arrayType(kind: ColumnKind): string {
  switch (kind) {
    case 'id':
    case 'bigint':
      return 'bigint[]';
    case 'int':
      return 'integer[]';
    case 'float':
      return 'double precision[]';
    case 'money':
      return 'numeric[]';
    case 'text':
      return 'text[]';
    case 'json':
      return 'jsonb[]';
  }
}

/**
 * Splits a page into rounds in which no key repeats, in order: one statement per round keeps
 * the effect of writing the records one by one (a key twice in one INSERT ... ON CONFLICT DO
 * UPDATE is an error). A page from a keyset scan is one round.
 */
export function rounds<T>(items: readonly T[], key: (item: T) => string): T[][] {
  const out: T[][] = [];
  const seen: Set<string>[] = [];
  for (const item of items) {
    const k = key(item);
    let i = 0;
    while (seen[i]?.has(k)) i++;
    if (out[i] === undefined) {
      out[i] = [];
      seen[i] = new Set();
    }
    out[i]?.push(item);
    seen[i]?.add(k);
  }
  return out;
}
