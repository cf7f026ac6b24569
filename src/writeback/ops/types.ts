import type { OhsClient } from '../../api/index.js';
import type { CellValue } from '../../input/read-table.js';
import type { Mirror } from '../../mirror/index.js';
import type { ObjectSpec, OperationName } from '../../schema/index.js';
import type { Json } from '../json.js';
import type { MirrorWriter } from '../mirror-writes.js';

export type { Json };

/** One outbox item as an operation sees it. */
export interface Work {
  id: number;
  targetId: number | null;
  body: Json;
  /** What `before` read just ahead of the claim (recorded with it); null if the op reads nothing. */
  before: Json | null;
  /** What the plan checked the item against (its verdict's `planned`); null when it recorded none. */
  planned: Json | null;
  /**
   * Released by a person with this apply (`ohs apply --release`), and whether an overpayment was
   * allowed with it; null: not released (or released for an earlier apply, which is over).
   */
  released?: { allowOverpayment: boolean } | null;
}

export interface SendResult {
  /** Id of the record the change made or changed. */
  resultId: string | null;
  /** The service's answer (masked before it is stored). */
  response: unknown;
  note: string;
  /** The check made on the answer or a re-read. */
  check?: Json;
  /**
   * The service's state after the change is not what the change alone makes (a payment's balance
   * read back is not the balance before less the amount): why, in one line. The item ends
   * `conflict`, never `applied` in silence.
   */
  conflict?: string;
}

/**
 * What one reconciliation read says of an unknown outcome: `applied` (the effect is there),
 * `not-applied` (the evidence shows the state before the send), `unclear` (neither: a person
 * decides with `ohs outbox resolve`).
 */
export type Verdict = 'applied' | 'not-applied' | 'unclear';

export interface Reading {
  verdict: Verdict;
  evidence: Json;
  note: string;
  resultId?: string;
}

export interface OpContext {
  client: OhsClient;
  mirror: MirrorWriter;
}

/** What a plan gives an operation's checks against the mirror (one plan, one file). */
export interface PlanContext {
  db: Mirror['db'];
  /** A payment above this many times its invoice's balance is refused (looks like cents); 0: off. */
  centsRatio: number;
  /** The mirror keeps sensitive fields as received: they can be compared. */
  storeSensitive: boolean;
  /** A payment above its invoice's balance is queued (flagged) instead of refused (`--allow-overpayment`). */
  allowOverpayment: boolean;
}

/** A row of the file as read, valid or not (its cells named by field). */
export interface PlanRow {
  row: number;
  values: Record<string, CellValue>;
}

/** A valid row as planned. */
export interface PlannedRow {
  row: number;
  targetId: number | null;
  body: Json;
}

/** What an operation's plan check says of a valid row. */
export interface PlanVerdict {
  /** Flags shown on the plan line (the change is queued all the same). */
  flags: string[];
  /** The plan line's target, when not the row's id (a payment names its invoice). */
  target?: string;
  /** `skip`: nothing to change (shown, not queued); `drop`: refused by `problems` already. */
  outcome?: 'skip' | 'drop';
  /** Problems found against the mirror (`field: what`): they refuse the whole file. */
  problems?: string[];
  /**
   * What the row was checked against (a payment: the balance it counts on, and whether an
   * overpayment was allowed), stored on the item for the check at the moment of sending (`hold`).
   */
  planned?: Json;
}

/** An operation's checks of a plan against the mirror; one instance per plan (it may cache reads). */
export interface PlanChecks {
  /** Problems of a row, valid or not, so one pass names them all (`field: what`); they refuse the file. */
  problems?(row: PlanRow): Promise<string[]>;
  /** Flags, target and skip of a valid row, in file order. */
  check(row: PlannedRow): Promise<PlanVerdict>;
}

/**
 * One write-back operation, declared: what a row holds and which rules it obeys, how a plan
 * checks it against the mirror, whether it needs a confirmation, which lane it runs in, whether
 * sending it twice is harmless, how to send it, and how to read its effect back. The validator,
 * the plan, the outbox and the runner (apply.ts) read these; nothing else knows an operation by
 * name, so adding one is adding a module here and its line in index.ts.
 */
export interface OpDeclaration {
  /** The service operation it calls (method and path recorded on the item when claimed). */
  operation: OperationName;
  /** The request body's spec (person.delete sends none). */
  spec: ObjectSpec;
  /** Fields a row must give. */
  required: readonly string[];
  /** The row names an existing record in column `id` (updates, deletes). */
  targeted: boolean;
  /** What the target id names, for messages (and the mirror table the plan reads it from). */
  target?: 'person' | 'applicant';
  /** Rules of a row's given fields beyond the spec's types and `required` (`field: what is wrong`). */
  rowRules?(input: Json): string[];
  /** Checks of a plan against the mirror (invoice known, unchanged rows); absent: none. */
  plan?(ctx: PlanContext): PlanChecks;
  /** Dollars this change pays, counted against `writeback.confirmAmount`; absent: 0. */
  amount?(body: Json): number;
  /** Permanent: `ohs apply` sends it only once confirmed (`--yes` or the terminal's question). */
  destructive?: boolean;
  /** The one-line summary of a planned change (shown by plan, apply and outbox). */
  describe(body: Json, targetId: number | null): string;
  /**
   * Items of one lane run one after the other, in outbox order; lanes run side by side. An item
   * whose outcome is not settled holds back the rest of its lane.
   */
  lane(body: Json, targetId: number | null, id: number): string;
  /** Whether sending this body twice is harmless (a PATCH with nested arrays is not: they append). */
  idempotent(body: Json): boolean;
  /** The evidence read before the claim, recorded with it (e.g. the invoice's balance). */
  before?(ctx: OpContext, work: Work): Promise<Json>;
  /**
   * The check at the moment of sending, on what `before` has just read and what the plan
   * recorded (`work.planned`): a reason when the change has become wrong since it was planned
   * (the invoice paid, cancelled or unreadable; the target deleted). The runner then holds the
   * item instead of claiming it (`held`, with the reason, until re-planned or released); absent
   * or undefined: send. `work.released` says a person released it for this apply: what changed
   * since the plan is then let through, but never a payment above the balance read now unless
   * the release allowed an overpayment.
   */
  hold?(work: Work): string | undefined;
  /** Sends the change; throws the client's errors as they are. */
  send(ctx: OpContext, work: Work): Promise<SendResult>;
  /** Reads the effect of an unknown outcome back; absent: only a person can tell (`ohs outbox resolve`). */
  readBack?(ctx: OpContext, work: Work): Promise<Reading>;
}

/** The rule of an update: a row with only an id changes nothing. */
export function somethingToChange(input: Json): string[] {
  return Object.keys(input).length === 0
    ? ['row: nothing to change: give at least one field besides id']
    : [];
}

/** Whether a body holds a nested array (which the service appends as new records). */
export function hasNestedArray(body: Json): boolean {
  return Object.values(body).some((v) => Array.isArray(v));
}

/** Whether the record shows every scalar field of the body (nested arrays add records: not compared). */
export function fieldCheck(body: Json, rec: Json): { ok: boolean; differs: string[] } {
  const differs = Object.entries(body)
    .filter(([, v]) => !Array.isArray(v))
    .filter(([k, v]) => rec[k] !== v)
    .map(([k]) => k);
  return { ok: differs.length === 0, differs };
}

export const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);
/** Dollars with thousands separators: 1,234.50. */
export const moneyText = (n: number) => money(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** A mirrored record's `raw` column as an object ({} when absent). */
export function parseRaw(raw: string | null | undefined): Json {
  if (raw === undefined || raw === null) return {};
  return JSON.parse(raw) as Json;
}
export const round2 = (n: number) => Math.round(n * 100) / 100;
export const near = (a: number, b: number) => Math.abs(a - b) < 0.005;
