import type { Kysely } from 'kysely';
import { OhsError } from '../errors.js';
import type { ResourceName } from '../schema/index.js';
import type { Database as MirrorDb, SyncCheckpointTable } from './db-types.js';

/**
 * The mirror seam, shaped like kysely's dialects: what sync, write-back, locks, jobs and reports
 * need of the store, with one implementation per engine (`src/mirror/sqlite/`, and
 * `src/mirror/postgres/` holding the same set of files). Portable queries go through `db`
 * (Kysely); the hot path (page upserts, pass bookkeeping, checkpoints, history) and locks go
 * through the engine's own code, every call taking a whole page so that an engine over a network
 * makes one round trip per call. Everything is async: an engine over an async driver can
 * implement it as is.
 */
export type MirrorEngine = 'sqlite' | 'postgres';

export interface MirrorOptions {
  /** Keep SSNs, birth dates, licence numbers as received instead of masked. @default false */
  storeSensitive?: boolean;
  /** Open without migrating or writing (for status and reports of a mirror in use). @default false */
  readonly?: boolean;
  /**
   * Refuse a missing mirror instead of creating an empty one: only the commands that fill a
   * mirror (sync, run, cron, demo) create one; a typo in --db elsewhere is an error.
   * @default false
   */
  mustExist?: boolean;
  /**
   * Open read-only when the mirror cannot be written (another user's file, a read-only share):
   * for commands that only read (status, report). @default false
   */
  readonlyFallback?: boolean;
  /**
   * Keep every version of the records (history.ts). Off only to measure what history costs
   * (`npm run bench -- mirror`): a mirror written without it has holes in its history.
   * @default true
   */
  history?: boolean;
}

export interface UpsertCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

export interface UpsertOptions {
  /** ISO timestamp of this sync. */
  now: string;
  /** The full pass under way, marking rows seen; undefined outside full passes. */
  pass?: string | undefined;
  /** The records are already as the mirror keeps them (staged by a pass): not masked again. */
  prepared?: boolean;
}

/**
 * What a pass knows of an id: to read, seen upstream, answered 404, could not be read, or a hole
 * (an id probed above the highest known one that answered 404: asked again, never deleted).
 */
/** How often a held lock (sync, apply) says its holder is alive, on either engine. */
export const HEARTBEAT_MS = 10_000;

export const seenState = { seen: 1, missing: 0, failed: 2, todo: 3, hole: 4 } as const;
export type SeenState = (typeof seenState)[keyof typeof seenState];

/** A checkpoint of a stream's partition, as `sync_checkpoint` holds it (less its update time). */
export type CheckpointRow = Omit<SyncCheckpointTable, 'updated_at'>;

/** Who wrote a soft deletion (one sync_deletion row per row deleted). */
export interface DeletionAudit {
  runId: number;
  stream: string;
  now: string;
}

/** Options of the writes that put records into a table (stagePage, applyPass). */
export interface WriteOptions {
  /** Record the status of every record written in orderitem_status_history (OrderItem). */
  statusHistory?: boolean;
}

/**
 * The writes of one transaction (`Mirror.write`). Every method takes a whole page (or list) so an
 * engine over a network makes one round trip per call; none may be called after `write`'s
 * callback has returned.
 */
export interface MirrorWriter {
  /** Portable queries inside this transaction. */
  readonly db: Kysely<MirrorDb>;
  /**
   * Upserts records (masked unless `prepared`). A record whose JSON is unchanged only has its sync
   * time and pass mark refreshed; a changed one is rewritten with its child rows, and its history
   * gains a version (history.ts: the open one closed at `now`; a restored row opens one too).
   */
  upsert(
    resource: ResourceName,
    records: readonly Record<string, unknown>[],
    options: UpsertOptions,
  ): Promise<UpsertCounts>;
  /**
   * Records the status of order items: a new history row for each whose status differs from its
   * latest one (a move back to an earlier status starts a new row too), else a later last_seen_at.
   */
  recordStatus(records: readonly Record<string, unknown>[], now: string): Promise<void>;
  /** Soft-deletes rows, each with an audit row, ending their open version; returns how many changed. */
  softDelete(
    resource: ResourceName,
    ids: readonly (number | string)[],
    audit: DeletionAudit,
  ): Promise<number>;
  /**
   * One page of a pass: every id noted as seen; a record equal to the active row is left alone,
   * any other staged until the pass ends (or, while the table is bulk-loaded from empty, written
   * at once). Counts are what the pass will write.
   */
  stagePage(
    resource: ResourceName,
    stream: string,
    records: readonly Record<string, unknown>[],
    now: string,
    options?: WriteOptions,
  ): Promise<UpsertCounts>;
  /** Notes ids of the pass under way in a state (to read, gone, unreadable). */
  markSeen(stream: string, ids: readonly (number | string)[], state: SeenState): Promise<void>;
  /** Writes the staged records of a pass into the mirror, then forgets the pass's ids. */
  applyPass(resource: ResourceName, stream: string, now: string, options?: WriteOptions): Promise<void>;
  /** Forgets the seen ids and staged records of a stream's pass (a new pass starts clean). */
  clearPassIds(stream: string): Promise<void>;
  saveCheckpoint(row: CheckpointRow, now: string): Promise<void>;
  /** Starts (passId) or ends (null) a stream's pass; `completed` also stamps the last full pass. */
  setPass(stream: string, passId: string | null, now: string, completed?: 'full' | 'other'): Promise<void>;
  /** Moves a stream's rotating re-read cursor; `roundAt` ends a round. */
  setRereadCursor(stream: string, cursor: string | null, roundAt: string | null): Promise<void>;
}

/** A named lock held on the mirror (sync, apply); released at the end, or when its holder dies. */
export interface MirrorLock {
  release(): Promise<void>;
}

export interface Mirror {
  readonly engine: MirrorEngine;
  /** Where the mirror is: a file path, or a connection string without its password. */
  readonly location: string;
  /** The driver under the engine (e.g. better-sqlite3-13). */
  readonly driver: string;
  /** Portable queries (run records, status, reports) go through Kysely. */
  readonly db: Kysely<MirrorDb>;
  /** Opened read-only (status and reports of a mirror this process cannot write). */
  readonly readonly: boolean;
  /** The record as the mirror keeps it: sensitive fields masked unless configured otherwise. */
  prepare(resource: ResourceName, record: Record<string, unknown>): Record<string, unknown>;
  /**
   * Runs `fn` in one write transaction, committed when it resolves, rolled back when it throws.
   * Transactions never interleave: no other write, and no query of `db`, runs inside it. Inside
   * `fn`, use the writer (and its `db`) only: `mirror.db` or another `write` would wait for it.
   */
  write<T>(fn: (w: MirrorWriter) => Promise<T>): Promise<T>;
  /**
   * Runs `load` as a bulk load of a resource into its table when that is empty (the engine may
   * drop secondary indexes meanwhile and skip look-ups of rows that cannot be there).
   */
  bulkLoad<T>(resource: ResourceName, load: () => Promise<T>): Promise<T>;
  /** Ids of the pass under way in a state. */
  seenIds(stream: string, state: SeenState): Promise<string[]>;
  /** Records staged by the pass under way. */
  stagedCount(stream: string): Promise<number>;
  /** Housekeeping after a pass (SQLite: a passive WAL checkpoint). */
  maintain(): Promise<void>;
  /**
   * Makes every later commit of this mirror durable before it returns, a power loss included
   * (SQLite `synchronous = FULL` on its connection; PostgreSQL's connections run
   * `synchronous_commit = on` always): the write-back's claims, committed before a request leaves.
   */
  durableCommits(): Promise<void>;
  /** The engine's durability setting as it reads it back (`FULL`, `NORMAL`; `on`, `off`). */
  durability(): Promise<string>;
  /** Takes a named lock (sync, apply); throws LockedError naming the holder when it is held. */
  lock(name: string): Promise<MirrorLock>;
  /**
   * A named lock shared by every mirror the engine's server holds in one database, whatever its
   * schema (PostgreSQL: an advisory lock keyed by the name alone; the write-back's lock of a
   * service). Throws LockedError with `refusal(holder)`. Undefined where a mirror shares nothing
   * with another (a SQLite file).
   */
  sharedLock(name: string, refusal: (holder: string) => string): Promise<MirrorLock | undefined>;
  close(): Promise<void>;
}

export class MirrorOpenError extends OhsError {
  override name = 'MirrorOpenError';
  constructor(message: string, cause?: unknown) {
    super('MIRROR_OPEN_FAILED', message, { cause });
  }
}

/** The error of a mirror file that is not there, for commands that do not create one. */
export function noMirror(file: string): MirrorOpenError {
  return new MirrorOpenError(`no mirror at ${file}: run ohs sync first (or pass --db FILE)`);
}

/** Another process holds the lock (a sync, an apply) on this mirror. */
export class LockedError extends OhsError {
  override name = 'LockedError';
  override readonly exitCode = 6;
  constructor(message: string) {
    super('LOCKED', message);
  }
}

/** The mirror used (mirror.db, another write) inside its own `write`: it would wait for itself. */
export class NestedWriteError extends OhsError {
  override name = 'NestedWriteError';
  constructor() {
    super(
      'MIRROR_NESTED_WRITE',
      'the mirror was used inside its own Mirror.write (mirror.db, or another write): use the writer it was given',
    );
  }
}
