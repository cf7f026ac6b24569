import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { MonitorConfig } from '../config/monitor-schema.js';
import { describeError, OhsError } from '../errors.js';
import { type Mirror, snapshotInto } from '../mirror/index.js';
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
 * Writes the read-only snapshot for readers under other accounts (docs/monitoring.md "BI readers"):
 * one consistent SQLite file of the whole mirror, made beside its final path and renamed over the
 * previous one, so a reader always opens a whole snapshot (the old one until the rename, the new
 * one after); the copy itself is made by the mirror (src/mirror/snapshot.ts). Mode and group
 * from `monitor.snapshot`. Returns the path written.
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
    await snapshotInto(mirror, tmp, storeSensitive);
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
