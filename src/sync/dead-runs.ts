import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import type { Database } from '../mirror/index.js';
import { alive, STALE_MS } from '../mirror/index.js';

/**
 * A run recorded as `running` whose process is gone (SIGKILL, a crash, a power cut) never wrote
 * its end. A sync holds the mirror's lock for as long as it runs, so a `running` run is really
 * running only while the lock is held by its process: same pid and host, and that process alive
 * (same host) or its heartbeat fresh (another host).
 */
export interface LockRow {
  pid: number;
  host: string;
  heartbeat_at: string;
}

export function readSyncLock(db: Kysely<Database>): Promise<LockRow | undefined> {
  return db
    .selectFrom('sync_lock')
    .select(['pid', 'host', 'heartbeat_at'])
    .where('name', '=', 'sync')
    .executeTakeFirst();
}

export function runIsLive(
  run: { pid: number; host: string | null },
  lock: LockRow | undefined,
  thisHost = hostname(),
): boolean {
  if (lock === undefined || lock.pid !== run.pid) return false;
  if (run.host !== null && run.host !== lock.host) return false;
  if (lock.host === thisHost) return alive(lock.pid);
  return Date.now() - Date.parse(lock.heartbeat_at) < STALE_MS;
}

export const deadRunMessage = (run: { pid: number; host: string | null }) =>
  `the process (pid ${run.pid}${run.host === null ? '' : ` on ${run.host}`}) ended without finishing: killed or crashed; the next run resumes its work`;

/**
 * Called by a sync that has just taken the lock: no other sync can be running, so every run
 * still recorded `running` (and its streams) died, and is marked `interrupted`.
 */
export async function markDeadRuns(db: Kysely<Database>): Promise<number> {
  const dead = await db
    .selectFrom('sync_run')
    .select(['id', 'pid', 'host'])
    .where('outcome', '=', 'running')
    .execute();
  for (const run of dead) {
    await db
      .updateTable('sync_run')
      .set({ outcome: 'interrupted', error_code: 'KILLED', error: deadRunMessage(run) })
      .where('id', '=', run.id)
      .execute();
    await db
      .updateTable('sync_stream_run')
      .set({ outcome: 'interrupted', error: 'KILLED: the run died with this stream under way' })
      .where('run_id', '=', run.id)
      .where('outcome', '=', 'running')
      .execute();
  }
  return dead.length;
}
