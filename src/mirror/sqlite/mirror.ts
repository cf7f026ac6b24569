import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect } from 'kysely';

/** SQLite's adapter, saying what SQLite does: DDL inside a transaction. */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

import type { ResourceName } from '../../schema/index.js';
import type { Database as MirrorDb } from '../db-types.js';
import {
  type Mirror,
  type MirrorLock,
  type MirrorWriter,
  NestedWriteError,
  type SeenState,
} from '../store.js';
import { WriteContext } from '../write-context.js';
import type { SqliteDatabase, SqliteDriverName } from './driver.js';
import type { Exclusive } from './exclusive.js';
import { acquireSqliteLock } from './locks.js';
import { SqliteWriter } from './mirror-writer.js';
import { SqliteStatements } from './writer.js';

type Statement = BetterSqlite3.Statement;

/** A mirror's write transaction, while under way (`active`) in the async context that `writing` marks. */
export interface WriteToken {
  active: boolean;
}

/** The write transaction under way in this async context (when checked: write-context.ts). */
const writing = new WriteContext<WriteToken>();

/** Whether this async context is inside the write transaction of the mirror `token` belongs to. */
const insideWrite = (token: WriteToken) => token.active && writing.current() === token;

/**
 * Kysely over the one better-sqlite3 handle. A query of `mirror.db` (or any use of the mirror
 * but the writer) issued inside that mirror's write would wait for the write to end, forever:
 * it is refused with NestedWriteError instead (where checked: write-context.ts).
 */
export function sqliteKysely(sqlite: SqliteDatabase, token: WriteToken): Kysely<MirrorDb> {
  const dialect = new SqliteDialect({ database: sqlite });
  const createDriver = dialect.createDriver.bind(dialect);
  dialect.createDriver = () => {
    const driver = createDriver();
    const acquire = driver.acquireConnection.bind(driver);
    driver.acquireConnection = () =>
      insideWrite(token) ? Promise.reject(new NestedWriteError()) : acquire();
    return driver;
  };
  // SQLite runs DDL in transactions; kysely's adapter says it does not, so its migrator would
  // run each statement of a migration on its own: a disk filling mid-migration then left tables
  // without the migration recorded, a mirror no later run could open. Each migration is one
  // transaction instead.
  dialect.createAdapter = () => new TransactionalDdlAdapter();
  return new Kysely<MirrorDb>({ dialect });
}

/**
 * The SQLite engine of the mirror seam. One better-sqlite3 handle is the one connection; Kysely's
 * SQLite driver serialises its users through a mutex, and every write transaction holds that
 * mutex from BEGIN IMMEDIATE to COMMIT: streams running at once, and Kysely queries issued
 * meanwhile (run records, status), wait for it instead of slipping into it. IMMEDIATE takes the
 * file's write lock at once (another process waits up to busy_timeout).
 */
export class SqliteMirror implements Mirror {
  readonly engine = 'sqlite' as const;
  private readonly statements: SqliteStatements;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;

  constructor(
    readonly location: string,
    private readonly sqlite: SqliteDatabase,
    readonly driver: SqliteDriverName,
    readonly db: Kysely<MirrorDb>,
    readonly readonly: boolean,
    storeSensitive: boolean,
    private readonly token: WriteToken,
    keepHistory = true,
  ) {
    this.statements = new SqliteStatements(sqlite, storeSensitive, keepHistory);
    this.begin = sqlite.prepare('BEGIN IMMEDIATE');
    this.commit = sqlite.prepare('COMMIT');
    this.rollback = sqlite.prepare('ROLLBACK');
  }

  prepare(resource: ResourceName, record: Record<string, unknown>): Record<string, unknown> {
    return this.statements.prepare(resource, record);
  }

  /** Runs `fn` with the connection held (Kysely's mutex): see Exclusive. */
  readonly exclusive: Exclusive = (fn) => this.db.connection().execute(async (conn) => fn(this.sqlite, conn));

  async write<T>(fn: (w: MirrorWriter) => Promise<T>): Promise<T> {
    if (insideWrite(this.token)) throw new NestedWriteError();
    return this.exclusive(async (sqlite, conn) => {
      this.begin.run();
      this.token.active = true;
      try {
        const result = await writing.run(this.token, () => fn(new SqliteWriter(conn, this.statements)));
        this.commit.run();
        return result;
      } catch (err) {
        if (sqlite.inTransaction) this.rollback.run();
        throw err;
      } finally {
        this.token.active = false;
      }
    });
  }

  async bulkLoad<T>(resource: ResourceName, load: () => Promise<T>): Promise<T> {
    const started = await this.exclusive(() => this.statements.beginBulk(resource));
    if (!started) return load();
    try {
      return await load();
    } finally {
      await this.exclusive(() => this.statements.endBulk(resource));
    }
  }

  seenIds(stream: string, state: SeenState): Promise<string[]> {
    return this.exclusive(() => this.statements.seenIds(stream, state));
  }

  stagedCount(stream: string): Promise<number> {
    return this.exclusive(() => this.statements.stagedCount(stream));
  }

  /**
   * Lets SQLite move the WAL back into the database file where no reader needs its pages
   * (PASSIVE: never waits for a reader), so a long-lived BI reader does not keep it growing.
   */
  async maintain(): Promise<void> {
    if (this.readonly) return;
    await this.exclusive(() => this.statements.checkpointWal());
  }

  async durableCommits(): Promise<void> {
    if (this.readonly) return;
    await this.exclusive((sqlite) => {
      sqlite.pragma('synchronous = FULL');
    });
  }

  durability(): Promise<string> {
    return this.exclusive(
      (sqlite) =>
        ['OFF', 'NORMAL', 'FULL', 'EXTRA'][Number(sqlite.pragma('synchronous', { simple: true }))] ??
        'unknown',
    );
  }

  lock(name: string): Promise<MirrorLock> {
    return acquireSqliteLock(this.exclusive, this.location, name);
  }

  /** A SQLite file is one mirror: nothing shared to lock (the machine lock covers its host). */
  async sharedLock(): Promise<undefined> {
    return undefined;
  }

  /**
   * Closes the handle. The last connection to close a WAL mirror checkpoints and removes the WAL
   * holding the file's exclusive lock, which a reader opening then meets (`database is locked`,
   * in prepare): a PASSIVE checkpoint first (it never waits for nor locks out a reader) leaves
   * that close nothing to copy, so the lock lasts as long as removing the WAL file.
   */
  async close(): Promise<void> {
    if (!this.readonly) await this.maintain().catch(() => undefined);
    await this.db.destroy(); // closes the better-sqlite3 handle too
  }
}
