import { hostname } from 'node:os';
import { LockedError, type MirrorLock } from '../store.js';
import type { Exclusive } from './mirror.js';

export const STALE_MS = 120_000; // 2 min without a heartbeat: the holder is gone
const HEARTBEAT_MS = 10_000; // 10 s

/** Whether a process of this host is alive (EPERM: alive, another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
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
 * taken in an IMMEDIATE transaction. A lock whose process is gone (same host) or whose heartbeat
 * stopped is stale and taken over. Every statement runs on the connection held exclusively
 * (`exclusive`), so none slips into another caller's transaction.
 */
export async function acquireSqliteLock(
  exclusive: Exclusive,
  location: string,
  name: string,
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
            throw new LockedError(
              `another ${name} is running on ${location} (pid ${held.pid} on ${held.host}, since ${held.acquired_at}); wait for it to finish`,
            );
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
