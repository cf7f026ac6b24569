import { hostname } from 'node:os';
import type { Mirror } from '../mirror/index.js';
import { LockedError } from './types.js';

export const STALE_MS = 120_000; // 2 min without a heartbeat: the holder is gone
const HEARTBEAT_MS = 10_000; // 10 s

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One sync at a time per mirror file: a row in `sync_lock`, taken in an IMMEDIATE transaction.
 * A lock whose process is gone (same host) or whose heartbeat stopped is stale and taken over.
 */
export function acquireLock(mirror: Mirror, name = 'sync'): { release: () => void } {
  const host = hostname();
  const now = () => new Date().toISOString();
  const { sqlite } = mirror;
  const get = sqlite.prepare('SELECT pid, host, acquired_at, heartbeat_at FROM sync_lock WHERE name = ?');
  const put = sqlite.prepare(
    'INSERT OR REPLACE INTO sync_lock (name, pid, host, acquired_at, heartbeat_at) VALUES (?, ?, ?, ?, ?)',
  );
  sqlite
    .transaction(() => {
      const held = get.get(name) as
        | { pid: number; host: string; acquired_at: string; heartbeat_at: string }
        | undefined;
      if (held !== undefined && held.pid !== process.pid) {
        const fresh = Date.now() - Date.parse(held.heartbeat_at) < STALE_MS;
        const running = held.host === host ? alive(held.pid) : fresh;
        if (running && fresh) {
          throw new LockedError(
            `another ${name} is running on ${mirror.file} (pid ${held.pid} on ${held.host}, since ${held.acquired_at}); wait for it to finish`,
          );
        }
      }
      const t = now();
      put.run(name, process.pid, host, t, t);
    })
    .immediate();
  const beat = sqlite.prepare('UPDATE sync_lock SET heartbeat_at = ? WHERE name = ? AND pid = ?');
  const timer = setInterval(() => beat.run(now(), name, process.pid), HEARTBEAT_MS);
  timer.unref();
  return {
    release: () => {
      clearInterval(timer);
      sqlite.prepare('DELETE FROM sync_lock WHERE name = ? AND pid = ?').run(name, process.pid);
    },
  };
}
