import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { HEARTBEAT_MS, LockedError, type MirrorLock } from '../store.js';
import type { SqliteDatabase } from './driver.js';

export const STALE_MS = 120_000; // 2 min without a heartbeat: the holder is gone

/**
 * Whether a process of this host is alive (EPERM: alive, another user's). A process killed but not
 * yet reaped by its parent (a zombie: under a parent that never waits, such as a container without
 * an init) still answers kill(pid, 0), yet it is dead and holds nothing: where /proc tells the
 * process state (Linux), state Z (zombie) or X (dead) is dead. Without /proc, kill(pid, 0) decides
 * and a zombie holder is taken over once its heartbeat is stale (STALE_MS).
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(pid);
  return state !== 'Z' && state !== 'X';
}

/** The state letter of /proc/PID/stat (after the command name, which may hold spaces and parens). */
export function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).charAt(0) || undefined;
  } catch {
    return undefined;
  }
}

interface LockRow {
  pid: number;
  host: string;
  acquired_at: string;
  heartbeat_at: string;
}

/**
 * A named lock on a SQLite mirror file (one sync, one apply at a time): a row in `sync_lock`,
 * taken in an IMMEDIATE transaction. A lock whose process is gone (same host; a zombie is gone,
 * see alive) or whose heartbeat stopped is stale and taken over at once. Every statement runs on the connection held exclusively
 * (`exclusive`), so none slips into another caller's transaction.
 */
export async function acquireSqliteLock(
  /** Runs its function on the connection held alone (the mirror's `exclusive`, or a lock file's own). */
  exclusive: <T>(fn: (sqlite: SqliteDatabase) => T | Promise<T>) => Promise<T>,
  location: string,
  name: string,
  /** The refusal's words around its holder (`pid P on H, since T`). */
  refusal: (holder: string) => string = (holder) =>
    `another ${name} is running on ${location} (${holder}); wait for it to finish`,
): Promise<MirrorLock> {
  const host = hostname();
  const now = () => new Date().toISOString();
  await exclusive((sqlite) => {
    const get = sqlite.prepare('SELECT pid, host, acquired_at, heartbeat_at FROM sync_lock WHERE name = ?');
    const put = sqlite.prepare(
      'INSERT OR REPLACE INTO sync_lock (name, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)',
    );
    sqlite
      .transaction(() => {
        const held = get.get(name) as LockRow | undefined;
        if (held !== undefined && held.pid !== process.pid) {
          const fresh = Date.now() - Date.parse(held.heartbeat_at) < STALE_MS;
          const running = held.host === host ? alive(held.pid) : fresh;
          if (running && fresh) {
            throw new LockedError(refusal(`pid ${held.pid} on ${held.host}, since ${held.acquired_at}`));
          }
        }
        const t = now();
        put.run(name, process.pid, host, t, t);
      })
      .immediate();
  });
  const timer = setInterval(() => {
    exclusive((sqlite) => {
      sqlite
        .prepare('UPDATE sync_lock SET heartbeat_at = ? WHERE name = ? AND pid = ?')
        .run(now(), name, process.pid);
    }).catch(() => undefined); // a mirror closed under a timer not yet cleared: nothing to beat
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    release: async () => {
      clearInterval(timer);
      await exclusive((sqlite) => {
        sqlite.prepare('DELETE FROM sync_lock WHERE name = ? AND pid = ?').run(name, process.pid);
      });
    },
  };
}
