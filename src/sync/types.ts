import type { OhsClient } from '../api/index.js';
import type { SyncConfig } from '../config/index.js';
import { OhsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import type { FilterItem, ResourceName } from '../schema/index.js';

/**
 * A stream is a declaration: which resource, how it is read (query pages, a whole list, or ids
 * one by one), how it runs incrementally. One runner per kind reads the declarations, so adding
 * a resource adds a declaration, not a loop.
 */
interface StreamBase {
  /** Stream name: the mirror table's name. */
  name: string;
  resource: ResourceName;
}

export interface QueryStreamDecl extends StreamBase {
  kind: 'query';
  resource: 'HsVendor' | 'OrderItem' | 'Tenant' | 'Role';
  /** Full passes split the id range in `sync.partitions` parts fetched at once (else one part). */
  partitioned: boolean;
  /**
   * Incremental rule. 'full': small table, a full pass every run. 'open-rows': new rows above the
   * highest id, plus a re-poll of rows that can still change (`reopen`).
   */
  incremental: 'full' | 'open-rows';
  /** Which rows can still change: the service filter, and the mirror column with its value. */
  reopen?: { filter: FilterItem; column: string; value: number };
  /** Keep a status history (orderitem_status_history). */
  statusHistory?: boolean;
}

export interface ListStreamDecl extends StreamBase {
  kind: 'list';
  resource: 'OrgMonth' | 'User';
}

/** Where the ids of a resource without a list operation come from. */
export interface IdRef {
  table: string;
  /** A column holding the id... */
  column?: string;
  /** ...or ids found in each row's raw JSON. */
  fromRaw?: (raw: Record<string, unknown>) => unknown[];
}

export interface IdStreamDecl extends StreamBase {
  kind: 'ids';
  /** Its first id comes from `sync.idStart.<name>`. */
  name: keyof SyncConfig['idStart'];
  resource: 'Invoice' | 'Staff' | 'Applicant';
  /** Ids referenced elsewhere in the mirror. */
  refs: IdRef[];
  /**
   * Known rows re-read by an incremental run: 'open' = rows matching `openWhere` (unpaid invoices);
   * 'none' = only new ids are looked for (a full pass re-reads every known row).
   */
  incrementalReread: 'open' | 'none';
  /** Mirror condition of rows that can still change: column and "not equal to" value. */
  openWhere?: { column: string; notEqual: number };
}

export type StreamDecl = QueryStreamDecl | ListStreamDecl | IdStreamDecl;

/**
 * Resolved options of a sync: the configured values (config `sync`: partitions, probeWindow,
 * rereadRuns, massDeleteShare, massDeleteMinRows, idStart, documented in src/config/schema.ts)
 * as given, never defaulted here, and this run's switches.
 */
export interface SyncOptions extends SyncConfig {
  full: boolean;
  allowMassDelete: boolean;
  /** Extra ids per id stream (from files). */
  extraIds: Partial<Record<string, (string | number)[]>>;
  /** Drop the unfinished passes first, so this run re-reads instead of resuming (--restart-passes). */
  restartPasses: boolean;
}

export interface StreamStats {
  mode: 'full' | 'incremental';
  pages: number;
  /** Records fetched (their requests / records: requests per record). */
  records: number;
  /** Ids the stream could not read this run (asked again next run). */
  failedIds: number;
  /** Probing upward stopped at its reach (id-probe.ts probeReach) rather than at `probeWindow` 404s. */
  probeBounded: boolean;
  /**
   * Probing upward (or the search of an empty stream) stopped on evidence that the service is not
   * answering for the resource (an answer failing the record checks: not the id asked, no field
   * but its id, a foreign record): which id answered what.
   */
  probeEvidence?: string;
  /**
   * What this run left unread when a stream stopped at a bound (and what to do): the stream is
   * recorded `incomplete` in sync_stream_run, its error column holding this text.
   */
  incomplete?: string;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  /** Soft-deleted rows seen again and restored (each recorded in sync_deletion.restored_at). */
  restored: number;
}

export interface StreamProgress {
  /** Records fetched since the last call. */
  add(records: number): void;
}

/**
 * What the whole run has shown, shared by its streams: the resources whose GET route answered a
 * record in this run (a 404 of such a route is evidence a record is gone; of any other, it is
 * none), and whether a stream of the run failed (then the streams still running withhold their
 * deletions: a failed run commits none after its failure).
 */
export interface RunEvidence {
  live: Set<ResourceName>;
  failed: boolean;
}

export const newRunEvidence = (): RunEvidence => ({ live: new Set(), failed: false });

export interface StreamContext {
  client: OhsClient;
  /** Shared by the run's streams (see RunEvidence). */
  evidence: RunEvidence;
  mirror: Mirror;
  runId: number;
  options: SyncOptions;
  logger: Logger;
  progress: StreamProgress;
  /** Aborted on SIGINT/SIGTERM: finish the page under way, checkpoint, stop. */
  signal: AbortSignal;
  stats: StreamStats;
}

export const newStats = (mode: StreamStats['mode']): StreamStats => ({
  mode,
  pages: 0,
  records: 0,
  failedIds: 0,
  probeBounded: false,
  inserted: 0,
  updated: 0,
  unchanged: 0,
  deleted: 0,
  restored: 0,
});

/** A pass would soft-delete more of a table than allowed. */
export class MassDeleteError extends OhsError {
  override name = 'MassDeleteError';
  constructor(message: string) {
    super('MASS_DELETE', message);
  }
}

/** Another sync holds this mirror (src/mirror/store.ts). */
export { LockedError } from '../mirror/index.js';

/**
 * The sync stopped on SIGINT/SIGTERM after checkpointing, or because another stream of the run met
 * a full disk (`why` says so); the next run resumes.
 */
export class InterruptedError extends OhsError {
  override name = 'InterruptedError';
  override readonly exitCode = 0;
  constructor(why = 'stopped after the page under way') {
    super('INTERRUPTED', `interrupted: ${why}; the next run resumes`);
  }
}
