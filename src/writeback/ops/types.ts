import type { OhsClient } from '../../api/index.js';
import type { ObjectSpec, OperationName } from '../../schema/index.js';
import type { MirrorWriter } from '../mirror-writes.js';

export type Json = Record<string, unknown>;

/** One outbox item as an operation sees it. */
export interface Work {
  id: number;
  targetId: number | null;
  body: Json;
  /** What `before` read just ahead of the claim (recorded with it); null if the op reads nothing. */
  before: Json | null;
}

export interface SendResult {
  /** Id of the record the change made or changed. */
  resultId: string | null;
  /** The service's answer (masked before it is stored). */
  response: unknown;
  note: string;
  /** The check made on the answer or a re-read. */
  check?: Json;
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

/**
 * One write-back operation, declared: what a row holds, which lane it runs in, whether sending it
 * twice is harmless, how to send it, and how to read its effect back. The runner (apply.ts) reads
 * these and nothing else knows an operation by name.
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
  /** What the target id names, for messages. */
  target?: 'person' | 'applicant';
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
  /** Sends the change; throws the client's errors as they are. */
  send(ctx: OpContext, work: Work): Promise<SendResult>;
  /** Reads the effect of an unknown outcome back; absent: only a person can tell (`ohs outbox resolve`). */
  readBack?(ctx: OpContext, work: Work): Promise<Reading>;
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
export const round2 = (n: number) => Math.round(n * 100) / 100;
export const near = (a: number, b: number) => Math.abs(a - b) < 0.005;
