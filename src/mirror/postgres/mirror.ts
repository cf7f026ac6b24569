import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { ResourceName } from '../../schema/index.js';
import type { Database as MirrorDb } from '../db-types.js';
import {
  type CheckpointRow,
  type DeletionAudit,
  LockedError,
  type Mirror,
  type MirrorLock,
  type MirrorWriter,
  NestedWriteError,
  type SeenState,
  type UpsertCounts,
  type UpsertOptions,
  type WriteOptions,
} from '../store.js';
import { WriteContext } from '../write-context.js';
import { MirrorCursor, pgError } from './connect.js';
import { takeAdvisoryLock } from './locks.js';
import { PgStatements } from './writer.js';

/** The write transaction under way in this async context, to refuse a nested one. */
const writing = new WriteContext<PgMirror>();

/** Kysely bound to one connection (the write transaction's): its queries run inside it. */
const onClient = new WeakMap<pg.PoolClient, Kysely<MirrorDb>>();
function kyselyOn(client: pg.PoolClient): Kysely<MirrorDb> {
  const cached = onClient.get(client);
  if (cached !== undefined) return cached;
  const conn = {
    query: client.query.bind(client),
    release: () => undefined, // the transaction returns the connection, not Kysely
  } as unknown as PostgresPoolClient;
  const pool: PostgresPool = { connect: async () => conn, end: async () => undefined };
  const db = new Kysely<MirrorDb>({ dialect: new PostgresDialect({ pool, cursor: MirrorCursor }) });
  onClient.set(client, db);
  return db;
}

/**
 * The PostgreSQL engine of the mirror seam. A pool of connections: each write transaction takes
 * one for its whole length (BEGIN ... COMMIT, every page statement and Kysely query of the writer
 * on it), so streams written at once run in parallel on the server; named locks hold a
 * connection each (advisory locks, see locks.ts).
 */
export class PgMirror implements Mirror {
  readonly engine = 'postgres' as const;
  readonly driver = 'pg';
  private readonly statements: PgStatements;

  constructor(
    /** The connection string without its password. */
    readonly location: string,
    private readonly url: string,
    private readonly pool: pg.Pool,
    readonly db: Kysely<MirrorDb>,
    readonly readonly: boolean,
    storeSensitive: boolean,
    keepHistory = true,
  ) {
    this.statements = new PgStatements(storeSensitive, 'unnest', keepHistory);
  }

  prepare(resource: ResourceName, record: Record<string, unknown>): Record<string, unknown> {
    return this.statements.prepare(resource, record);
  }

  async write<T>(fn: (w: MirrorWriter) => Promise<T>): Promise<T> {
    if (writing.current() === this) throw new NestedWriteError();
    const client = await this.connect();
    try {
      await client.query('BEGIN');
      const result = await writing.run(this, () =>
        fn(new PgWriter(kyselyOn(client), client, this.statements)),
      );
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw pgError(err, this.url, 'write the mirror');
    } finally {
      client.release();
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (err) {
      throw pgError(err, this.url, 'connect');
    }
  }

  async bulkLoad<T>(resource: ResourceName, load: () => Promise<T>): Promise<T> {
    if (!(await this.statements.beginBulk(this.pool, resource))) return load();
    try {
      return await load();
    } finally {
      this.statements.endBulk(resource);
    }
  }

  seenIds(stream: string, state: SeenState): Promise<string[]> {
    return this.statements.seenIds(this.pool, stream, state);
  }

  stagedCount(stream: string): Promise<number> {
    return this.statements.stagedCount(this.pool, stream);
  }

  /** Autovacuum keeps the tables; nothing to do after a pass. */
  async maintain(): Promise<void> {}

  /** Every connection of the pool runs `synchronous_commit = on` from its start (connect.ts). */
  async durableCommits(): Promise<void> {}

  async durability(): Promise<string> {
    const r = await this.pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    return r.rows[0]?.synchronous_commit ?? 'unknown';
  }

  lock(name: string): Promise<MirrorLock> {
    return takeAdvisoryLock(this.pool, name, this.location, (m) => new LockedError(m)).catch(
      (err: unknown) => {
        throw err instanceof LockedError ? err : pgError(err, this.url, `take the ${name} lock`);
      },
    );
  }

  sharedLock(name: string, refusal: (holder: string) => string): Promise<MirrorLock> {
    return takeAdvisoryLock(
      this.pool,
      name,
      this.location,
      (m) => new LockedError(m),
      'database',
      refusal,
    ).catch((err: unknown) => {
      throw err instanceof LockedError ? err : pgError(err, this.url, `take the ${name} lock`);
    });
  }

  async close(): Promise<void> {
    await this.db.destroy(); // ends the pool
  }
}

/** The writes of one transaction, on its connection. */
class PgWriter implements MirrorWriter {
  constructor(
    readonly db: Kysely<MirrorDb>,
    private readonly c: pg.PoolClient,
    private readonly s: PgStatements,
  ) {}

  upsert(
    resource: ResourceName,
    records: readonly Record<string, unknown>[],
    options: UpsertOptions,
  ): Promise<UpsertCounts> {
    return this.s.upsert(this.c, resource, records, options);
  }

  recordStatus(records: readonly Record<string, unknown>[], now: string): Promise<void> {
    return this.s.recordStatus(this.c, records, now);
  }

  softDelete(
    resource: ResourceName,
    ids: readonly (number | string)[],
    audit: DeletionAudit,
  ): Promise<number> {
    return this.s.softDelete(this.c, resource, ids, audit);
  }

  stagePage(
    resource: ResourceName,
    stream: string,
    records: readonly Record<string, unknown>[],
    now: string,
    options?: WriteOptions,
  ): Promise<UpsertCounts> {
    return this.s.stagePage(this.c, resource, stream, records, now, options);
  }

  markSeen(stream: string, ids: readonly (number | string)[], state: SeenState): Promise<void> {
    return this.s.markSeen(this.c, stream, ids, state);
  }

  applyPass(resource: ResourceName, stream: string, now: string, options?: WriteOptions): Promise<void> {
    return this.s.applyPass(this.c, resource, stream, now, options);
  }

  clearPassIds(stream: string): Promise<void> {
    return this.s.clearPassIds(this.c, stream);
  }

  saveCheckpoint(row: CheckpointRow, now: string): Promise<void> {
    return this.s.saveCheckpoint(this.c, row, now);
  }

  setPass(stream: string, passId: string | null, now: string, completed?: 'full' | 'other'): Promise<void> {
    return this.s.setPass(this.c, stream, passId, now, completed);
  }

  setRereadCursor(stream: string, cursor: string | null, roundAt: string | null): Promise<void> {
    return this.s.setRereadCursor(this.c, stream, cursor, roundAt);
  }
}
