import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type { MonitorConfig } from '../config/monitor-schema.js';
import { describeError, OhsError } from '../errors.js';
import {
  copyMirrorInto,
  type Mirror,
  metaKeys,
  openMirror,
  type SqliteDatabase,
  sqliteDriver,
} from '../mirror/index.js';
import { publish } from '../util/safe-file.js';

/** The BI snapshot could not be written (a full disk, an unknown group, a folder not writable). */
export class SnapshotError extends OhsError {
  override name = 'SnapshotError';
  constructor(message: string, cause?: unknown) {
    super('SNAPSHOT_FAILED', message, { cause });
  }
}

/** The group id of `group` (a number, or a name looked up with getent, so NSS groups work too). */
async function groupId(group: string | number): Promise<number> {
  if (typeof group === 'number') return group;
  if (/^\d+$/.test(group)) return Number(group);
  try {
    const { stdout } = await promisify(execFile)('getent', ['group', group], { encoding: 'utf8' });
    const gid = Number(stdout.split(':')[2]);
    if (Number.isInteger(gid)) return gid;
  } catch {
    // not found: said below
  }
  throw new SnapshotError(`monitor.snapshot.group: no group named '${group}' on this host`);
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
 * Writes the read-only snapshot for readers under other accounts (docs/monitoring.md "BI readers"):
 * one consistent SQLite file of the whole mirror, made beside its final path and renamed over the
 * previous one, so a reader always opens a whole snapshot (the old one until the rename, the new
 * one after). From a SQLite mirror `VACUUM INTO` (a consistent read of the live file, which it
 * does not lock against the sync); from PostgreSQL, the mirror copied into a new SQLite file.
 * Rollback journal, not WAL: a reader who cannot write the folder opens it without a `-shm`
 * file. Mode and group from `monitor.snapshot`. Returns the path written.
 */
export async function writeSnapshot(
  mirror: Mirror,
  config: MonitorConfig['snapshot'],
  storeSensitive: boolean,
): Promise<string | undefined> {
  const path = config.path;
  if (path === null) return undefined;
  let dir: string | undefined;
  try {
    // A private folder (0700, made exclusively under a random name) beside the final path: the
    // file VACUUM INTO or the copy creates is out of reach of every other account until it
    // has its final mode, whatever the umask; the rename then moves it in whole.
    dir = await mkdtemp(join(dirname(path), `.${basename(path)}.`));
    const tmp = join(dir, 'snapshot.sqlite');
    if (mirror.engine === 'sqlite') await sql`VACUUM INTO ${tmp}`.execute(mirror.db);
    else {
      const to = await openMirror(tmp, { storeSensitive });
      try {
        await copyMirrorInto(mirror, to);
      } finally {
        await to.close();
      }
    }
    const db = new (sqliteDriver().Database)(tmp);
    try {
      leaveOutOperational(db);
      db.pragma('journal_mode = DELETE');
      markSnapshot(db);
    } finally {
      db.close();
    }
    await chmod(tmp, Number.parseInt(config.mode, 8));
    if (config.group !== null) await chown(tmp, -1, await groupId(config.group));
    await publish(tmp, path);
    return path;
  } catch (err) {
    if (err instanceof SnapshotError) throw err;
    throw new SnapshotError(`monitor.snapshot.path ${path}: ${describeError(err)}`, err);
  } finally {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  }
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
