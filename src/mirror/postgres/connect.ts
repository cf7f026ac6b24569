import { hostname } from 'node:os';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { OhsError } from '../../errors.js';
import type { Database as MirrorDb } from '../db-types.js';
import { PgMirrorError } from './errors.js';
import { passwordOf, pgTarget, redactUrl } from './url.js';

/**
 * Connections to a PostgreSQL mirror: a `pg` Pool under Kysely's PostgresDialect, values coming
 * back as the SQLite engine returns them, and failures turned into errors that name host and
 * database (never the password), each with its own stable code.
 */

const unreachable = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'ENOENT', // a Unix socket folder without a server
]);

/** The SQLSTATE or errno of a driver error, looking through `cause` and AggregateError. */
function codeOf(err: unknown): string | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    if (e instanceof OhsError) continue; // our own code (MIGRATION_FAILED): the driver's is below
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (e instanceof AggregateError) {
      const inner = e.errors.map(codeOf).find((c) => c !== undefined);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** A driver message with the connection string's password (if it slipped in) scrubbed. */
function scrub(message: string, url: string): string {
  const password = passwordOf(url);
  let out = message;
  if (password !== undefined) out = out.split(password).join('***');
  return out.split(url).join(redactUrl(url));
}

/**
 * Turns whatever the driver threw into an OhsError naming host and database: PgMirrorError with
 * a code for the failures a user can act on, the error itself when it is already ours.
 */
export function pgError(err: unknown, url: string, doing = 'open the mirror'): OhsError {
  const code = codeOf(err);
  if (err instanceof OhsError && (code === undefined || err instanceof PgMirrorError)) return err;
  const t = pgTarget(url);
  const said = scrub(err instanceof Error ? err.message || String(code ?? 'error') : String(err), url);
  const role = t.user === undefined ? 'the role' : `role ${t.user}`;
  if (code !== undefined && unreachable.has(code))
    return new PgMirrorError(
      'PG_UNREACHABLE',
      `cannot reach PostgreSQL at ${t.host}:${t.port} (database ${t.database}): ${said}`,
      err,
    );
  if (code === '3D000')
    return new PgMirrorError(
      'PG_NO_DATABASE',
      `PostgreSQL at ${t.host}:${t.port} has no database ${t.database}: create it (createdb ${t.database}) or fix --db`,
      err,
    );
  if (code === '28P01' || code === '28000')
    return new PgMirrorError(
      'PG_AUTH_FAILED',
      `PostgreSQL at ${t.host}:${t.port} refused ${role} for database ${t.database}: ${said}`,
      err,
    );
  if (code === '42501')
    return new PgMirrorError(
      'PG_PERMISSION_DENIED',
      `${role} lacks a right on database ${t.database} at ${t.host}:${t.port} needed to ${doing}: ${said}`,
      err,
    );
  return new PgMirrorError(
    'PG_FAILED',
    `PostgreSQL at ${t.host}:${t.port} (database ${t.database}) failed to ${doing}: ${said}`,
    err,
  );
}

const builtins = pg.types;

/**
 * Values as the SQLite engine returns them, so every caller (reports above all) sees the same:
 * 64-bit integers (ids, counts) and numeric (money) as numbers, json/jsonb as their text (the
 * callers JSON.parse `raw`).
 */
export const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format === undefined || format === 'text') {
      if (oid === builtins.builtins.INT8) return (v: string) => Number(v);
      if (oid === builtins.builtins.NUMERIC) return (v: string) => Number(v);
      if (oid === builtins.builtins.JSON || oid === builtins.builtins.JSONB) return (v: string) => v;
    }
    return format === undefined ? builtins.getTypeParser(oid) : builtins.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The cursor of Kysely's `stream()` (the order-ageing report streams its items): pg-cursor with
 * the mirror's type parsers, which a cursor does not take from its pool.
 */
export class MirrorCursor<R> extends Cursor<R> {
  constructor(text: string, values?: unknown[]) {
    super(text, values, { types: typeParsers });
  }
}

export interface PoolOptions {
  /** Connections at most. @default 4 */
  max?: number;
  /** What pg_stat_activity shows (who holds a lock). @default `ohs pid@host` */
  applicationName?: string;
}

/** This process as PostgreSQL's pg_stat_activity shows it: `ohs <pid>@<host>`. */
export function applicationName(): string {
  return `ohs ${process.pid}@${hostname()}`.slice(0, 63);
}

/** A pool over the connection string, with the mirror's type parsers. */
export function createPool(url: string, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 4,
    application_name: options.applicationName ?? applicationName(),
    types: typeParsers,
    // Every commit waits for the WAL flush, whatever the server's default: the write-back's claim
    // (queued -> sending) is on disk before its request leaves (docs/security.md).
    options: '-c synchronous_commit=on',
    connectionTimeoutMillis: 15_000,
    // A pooled connection that breaks (server restart) is dropped, not thrown from nowhere.
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', () => {
    // An idle client lost its connection: the pool drops it; the next query reconnects.
  });
  return pool;
}

/**
 * Connects (one `select 1`, so an unreachable server, a missing database or a refused role is
 * reported now, clearly) and returns Kysely over the pool.
 */
export async function connectPostgres(
  url: string,
  options: PoolOptions = {},
): Promise<{ pool: pg.Pool; db: Kysely<MirrorDb> }> {
  const pool = createPool(url, options);
  try {
    await pool.query('select 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw pgError(err, url, 'connect');
  }
  const db = new Kysely<MirrorDb>({ dialect: new PostgresDialect({ pool, cursor: MirrorCursor }) });
  return { pool, db };
}
