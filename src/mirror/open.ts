import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { Kysely, SqliteDialect } from 'kysely';
import { OhsError } from '../errors.js';
import type { Database as MirrorDb } from './db-types.js';
import { migrate } from './migrations.js';
import { type SqliteDatabase, type SqliteDriverName, sqliteDriver } from './sqlite/driver.js';
import { SqliteAdapter } from './sqlite-adapter.js';

export interface MirrorOptions {
  /** Keep SSNs, birth dates, licence numbers as received instead of masked. @default false */
  storeSensitive?: boolean;
  /** Open without migrating or writing (for status and reports of a file in use). @default false */
  readonly?: boolean;
}

export interface Mirror {
  readonly file: string;
  readonly sqlite: SqliteDatabase;
  /** The SQLite driver chosen for this Node (src/mirror/sqlite/driver.ts). */
  readonly driver: SqliteDriverName;
  /** Portable queries (run records, status, reports) go through Kysely. */
  readonly db: Kysely<MirrorDb>;
  /** Bulk upserts, checkpoints and history go through the SQLite adapter's prepared statements. */
  readonly adapter: SqliteAdapter;
  close(): Promise<void>;
}

export class MirrorOpenError extends OhsError {
  override name = 'MirrorOpenError';
  constructor(message: string, cause?: unknown) {
    super('MIRROR_OPEN_FAILED', message, { cause });
  }
}

/**
 * Opens (creating when absent) the SQLite mirror: mode 0600 (it holds personal data; SQLite
 * gives its -wal and -shm files the same mode), WAL so BI tools read while a sync writes,
 * migrations run on open.
 */
export async function openMirror(file: string, options: MirrorOptions = {}): Promise<Mirror> {
  const driver = sqliteDriver(); // first: a driver that cannot load leaves no empty file behind
  if (!options.readonly) {
    try {
      if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600));
      chmodSync(file, 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new MirrorOpenError(
          `cannot create ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
          err,
        );
      }
    }
  } else if (!existsSync(file)) {
    throw new MirrorOpenError(`no mirror at ${file}: run ohs sync first (or pass --db FILE)`);
  }
  let sqlite: SqliteDatabase;
  try {
    sqlite = new driver.Database(file, {
      readonly: options.readonly === true,
      fileMustExist: options.readonly === true,
    });
    if (!options.readonly) sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 10000');
  } catch (err) {
    throw new MirrorOpenError(`cannot open ${file} as SQLite: ${(err as Error).message}`, err);
  }
  const db = new Kysely<MirrorDb>({ dialect: new SqliteDialect({ database: sqlite }) });
  if (!options.readonly) await migrate(db);
  const adapter = new SqliteAdapter(sqlite, options.storeSensitive === true);
  return {
    file,
    sqlite,
    driver: driver.name,
    db,
    adapter,
    close: async () => {
      await db.destroy(); // closes the better-sqlite3 handle too
    },
  };
}
