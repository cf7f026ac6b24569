import {
  closeSync,
  constants,
  createWriteStream,
  fchmodSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs';
import { lstat, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OutputError } from '../errors.js';
import { printable } from './printable.js';

/**
 * The one way the tool creates a file it writes (reports in every format, the dashboard, the
 * Prometheus textfile, the BI snapshot, config written by probe): a temporary name beside the
 * final file, created with `O_CREAT | O_EXCL | O_NOFOLLOW` and its final mode from the start
 * (set again on the open descriptor, whatever the umask), written, then renamed over the final
 * name. Nothing at the temporary name is ever followed or reused: a symbolic link (or any file)
 * planted there refuses the write and stays untouched, and so does a symbolic link at the final
 * name. A reader never sees half a file, nor the file with a wider mode than its own.
 */
const EXCLUSIVE = constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW;

/** The temporary name of a file: hidden, beside it (one file system for the rename), per process. */
export function temporaryName(file: string): string {
  return join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
}

function refused(path: string, err: unknown): OutputError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EEXIST' || code === 'ELOOP'
      ? 'something is there already (a symbolic link or a file left by another process): not followed, not replaced; remove it'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : (code ?? String(err));
  return new OutputError(`${printable(path, 300)}: cannot create it: ${why}`, { cause: err });
}

/** Creates `path` exclusively, never through a link, with `mode` whatever the umask: its descriptor. */
export function createExclusive(path: string, mode: number): number {
  let fd: number;
  try {
    fd = openSync(path, EXCLUSIVE, mode);
  } catch (err) {
    throw refused(path, err);
  }
  try {
    fchmodSync(fd, mode);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/** A write stream on a file created by `createExclusive`. */
export function exclusiveStream(path: string, mode: number): WriteStream {
  return createWriteStream(path, { fd: createExclusive(path, mode) });
}

function refuseLinkSync(file: string): void {
  if (isLink(file))
    throw new OutputError(
      `${printable(file, 300)}: is a symbolic link: not followed, not replaced; remove it or write elsewhere`,
    );
}

/** `writeFileSafely` for synchronous callers. */
export function writeFileSafelySync(file: string, data: string | Uint8Array, mode: number): void {
  refuseLinkSync(file);
  const temp = temporaryName(file);
  writeExclusive(temp, data, mode);
  try {
    refuseLinkSync(file);
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/** Refuses a final name that is a symbolic link: the rename would replace the link, but a user who made it meant something else. */
async function refuseLink(file: string): Promise<void> {
  try {
    if ((await lstat(file)).isSymbolicLink())
      throw new OutputError(
        `${printable(file, 300)}: is a symbolic link: not followed, not replaced; remove it or write elsewhere`,
      );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** Whether `file` is a symbolic link now (checked without following it). */
export function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Renames a finished temporary file over the final name (refused when that is a symbolic link). */
export async function publish(temp: string, file: string): Promise<void> {
  await refuseLink(file);
  await rename(temp, file);
}

/** Writes `data` to a new file created by `createExclusive` (a temporary name: the caller renames it). */
export function writeExclusive(path: string, data: string | Uint8Array, mode: number): void {
  const fd = createExclusive(path, mode);
  try {
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}

/** Writes a whole file the safe way: exclusive temporary with its mode, written, renamed. */
export async function writeFileSafely(file: string, data: string | Uint8Array, mode: number): Promise<void> {
  await refuseLink(file);
  const temp = temporaryName(file);
  writeExclusive(temp, data, mode);
  try {
    await publish(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
