import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrate, pendingMigrations, schemaWork } from '../migrations/index.js';
import { MirrorOpenError, type MirrorOptions, noMirror } from '../store.js';
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
  refuseLinks(file);
  if ((options.mustExist || options.readonlyFallback) && !existsSync(file)) throw noMirror(file);
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
    if (!existsSync(file)) await createWhole(file, driver);
    claimFile(file);
  } else if (!existsSync(file)) {
    throw noMirror(file);
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
    // A row rewritten or deleted leaves no old bytes in its page (an outbox body whose personal
    // values were masked): zeroed where that costs no extra write (docs/security.md).
    if (!options.readonly) sqlite.pragma('secure_delete = FAST');
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

/**
 * A new mirror is made whole under a private name beside its path (created exclusively, 0600),
 * switched to WAL and migrated there, closed, and only then given its name (a hard link, which
 * fails rather than replace a mirror another process made meanwhile). A BI reader polling the
 * path thus finds no file or a whole mirror in WAL mode: never the empty file in rollback mode
 * whose switch to WAL and first migrations held the write lock readers met (`database is
 * locked`, in prepare, 14 to 86 refusals in the first seconds of a first sync).
 */
async function createWhole(file: string, driver: ReturnType<typeof sqliteDriver>): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.new-${process.pid}-${Date.now().toString(36)}`);
  const parts = [temp, `${temp}-wal`, `${temp}-shm`, `${temp}-journal`];
  refuseLinks(temp);
  claimFile(temp);
  try {
    let sqlite: SqliteDatabase;
    try {
      sqlite = new driver.Database(temp, { fileMustExist: true });
      sqlite.pragma('journal_mode = WAL');
    } catch (err) {
      throw new MirrorOpenError(`cannot create ${file} as SQLite: ${(err as Error).message}`, err);
    }
    const db = sqliteKysely(sqlite, { active: false });
    try {
      await migrate(db);
      // Folded into the file now (no reader here to wait for), where an error is seen (a full
      // disk: SQLITE_FULL), not by the close, which would leave it in the -wal file.
      const [done] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      if (done?.busy !== 0)
        throw new MirrorOpenError(`cannot create ${file}: its first checkpoint did not complete`);
    } finally {
      await db.destroy(); // closes the handle: -wal and -shm removed
    }
    if (existsSync(`${temp}-wal`) && lstatSync(`${temp}-wal`).size > 0)
      throw new MirrorOpenError(`cannot create ${file}: its write-ahead log was not folded into it`);
    try {
      linkSync(temp, file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Made by another process meanwhile: that one is opened. A filesystem without hard links:
      // renamed into place instead, when the name is still free.
      if (code === 'EEXIST') return;
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw cannotCreate(file, err);
      if (!existsSync(file)) renameSync(temp, file);
    }
  } finally {
    for (const f of parts) rmSync(f, { force: true });
  }
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

/**
 * A mirror path (or its -wal, -shm or -journal file) that is a symbolic link is refused: SQLite
 * would follow it, and creating or setting the mode of the mirror would change another file
 * (a link to /etc/passwd chmodded to 0600, a dangling link creating the mirror elsewhere 0644).
 */
function refuseLinks(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) {
    let link = false;
    try {
      link = lstatSync(f).isSymbolicLink();
    } catch {
      // absent: nothing to follow
    }
    if (link)
      throw new MirrorOpenError(
        `${f} is a symbolic link: give the mirror's real path (ohs never follows a link at a mirror path)`,
      );
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0');

/**
 * Creates the mirror file exclusively (O_EXCL, O_NOFOLLOW) with mode 0600 set on the open
 * descriptor, or, when it exists, checks it is a regular SQLite file (or empty) before setting
 * its mode on the descriptor: never the mode of a file that is not a mirror.
 */
function claimFile(file: string): void {
  const { O_CREAT, O_EXCL, O_RDONLY, O_WRONLY, O_NOFOLLOW } = constants;
  let fd: number;
  try {
    fd = openSync(file, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600);
    try {
      fchmodSync(fd, 0o600); // the umask may have taken bits off; set it on what was opened
    } finally {
      closeSync(fd);
    }
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotCreate(file, err);
  }
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW);
  } catch (err) {
    throw cannotCreate(file, err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new MirrorOpenError(`${file} is not a regular file: not a mirror`);
    const head = Buffer.alloc(SQLITE_HEADER.length);
    const n = readSync(fd, head, 0, head.length, 0);
    if (n > 0 && !head.subarray(0, n).equals(SQLITE_HEADER.subarray(0, n)))
      throw new MirrorOpenError(`${file} is not a SQLite file: not a mirror (its mode left as it was)`);
    if ((stat.mode & 0o077) !== 0) {
      try {
        fchmodSync(fd, 0o600);
      } catch (err) {
        // EPERM: a writable file of another user; its mode is its owner's business.
        if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw cannotCreate(file, err);
      }
    }
  } finally {
    closeSync(fd);
  }
}

function cannotCreate(file: string, err: unknown): MirrorOpenError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP')
    return new MirrorOpenError(`${file} is a symbolic link: give the mirror's real path`, err);
  return new MirrorOpenError(`cannot create ${file}: ${code ?? String(err)}`, err);
}
