import {
  closeSync,
  constants,
  createWriteStream,
  fchmodSync,
  fstatSync,
  lstatSync,
  openSync,
  renameSync,
  rmSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs';
import { lstat, mkdir, rename, rm } from 'node:fs/promises';
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

const APPEND =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Opens the log file (`logFile`) for appending, the one file the tool keeps open rather than
 * writing whole: never through a symbolic link (`O_NOFOLLOW`: a link planted at its name refuses
 * the open, its target untouched), without blocking (`O_NONBLOCK`: a FIFO at its name with no
 * reader refuses the open at once, instead of waiting for one; with a reader, `fstat` finds it),
 * created 0600; an existing file must be a regular file with one link (a hard link would append
 * our lines to a file known by another name too), of this
 * user (another owner's file is refused: it would be appended to with our lines), and a mode
 * wider than 0600 is tightened to 0600 on the open descriptor (the file is ours, and its lines may
 * name records; an older version created it 0644). Returns the descriptor.
 */
export function openLogFile(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, APPEND, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      throw new OutputError(
        `logFile ${printable(path, 300)}: is a symbolic link: not followed; remove it or log elsewhere`,
        { cause: err },
      );
    // A FIFO (or a device) with no reader: O_NONBLOCK refuses it at once rather than waiting.
    if (code === 'ENXIO')
      throw new OutputError(`logFile ${printable(path, 300)}: not a regular file (a FIFO or a device)`, {
        cause: err,
      });
    throw new OutputError(`logFile ${printable(path, 300)}: cannot open it: ${code ?? String(err)}`, {
      cause: err,
    });
  }
  try {
    const st = fstatSync(fd);
    const uid = process.getuid?.();
    if (!st.isFile()) throw new OutputError(`logFile ${printable(path, 300)}: not a regular file`);
    if (st.nlink !== 1)
      throw new OutputError(
        `logFile ${printable(path, 300)}: has ${st.nlink} links (a hard link to another file): not appended to; log elsewhere`,
      );
    if (uid !== undefined && st.uid !== uid)
      throw new OutputError(
        `logFile ${printable(path, 300)}: belongs to another user (uid ${st.uid}): not appended to; log elsewhere`,
      );
    if ((st.mode & 0o777) !== 0o600) fchmodSync(fd, 0o600);
    return fd;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** A folder's identity: a folder swapped for another (or a link) under the same name has another. */
interface FolderId {
  dev: number;
  ino: number;
}

const OPEN_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * A private folder made to be filled and then renamed whole (the audit packet's): created 0700
 * (`mkdir` never follows a link at its name: anything there refuses it), opened with
 * `O_DIRECTORY | O_NOFOLLOW` to take its device and inode, and checked against them, without
 * following links, before each file is written into it (`check`) and before and after the final
 * rename (`publish`): a folder swapped for a symbolic link or another folder by another process
 * is found before anything more is written or published. Every refusal is `OUTPUT_INVALID`.
 */
export class PrivateFolder {
  private constructor(
    readonly path: string,
    private readonly id: FolderId,
  ) {}

  static async make(path: string): Promise<PrivateFolder> {
    try {
      await mkdir(path, { mode: 0o700 });
    } catch (err) {
      throw refused(path, err);
    }
    let fd: number;
    try {
      fd = openSync(path, OPEN_DIR);
    } catch (err) {
      throw refused(path, err);
    }
    try {
      fchmodSync(fd, 0o700);
      const st = fstatSync(fd);
      return new PrivateFolder(path, { dev: st.dev, ino: st.ino });
    } finally {
      closeSync(fd);
    }
  }

  /** Refuses when the name no longer holds this folder (a link, another folder, nothing). */
  check(name = this.path): void {
    let st: ReturnType<typeof lstatSync> | undefined;
    try {
      st = lstatSync(name);
    } catch {
      st = undefined;
    }
    if (st === undefined || !st.isDirectory() || st.dev !== this.id.dev || st.ino !== this.id.ino)
      throw new OutputError(
        `${printable(name, 300)}: the folder being written was replaced (by a symbolic link or another folder) while it was written: nothing published; check who else writes there`,
      );
  }

  /** Renames the folder to `final` (refused when anything is there, a link included), checked before and after. */
  async publish(final: string): Promise<void> {
    if (exists(final))
      throw new OutputError(
        `${printable(final, 300)}: something is there already (a folder, a file or a symbolic link): not replaced; remove it or write elsewhere`,
      );
    this.check();
    try {
      await rename(this.path, final);
    } catch (err) {
      throw refused(final, err);
    }
    this.check(final);
  }

  /** Removes the folder (a link at its name is removed, never followed). */
  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}

/** Whether anything is at `path`, a dangling link included. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
