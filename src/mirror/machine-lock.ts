import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { OhsError } from '../errors.js';
import { sqliteDriver } from './sqlite/driver.js';
import { acquireSqliteLock } from './sqlite/locks.js';
import { LockedError, type MirrorLock } from './store.js';

/**
 * Named locks of this machine, for this user, whatever mirror a command opened: the write-back's
 * one apply per service (`apply <base URL>`). They are rows of `locks.sqlite` in the user's state
 * directory, taken and kept by the very code of a SQLite mirror's named locks (sqlite/locks.ts):
 * an IMMEDIATE transaction decides between two takers, the row names the holder (pid, host,
 * since) and a heartbeat keeps it fresh; a holder whose process is gone (a zombie too) is taken
 * over at once. The directory is made 0700 and the file 0600; one another user owns, or one
 * others may write, is refused (a lock they could delete excludes nothing).
 */
export class StateDirError extends OhsError {
  override name = 'StateDirError';
  override readonly exitCode = 2;
  constructor(message: string, cause?: unknown) {
    super('STATE_DIR_INVALID', message, { cause });
  }
}

/**
 * The user's state directory: `OHS_STATE_DIR`, else systemd's `STATE_DIRECTORY` (a unit's
 * `StateDirectory=`; its first entry), else `$XDG_STATE_HOME/ohs-mirror`, else
 * `~/.local/state/ohs-mirror`. Every `ohs` of the user must see the same one: a lock in another
 * directory excludes nothing.
 */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.OHS_STATE_DIR ?? env.STATE_DIRECTORY?.split(':')[0];
  if (given !== undefined && given !== '') return given;
  const xdg = env.XDG_STATE_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(homedir(), '.local', 'state'), 'ohs-mirror');
}

/** Makes (0700) and checks the directory: a directory of this user, closed to others. */
function ownDir(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new StateDirError(
      `cannot make the state directory ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'}): set OHS_STATE_DIR to a directory of this user`,
      err,
    );
  }
  const st = lstatSync(dir);
  const uid = process.getuid?.();
  if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0)
    throw new StateDirError(
      `the state directory ${dir} is not a directory of this user closed to others (mode 0700): fix it, or set OHS_STATE_DIR`,
    );
}

/** Names held by this process: a second taker in the same process is refused too. */
const heldHere = new Set<string>();

/**
 * Takes the machine lock `name`, or throws LockedError with `refusal(holder)`. Released by the
 * returned handle; a process that dies holds nothing (its row is taken over).
 */
export async function machineLock(
  name: string,
  refusal: (holder: string) => string,
  dir: string = stateDir(),
): Promise<MirrorLock> {
  if (heldHere.has(name)) throw new LockedError(refusal(`pid ${process.pid}, this process`));
  ownDir(dir);
  const file = join(dir, 'locks.sqlite');
  // Created 0600 before SQLite opens it (its journal takes the file's mode); never through a link.
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  } catch (err) {
    throw new StateDirError(`cannot open ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, err);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new StateDirError(`${file} is not a regular file`);
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
  const { Database } = sqliteDriver();
  const sqlite = new Database(file, { timeout: 10_000 });
  let lock: MirrorLock;
  try {
    sqlite.exec(
      'CREATE TABLE IF NOT EXISTS sync_lock (name TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, acquired_at TEXT NOT NULL, heartbeat_at TEXT NOT NULL)',
    );
    let open = true;
    const exclusive = async <T>(fn: (db: typeof sqlite) => T | Promise<T>): Promise<T> => {
      if (!open) throw new Error('machine lock closed');
      return fn(sqlite);
    };
    const taken = await acquireSqliteLock(exclusive, file, name, refusal);
    lock = {
      release: async () => {
        if (!open) return;
        try {
          await taken.release();
        } finally {
          open = false;
          heldHere.delete(name);
          sqlite.close();
        }
      },
    };
  } catch (err) {
    sqlite.close();
    throw err;
  }
  heldHere.add(name);
  return lock;
}
