import type { ColumnType, Generated } from 'kysely';
import type { ResourceName, resources } from '../schema/index.js';

/**
 * Kysely types of the mirror. Resource tables have their typed columns (from the schema module)
 * besides the bookkeeping ones; they are typed loosely here since their columns are derived.
 */
export interface ResourceRow {
  id: number | string;
  raw: string;
  synced_at: string;
  deleted_at: string | null;
  seen_pass: string | null;
  [column: string]: unknown;
}

export interface ChildRow {
  id: number;
  raw: string;
  [column: string]: unknown;
}

export interface SyncRunTable {
  id: Generated<number>;
  kind: string;
  started_at: string;
  ended_at: string | null;
  mode: string;
  streams: string;
  outcome: string;
  error_code: string | null;
  error: string | null;
  pid: number;
  requests: number;
  retries: number;
  /** Host of the process (0008); null on runs recorded before. */
  host: string | null;
}

export interface SyncStreamRunTable {
  id: Generated<number>;
  run_id: number;
  stream: string;
  mode: string;
  started_at: string;
  ended_at: string | null;
  outcome: string;
  pages: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  requests: number;
  retries: number;
  error: string | null;
  /** Records fetched (requests / records: requests per record). Migration 0007. */
  records: ColumnType<number, number | undefined, number>;
}

export interface SyncCheckpointTable {
  stream: string;
  part: number;
  pass_id: string;
  mode: string;
  /** Last id done (exclusive lower bound of what is left); null: not started. */
  cursor: string | null;
  /** Inclusive upper bound of the partition; null: open-ended. */
  upper: string | null;
  done: number;
  updated_at: string;
}

export interface SyncStreamStateTable {
  stream: string;
  last_run_id: number | null;
  last_success_at: string | null;
  last_full_at: string | null;
  /** The full pass under way (resumed after a kill), null when none. */
  pass_id: string | null;
  pass_started_at: string | null;
  /** Rotating re-read of id streams: the last id re-read, and when a round last completed. */
  reread_cursor: ColumnType<string | null, string | null | undefined, string | null>;
  reread_round_at: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Ids a pass saw (1), found gone (0) or failed to read (2). Migration 0007. */
export interface SyncPassSeenTable {
  stream: string;
  id: string;
  state: number;
}

/** Changed records of a pass, written to the mirror once its deletions pass the guard. */
export interface SyncPassStageTable {
  stream: string;
  id: string;
  raw: string;
}

/** Ids a run failed to read (after the client's retries): asked again by the next run. */
export interface SyncFailedIdTable {
  stream: string;
  id: string;
  error: string;
  failed_at: string;
}

export interface SyncDeletionTable {
  id: Generated<number>;
  run_id: number;
  stream: string;
  table_name: string;
  row_id: string;
  deleted_at: string;
  /** When the row was seen again and restored (null: still deleted). */
  restored_at: string | null;
  restored_run_id: number | null;
}

export interface SyncLockTable {
  name: string;
  pid: number;
  host: string;
  acquired_at: string;
  heartbeat_at: string;
}

export interface StatusHistoryTable {
  id: Generated<number>;
  orderitem_id: number;
  status_id: number | null;
  status_code: string | null;
  status_name: string | null;
  first_seen_at: string;
  last_seen_at: string;
}

export interface DataDictionaryTable {
  table_name: string;
  column_name: string;
  sql_type: string;
  field: string | null;
  description: string;
}

export interface OrgPolicyTable {
  org_id: number;
  /** 'DOT' or 'NON_DOT'. */
  program: string;
  /** FMCSA, FTA, FAA, FRA, PHMSA, USCG, ... or null. */
  agency: string | null;
  rp_min_drug: number | null;
  rp_min_alc: number | null;
  dot_registration_number: string | null;
  parent_org_id: number | null;
  /** 'import' (ohs policy import) or 'writeback' (an org created through ohs apply). */
  source: string;
  updated_at: string;
  /**
   * The first day (YYYY-MM-DD) of the months the policy scores; null: every month (a policy
   * written before effective dates were kept, or by write-back).
   */
  effective_from?: string | null;
}

export interface JobRunTable {
  id: Generated<number>;
  job: string;
  /** 'run' (ohs run), 'cron', 'demo'. */
  trigger: string;
  started_at: string;
  ended_at: string | null;
  /** running, ok, failed, interrupted. */
  outcome: string;
  error_code: string | null;
  error: string | null;
  /** JSON array of the files written. */
  outputs: string;
  sync_run_id: number | null;
  pid: number;
}

/**
 * `sending`: claimed by an apply, request about to leave or in flight; `sent`: rows of older
 * versions; `conflict`: sent and answered, but the service's state read back is not what the
 * change alone makes (a person checks it).
 */
export type OutboxState =
  | 'queued'
  | 'sending'
  | 'sent'
  | 'applied'
  | 'conflict'
  | 'failed'
  | 'unknown'
  | 'held'
  | 'abandoned';

export interface OutboxTable {
  id: Generated<number>;
  /** sha256 of op, target, canonical body, file name and the row's occurrence in the file. */
  idempotency_key: string;
  /** sha256 of op, target and canonical body only: finds the same change planned from another file. */
  content_key: string;
  /** payment, person.create, person.update, person.delete, applicant.update, org.create. */
  op: string;
  /** Person or applicant id of an update or delete; null for creates. */
  target_id: string | null;
  /** JSON request body. */
  body: string;
  summary: string;
  /** JSON array of warnings found when planning (e.g. payment above the balance). */
  flags: string;
  state: OutboxState;
  /** Sends of the request (each POST, or each PATCH/DELETE call with its own retries). */
  attempts: number;
  /** JSON: method and path of the last request. */
  request: string | null;
  /** JSON: the service's answer (record) of the last request. */
  response: string | null;
  error: string | null;
  /** Payments: the invoice's balance read just before sending. */
  balance_before: number | null;
  /** JSON: the re-read check after the change (or the reconciliation). */
  verify: string | null;
  /** How an unknown outcome was settled: reconciled, manual-applied, manual-retry. */
  resolution: string | null;
  /** Id of the record the change made (payment, person, org) when known. */
  result_id: string | null;
  /** person.delete: when a person confirmed it (ohs apply on a TTY or --yes). */
  confirmed_at: string | null;
  file: string;
  row: number;
  created_at: string;
  updated_at: string;
  /** The apply run that claimed the item (`pid@host run-id`), and when (migration 0006). */
  claimed_by: string | null;
  claimed_at: string | null;
  /** When the outcome became unknown, and the apply run that produced it. */
  unknown_at: string | null;
  unknown_run: string | null;
  /** JSON array of reconciliation reads: { at, run, evidence, verdict }. */
  evidence: string | null;
  /** JSON: what the plan checked the item against (a payment's balance left, --allow-overpayment) (0014). */
  planned: string | null;
  /** Payments: the balance the plan counted on (the mirror's, less the payments queued before it). */
  balance_planned: number | null;
  /** Why an apply held the item instead of sending it, with both readings and what to do. */
  hold_reason: string | null;
  /** When a person released a held item (`ohs apply --release ID`), for that apply only. */
  released_at: string | null;
  /** Who released it: the user and the apply (`user (pid@host run)`), with --allow-overpayment or not (0015). */
  released_by: string | null;
  /** When the body's personal values were replaced by masks (a terminal item keeps none). */
  redacted_at: string | null;
}

/** An outbox item entering a state (0017): what a period's report reads its state at an instant from. */
export interface OutboxEventTable {
  id: Generated<number>;
  outbox_id: number;
  state: OutboxState;
  /** ISO 8601 UTC: the item's `updated_at` of that change. */
  at: string;
}

/** Records kept although a field had the wrong type: per run, stream and field (0008). */
export interface SyncTypeErrorTable {
  run_id: number;
  stream: string;
  field: string;
  /** What the schema says the field holds: 'number', 'integer', 'boolean', 'string'. */
  expected: string;
  count: number;
  /** Id of one such record. */
  example_id: string | null;
}

export interface MirrorMetaTable {
  key: string;
  value: string;
  updated_at: string;
}

/** The shared rate budget (see rate-budget.ts); times are epoch milliseconds. */
export interface RateBudgetTable {
  /** Service base URL and a hash of the token (never the token). */
  key: string;
  /** Requests per second in force; null: no limit found yet. */
  rate: number | null;
  w_max: number;
  cut_at: number;
  /** GCRA: when the shared schedule is next free (epoch ms). */
  tat: number;
  good_rate: number | null;
  version: number;
  updated_ms: number;
}

/**
 * The mirror's tables: the bookkeeping ones declared here, and one per resource of the schema
 * module (`ResourceTableName`, derived: a new resource has its table type without an edit here).
 */
export interface Database extends Record<ResourceTableName, ResourceRow> {
  mirror_meta: MirrorMetaTable;
  rate_budget: RateBudgetTable;
  outbox: OutboxTable;
  outbox_event: OutboxEventTable;
  job_run: JobRunTable;
  org_policy: OrgPolicyTable;
  sync_run: SyncRunTable;
  sync_stream_run: SyncStreamRunTable;
  sync_checkpoint: SyncCheckpointTable;
  sync_stream_state: SyncStreamStateTable;
  sync_deletion: SyncDeletionTable;
  sync_pass_seen: SyncPassSeenTable;
  sync_pass_stage: SyncPassStageTable;
  sync_failed_id: SyncFailedIdTable;
  sync_lock: SyncLockTable;
  sync_type_error: SyncTypeErrorTable;
  orderitem_status_history: StatusHistoryTable;
  data_dictionary: DataDictionaryTable;
  applicant_info: ChildRow;
  applicant_info_item: ChildRow;
  /** View: an org's name, from the c_org of its order items and invoices. */
  v_org_name: { org_id: number; org_name: string | null };
}

/** The table of each resource: its path segment (schema/operations.ts `resources`). */
export type ResourceTableName = (typeof resources)[ResourceName]['segment'];
