import { accessSync, chmodSync, closeSync, constants, existsSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrate, pendingMigrations, schemaWork } from '../migrations.js';
import { MirrorOpenError, type MirrorOptions } from '../store.js';
import { type SqliteDatabase, sqliteDriver } from './driver.js';
import { SqliteMirror, sqliteKysely, type WriteToken } from './mirror.js';

/**
 * Opens (creating when absent, unless `mustExist`) the SQLite mirror: mode 0600 (it holds
 * personal data; SQLite gives its -wal and -shm files the same mode), WAL so BI tools read while
 * a sync writes, migrations run on open (nothing is written when none is pending). With
 * `readonlyFallback`, a mirror this process cannot write is opened read-only instead.
 */
export async function openSqliteMirror(file: string, options: MirrorOptions = {}): Promise<SqliteMirror> {
  const driver = sqliteDriver(); // first: a driver that cannot load leaves no empty file behind
  if ((options.mustExist || options.readonlyFallback) && !existsSync(file))
    throw new MirrorOpenError(`no mirror at ${file}: run ohs sync first (or pass --db FILE)`);
  if (!options.readonlyFallback) return openReadWrite(file, options, driver);
  if (!writable(file)) return openReadonly(file, options, driver);
  try {
    return await openReadWrite(file, options, driver);
  } catch (err) {
    // A full disk (no room for the -shm file) or a file that turned out read-only: read it as is.
    if (cannotWrite(err)) return openReadonly(file, options, driver);
    throw err;
  }
}

const writeFailures = new Set([
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'ENOSPC',
  'EROFS',
  'EACCES',
  'EPERM',
]);

/** True when `err` (or one of its causes) says the file cannot be written. */
function cannotWrite(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && [...writeFailures].some((w) => code.startsWith(w))) return true;
  }
  return false;
}

async function openReadWrite(
  file: string,
  options: MirrorOptions,
  driver: ReturnType<typeof sqliteDriver>,
): Promise<SqliteMirror> {
  if (!options.readonly) {
    try {
      if (!existsSync(file)) closeSync(openSync(file, 'wx', 0o600));
      chmodSync(file, 0o600);
    } catch (err) {
      // EPERM: a writable file of another user; its mode is its owner's business.
      if (
        (err as NodeJS.ErrnoException).code !== 'EEXIST' &&
        (err as NodeJS.ErrnoException).code !== 'EPERM'
      ) {
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
  const token: WriteToken = { active: false };
  const db = sqliteKysely(sqlite, token);
  if (!options.readonly) {
    try {
      await migrate(db);
    } catch (err) {
      await db.destroy(); // the caller may fall back to a read-only handle: release this one
      throw err;
    }
  }
  return new SqliteMirror(
    file,
    sqlite,
    driver.name,
    db,
    options.readonly === true,
    options.storeSensitive === true,
    token,
    options.history !== false,
  );
}

/** True when this process may write the file and create its -wal and -shm files beside it. */
function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    accessSync(dirname(resolve(file)), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

// better-sqlite3 reads this once, when its addon loads (on the first open): URI file names let
// openReadonly ask for immutable=1. Only names starting with file: are affected.
process.env.SQLITE_USE_URI ??= '1';

/**
 * A mirror this process cannot write. SQLite reads a WAL-mode file through its -shm file; when
 * no writer has it open there is none, and it cannot be made in a read-only folder, so the
 * file is then opened immutable (no locks, no -shm: right while nobody writes, which the
 * absence of a -wal file says). Refuses a file that needs migrating: that takes its owner.
 */
async function openReadonly(
  file: string,
  options: MirrorOptions,
  driver: ReturnType<typeof sqliteDriver>,
): Promise<SqliteMirror> {
  const open = (name: string) => {
    const handle = new driver.Database(name, { readonly: true, fileMustExist: true });
    handle.pragma('busy_timeout = 10000');
    handle.prepare('select count(*) from sqlite_master').get();
    return handle;
  };
  let sqlite: SqliteDatabase;
  try {
    try {
      sqlite = open(file);
    } catch (err) {
      if (existsSync(`${file}-wal`)) throw err;
      sqlite = open(`${pathToFileURL(resolve(file)).href}?immutable=1`);
    }
  } catch (err) {
    throw new MirrorOpenError(`cannot open ${file} read-only as SQLite: ${(err as Error).message}`, err);
  }
  const token: WriteToken = { active: false };
  const db = sqliteKysely(sqlite, token);
  const close = async () => {
    await db.destroy();
  };
  try {
    const pending = await pendingMigrations(db);
    const missing = (await schemaWork(db)).columns.length;
    if (pending.length > 0 || missing > 0) {
      throw new MirrorOpenError(
        `${file} is read-only here and needs upgrading (${pending.length > 0 ? `migrations ${pending.join(', ')}` : `${missing} new column(s)`}): run ohs sync once as the user who owns it`,
      );
    }
  } catch (err) {
    await close();
    if (err instanceof MirrorOpenError) throw err;
    throw new MirrorOpenError(`cannot read ${file}: ${(err as Error).message}`, err);
  }
  return new SqliteMirror(file, sqlite, driver.name, db, true, options.storeSensitive === true, token);
}
