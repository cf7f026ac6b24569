import { OhsError } from './errors.js';

/**
 * A write that found no space left: SQLite's SQLITE_FULL ("database or disk is full"), the
 * system's ENOSPC (a report, a snapshot, a temporary file) or PostgreSQL's disk_full (53100).
 * Nothing is lost by it: the mirror's writes are transactions (the one under way is rolled back),
 * report and snapshot files are written whole through a temporary file. The message says what to
 * do, for what the command was doing.
 */
export class DiskFullError extends OhsError {
  override name = 'DiskFullError';
  constructor(message: string, cause: unknown) {
    super('DISK_FULL', message, { cause });
  }
}

const fullCodes = new Set(['SQLITE_FULL', 'ENOSPC', '53100']);

/** The error (of `err`'s cause chain) that says the disk is full, if one does. */
function fullError(err: unknown): (Error & { code?: unknown; path?: unknown }) | undefined {
  const seen = new Set<unknown>();
  for (let e = err; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && fullCodes.has(code)) return e;
    if (/database or disk is full|no space left on device/i.test(e.message)) return e;
  }
  return undefined;
}

/** What to do, by the command that met the full disk (`ohs report ...`, `ohs sync`, ...). */
function advice(command: readonly string[]): string {
  switch (command[0]) {
    case 'report':
    case 'dashboard':
      return 'free space there, or write the reports to another disk (--out DIR); no report is left half-written';
    case 'plan':
    case 'apply':
    case 'outbox':
    case 'policy':
      return 'free space there, or move the mirror to a larger disk (ohs mirror copy, or the file while nothing runs) and run again: apply resumes and sends nothing twice';
    default:
      return 'free space there, or move the mirror to a larger disk (ohs mirror copy, or the file while nothing runs) and run again: the sync resumes where it stopped, and reports and snapshots are never left half-written';
  }
}

/**
 * `err` as DISK_FULL when a full disk caused it (whatever wrapped it), with one line saying what
 * to do for `command`; undefined otherwise.
 */
export function diskFullError(err: unknown, command: readonly string[]): DiskFullError | undefined {
  if (err instanceof DiskFullError) return err;
  const full = fullError(err);
  if (full === undefined) return undefined;
  const where = typeof full.path === 'string' ? ` writing ${full.path}` : '';
  const what = full.code === 'ENOSPC' ? 'no space left on the disk' : 'the disk holding the mirror is full';
  return new DiskFullError(`${what}${where}: ${advice(command)}`, err);
}
