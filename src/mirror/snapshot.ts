import { sql } from 'kysely';
import { copyMirrorInto } from './copy.js';
import { metaKeys } from './meta.js';
import { openMirror } from './open.js';
import { type SqliteDatabase, sqliteDriver } from './sqlite/driver.js';
import type { Mirror } from './store.js';

/**
 * One consistent SQLite file of the whole mirror at `file`, for readers under other accounts:
 * from a SQLite mirror `VACUUM INTO` (a consistent read of the live file, which it does not lock
 * against the sync); from PostgreSQL, the mirror copied into a new SQLite file. The operational
 * tables are emptied, the file is put in rollback-journal mode (not WAL: a reader who cannot
 * write the folder opens it without a `-shm` file) and marked as a snapshot.
 */
export async function snapshotInto(mirror: Mirror, file: string, storeSensitive: boolean): Promise<void> {
  if (mirror.engine === 'sqlite') await sql`VACUUM INTO ${file}`.execute(mirror.db);
  else {
    const to = await openMirror(file, { storeSensitive });
    try {
      await copyMirrorInto(mirror, to);
    } finally {
      await to.close();
    }
  }
  const db = new (sqliteDriver().Database)(file);
  try {
    leaveOutOperational(db);
    db.pragma('journal_mode = DELETE');
    markSnapshot(db);
  } finally {
    db.close();
  }
}

/**
 * Says in the copy what it is: when it was taken, and which job runs were still running then
 * (the nightly job takes it mid-run), so `ohs status` on it reads "a copy taken during job run N",
 * not a job that died.
 */
function markSnapshot(db: {
  prepare(sql: string): { run(...params: unknown[]): unknown; all(...params: unknown[]): unknown[] };
}): void {
  const now = new Date().toISOString();
  const running = (
    db.prepare(`SELECT id FROM job_run WHERE outcome = 'running' ORDER BY id`).all() as {
      id: number;
    }[]
  ).map((r) => r.id);
  const put = (key: string, value: string) => {
    db.prepare('DELETE FROM mirror_meta WHERE key = ?').run(key);
    db.prepare('INSERT INTO mirror_meta (key, value, updated_at) VALUES (?, ?, ?)').run(key, value, now);
  };
  put(metaKeys.snapshotTakenAt, now);
  put(metaKeys.snapshotJobRuns, JSON.stringify(running));
}

/**
 * The tables a BI reader has no use for, emptied in the snapshot (kept as empty tables, so the
 * snapshot still opens as a mirror: `ohs status --db` on it works): the outbox (bodies of failed
 * and queued writes hold personal data whole, its errors and claims are the write-back's), the
 * locks, the shared rate budget and the sync's scratch tables; and the rate budget's secret.
 * VACUUM after, so their rows are not left in the file's free pages.
 */
export const operationalTables = [
  'outbox',
  'outbox_event',
  'sync_lock',
  'rate_budget',
  'sync_pass_seen',
  'sync_pass_stage',
] as const;

function leaveOutOperational(db: SqliteDatabase): void {
  for (const t of operationalTables) db.exec(`DELETE FROM "${t}"`);
  db.prepare('DELETE FROM mirror_meta WHERE key = ?').run(metaKeys.rateKeySecret);
  db.exec('VACUUM');
}
