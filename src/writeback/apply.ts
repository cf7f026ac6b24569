import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import PQueue from 'p-queue';
import {
  ApiError,
  InvalidRequestError,
  NetworkError,
  NotFoundError,
  type OhsClient,
  OutcomeUnknownError,
  RateLimitedError,
  UnauthorizedError,
} from '../api/index.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror, OutboxState } from '../mirror/index.js';
import { operations } from '../schema/index.js';
import { maskText } from '../util/mask.js';
import { beforeOf, Claims, type EvidenceRead, evidenceOnly, type OutboxItem, readsOf } from './claims.js';
import { ApplyConflictError, ApplyHeldError, ApplyIncompleteError } from './errors.js';
import { applyLocks } from './locks.js';
import { MirrorWriter } from './mirror-writes.js';
import { type Json, type OpContext, type OpName, ops, type Work } from './ops/index.js';
import { releaseHeld } from './outbox.js';
import { maskDeep } from './privacy.js';

/**
 * `ohs apply`: the runner of the write-back. It knows no operation by name: each one is a
 * declaration under ops/ (lane, idempotency, send, read-back), and this file moves items through
 * their states, one apply per service at a time (locks.ts: the mirror's, the machine's and the
 * database's locks of the service):
 *
 *   queued --check at the moment of sending: the change became wrong--> held
 *   held --ohs apply --release ID (taken under the locks, for that apply only)--> queued
 *        | --re-plan--> queued | --abandon--> abandoned
 *   queued (released, not sent by the apply that released it) --the apply's end, or the next one's start--> held
 *   queued --claim--> sending --answer--> applied | failed
 *                        |--answer, but the service's state after it is not what the change alone makes (a
 *                           payment's balance read back is not the balance before less the amount)--> conflict
 *                        |--no answer that tells (5xx, 504, timeout, reset, lost reply)--> unknown
 *   unknown --read back: applied--> applied
 *   unknown --N consecutive reads in N runs: not applied--> queued (sent again, not by the run that produced it)
 *   unknown --idempotent op (left by a stopped apply)--> queued
 *
 * The claim is a conditional update committed before any byte leaves; an apply killed in
 * `sending` leaves the item there, and the next apply (holding the lock, so no live apply owns
 * it) turns it into `unknown`. Reads of an unknown outcome wait `settleMs` after it arose, happen
 * once per run, and are recorded on the item with their verdict. Before the claim, the op's
 * `before` reads the target as the service shows it now and its `hold` decides on that read
 * whether the change is still right (a payment's balance against its amount and the plan's):
 * when not, the item is held, not claimed, and waits for a person.
 */
export interface ApplyOptions {
  concurrency: number;
  logger?: Logger;
  /** Destructive items (person.delete): 'all' queued ones (confirmed by the caller), or only those confirmed before. */
  deletes: 'all' | 'confirmed';
  /** Milliseconds an unknown outcome settles before it is read back (writeback.settleMs). */
  settleMs: number;
  /** Consecutive "not carried out" reads, one per run, before an unknown create is sent again (writeback.agreeingReads). */
  agreeingReads: number;
  signal?: AbortSignal;
  now?: () => string;
  /**
   * Held items a person releases with this apply (`--release`): released once its locks are held
   * (who and when recorded), sent by it or held again at its end. A release lets through a change
   * made since the plan (a balance fallen, an invoice cancelled), never a payment above the
   * balance read when it leaves unless `allowOverpayment` is given with it.
   */
  release?: { ids: number[]; allowOverpayment: boolean };
}

export interface ApplyLine {
  id: number;
  op: OpName;
  summary: string;
  state: OutboxState;
  note: string;
  /**
   * The service's own text of its answer, masked: for `ohs apply --show-service-text` on a
   * terminal only; never in `note`, the log or the outbox.
   */
  serviceText?: string;
}

export interface ApplyReport {
  lines: ApplyLine[];
  counts: Record<OutboxState, number>;
  /** Unknown outcomes settled by reading the service back. */
  reconciled: number;
  /** person.delete items not sent (not confirmed). */
  deletesWaiting: number;
  /** Items a stopped apply left in `sending`, turned unknown at the start of this run. */
  orphans: number;
}

type Settled = 'applied' | 'failed';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A 4xx answer: the service said no, sending again would not help. */
function isRejection(err: unknown): err is ApiError {
  return (
    err instanceof InvalidRequestError ||
    err instanceof NotFoundError ||
    (err instanceof ApiError && err.code === 'FORBIDDEN')
  );
}

export class Applier {
  private readonly now: () => string;
  private readonly lines = new Map<number, ApplyLine>();
  private readonly claims: Claims;
  private readonly ctx: OpContext;
  private readonly work: PQueue;
  private reconciled = 0;
  /** The service's text of each item's failed request, for the terminal's view only (ApplyLine). */
  private readonly texts = new Map<number, string>();
  /** Items this run released (`--release`): the release holds for this run only. */
  private readonly released = new Set<number>();

  constructor(
    client: OhsClient,
    private readonly mirror: Mirror,
    private readonly options: ApplyOptions,
  ) {
    this.now = options.now ?? (() => new Date().toISOString());
    const run = randomUUID().slice(0, 8);
    this.claims = new Claims(mirror, `${process.pid}@${hostname()} ${run}`, run, this.now);
    this.ctx = { client, mirror: new MirrorWriter(mirror, this.now, options.logger) };
    // Requests of all lanes share this pool; a lane waiting for an outcome to settle holds no slot.
    this.work = new PQueue({ concurrency: Math.max(1, options.concurrency) });
  }

  async run(): Promise<ApplyReport> {
    const lock = await applyLocks(this.mirror, this.ctx.client.baseUrl);
    try {
      // A claim rolled back by a power loss after its request left would send it again.
      await this.mirror.durableCommits();
      const orphans = await this.claims.orphansToUnknown();
      // A release an earlier apply was given and did not use (it failed or was killed) is over.
      await this.claims.lapseReleases();
      await this.releaseHere();
      const items = await this.claims.load();
      let deletesWaiting = 0;
      const lanes = new Map<string, OutboxItem[]>();
      for (const item of items) {
        const decl = ops[item.op as OpName];
        if (
          decl.destructive === true &&
          item.state === 'queued' &&
          this.options.deletes === 'confirmed' &&
          item.confirmed_at === null
        ) {
          deletesWaiting++;
          continue;
        }
        const lane = decl.lane(JSON.parse(item.body) as Json, targetOf(item), item.id);
        const list = lanes.get(lane) ?? [];
        list.push(item);
        lanes.set(lane, list);
      }
      // Every lane ends before the lock is released, even when one stops the run (a 401).
      const ended = await Promise.allSettled([...lanes.values()].map((lane) => this.runLane(lane)));
      const stopped = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
      if (stopped !== undefined) throw stopped.reason;
      const counts: Record<OutboxState, number> = {
        queued: 0,
        sending: 0,
        sent: 0,
        applied: 0,
        conflict: 0,
        failed: 0,
        unknown: 0,
        held: 0,
        abandoned: 0,
      };
      const lines = [...this.lines.values()].sort((a, b) => a.id - b.id);
      for (const l of lines) counts[l.state]++;
      return { lines, counts, reconciled: this.reconciled, deletesWaiting, orphans };
    } finally {
      // Released by this run and not sent (stopped, refused, a lane blocked): held again.
      try {
        if (this.released.size > 0) await this.claims.lapseReleases([...this.released]);
      } finally {
        await lock.release();
      }
    }
  }

  /** `--release`: under the locks, all or none (an id not held refuses them all). */
  private async releaseHere(): Promise<void> {
    const release = this.options.release;
    if (release === undefined || release.ids.length === 0) return;
    let user: string;
    try {
      user = userInfo().username;
    } catch {
      user = `uid ${process.getuid?.() ?? 'unknown'}`;
    }
    const done = await releaseHeld(this.mirror, release.ids, {
      by: `${user} (${this.claims.claimant})`,
      allowOverpayment: release.allowOverpayment,
      now: this.now(),
    });
    for (const item of done) this.released.add(item.id);
  }

  private async runLane(lane: OutboxItem[]): Promise<void> {
    let blockedBy: number | undefined;
    for (const item of lane) {
      if (this.options.signal?.aborted) return;
      if (blockedBy !== undefined) {
        this.line(item, item.state, `waits: #${blockedBy} before it in its lane is not settled`);
        continue;
      }
      let state: OutboxState;
      try {
        state = await this.handle(item);
      } catch (err) {
        if (err instanceof UnauthorizedError) throw err;
        // A read needed to send or to reconcile failed after its retries: the item stays as it was.
        const error = errorOf(item, err);
        this.heard(item, err);
        this.options.logger?.warn({ outbox: item.id, err: error }, 'write-back item not settled');
        state = (await this.claims.state(item.id)) ?? item.state;
        this.line(item, state, error);
      }
      // A held payment leaves the balance as it was: the next one in its lane is checked on its own
      // (after a conflict too: the balance it reads is the service's, whatever moved it).
      if (!['applied', 'conflict', 'failed', 'held'].includes(state)) blockedBy = item.id;
    }
  }

  private async handle(item: OutboxItem): Promise<OutboxState> {
    let state: OutboxState = item.state;
    if (state === 'unknown') state = await this.reconcile(item, false);
    if (state !== 'queued' || this.options.signal?.aborted === true) return state;
    state = await this.send(item);
    // Produced by this run: read back once it settled, but never sent again in this run.
    if (state === 'unknown') state = await this.reconcile(item, true);
    return state;
  }

  private line(item: OutboxItem, state: OutboxState, note: string): void {
    item.state = state;
    const serviceText = this.texts.get(item.id);
    this.lines.set(item.id, {
      ...{ id: item.id, op: item.op as OpName, summary: item.summary, state, note },
      ...(serviceText === undefined ? {} : { serviceText }),
    });
  }

  /**
   * Keeps the service's text of a failed request for the terminal's view (never stored); a
   * service's answer to a send is logged as what is stored of it (`error`), never its text.
   */
  private heard(item: OutboxItem, err: unknown, error?: string): void {
    if (!(err instanceof ApiError)) return;
    const text = err.serviceText;
    if (text !== undefined && text !== '') this.texts.set(item.id, text);
    if (error !== undefined && err.status !== undefined)
      this.options.logger?.warn({ outbox: item.id, err: error }, 'write-back item answered with an error');
  }

  private workOf(item: OutboxItem, before: Json | null): Work {
    const planned = item.planned === null ? null : (JSON.parse(item.planned) as Json);
    const released = this.released.has(item.id)
      ? { allowOverpayment: this.options.release?.allowOverpayment === true }
      : null;
    return {
      id: item.id,
      targetId: targetOf(item),
      body: JSON.parse(item.body) as Json,
      before,
      planned,
      released,
    };
  }

  /** The check at the moment of sending said no: held with what was read, not sent. */
  private async hold(item: OutboxItem, before: Json | null, reason: string): Promise<OutboxState> {
    const todo = `re-plan it (ohs sync, then ohs plan the corrected file), or ohs apply --release ${item.id} if it is meant`;
    if (!(await this.claims.hold(item, before, `${reason}; ${todo}`))) {
      const now = (await this.claims.state(item.id)) ?? item.state;
      this.line(item, now, 'taken by another apply: not checked by this one');
      return now;
    }
    this.options.logger?.warn({ outbox: item.id, reason }, 'write-back item held, not sent');
    this.line(item, 'held', `held, not sent: ${reason}; ${todo}`);
    return 'held';
  }

  private async send(item: OutboxItem): Promise<OutboxState> {
    const decl = ops[item.op as OpName];
    const work = this.workOf(item, null);
    if (decl.before !== undefined) {
      const read = decl.before;
      work.before = await this.work.add(() => read(this.ctx, work));
    }
    if (this.options.signal?.aborted === true) return item.state;
    // The op's check decides, told of a release this run was given (work.released).
    const reason = decl.hold?.(work);
    if (reason !== undefined) return this.hold(item, work.before, reason);
    if (!(await this.claims.claim(item, work.before, requestOf(item)))) {
      const now = (await this.claims.state(item.id)) ?? item.state;
      this.line(item, now, 'taken by another apply: not sent by this one');
      return now;
    }
    item.state = 'sending';
    try {
      const result = await this.work.add(() => decl.send(this.ctx, work));
      const check = result.check === undefined ? {} : { check: result.check };
      // Answered, but the service's state after it is not what this change alone makes: a person
      // must look (paid twice by another mirror or machine, or changed upstream meanwhile).
      const state = result.conflict === undefined ? 'applied' : 'conflict';
      // Sent and answered: the body is not needed any more, its personal data goes (finish).
      await this.claims.finish(item, state, {
        response: JSON.stringify(maskDeep(result.response)),
        result_id: result.resultId,
        verify: JSON.stringify({ before: maskDeep(evidenceOnly(work.before ?? {})), ...check }),
        ...(result.conflict === undefined ? {} : { error: `conflict: ${result.conflict}` }),
      });
      if (result.conflict !== undefined) {
        this.options.logger?.warn({ outbox: item.id, conflict: result.conflict }, 'write-back conflict');
        this.line(
          item,
          'conflict',
          `CONFLICT: ${result.conflict}; check it upstream, then ohs outbox resolve ${item.id} --applied`,
        );
        return 'conflict';
      }
      this.line(item, 'applied', result.note);
      return 'applied';
    } catch (err) {
      return this.failedSend(item, decl.idempotent(work.body), err);
    }
  }

  /** A send that threw: refused, never left, or unknown. Never "failed, safe to resend" for a create. */
  private async failedSend(item: OutboxItem, idempotent: boolean, err: unknown): Promise<OutboxState> {
    const error = errorOf(item, err);
    this.heard(item, err, error);
    const settle = async (state: Settled | 'queued', note: string) => {
      await this.claims.finish(item, state, { error });
      this.line(item, state, note);
      return state;
    };
    if (isRejection(err)) return settle('failed', error);
    // A 401 or a 429 to the end: the request was refused before anything was done.
    if (err instanceof UnauthorizedError) {
      await settle('queued', error);
      throw err;
    }
    if (err instanceof RateLimitedError) return settle('queued', error);
    // The transport throws NetworkError for a create only when the connection was never made.
    if (!idempotent && err instanceof NetworkError) return settle('queued', `not sent: ${error}`);
    if (idempotent && !(err instanceof OutcomeUnknownError))
      return settle('failed', `${error}; safe to retry`);
    await this.claims.unknown(item.id, error);
    item.unknown_at = this.now();
    item.unknown_run = this.claims.run;
    this.line(item, 'unknown', error);
    return 'unknown';
  }

  /**
   * Settles an unknown outcome from the service's evidence. `fresh`: this run produced it, so
   * whatever the reads say it is not sent again now.
   */
  private async reconcile(item: OutboxItem, fresh: boolean): Promise<OutboxState> {
    const decl = ops[item.op as OpName];
    const body = JSON.parse(item.body) as Json;
    if (decl.idempotent(body) && !fresh) {
      await this.claims.requeue(item.id, 'left unknown by a stopped apply; safe to send again');
      item.state = 'queued';
      return 'queued';
    }
    const readBack = decl.readBack;
    if (readBack === undefined) {
      this.line(
        item,
        'unknown',
        `${item.error ?? 'outcome unknown'}; the service cannot show it: decide with ohs outbox resolve ${item.id}`,
      );
      return 'unknown';
    }
    const settleMs = this.options.settleMs;
    const since = Date.parse(item.unknown_at ?? item.updated_at);
    const wait = since + settleMs - Date.now();
    if (wait > 0) await sleep(wait);
    if (this.options.signal?.aborted === true) return 'unknown';
    const work = this.workOf(item, beforeOf(item));
    const reading = await this.work.add(() => readBack(this.ctx, work));
    const read: EvidenceRead = { at: this.now(), run: this.claims.run, ...reading };
    if (reading.verdict === 'applied') {
      await this.claims.recordRead(item, read, {
        state: 'applied',
        set: { resolution: 'reconciled', result_id: reading.resultId ?? item.result_id },
      });
      this.reconciled++;
      this.line(item, 'applied', `reconciled: ${reading.note}`);
      return 'applied';
    }
    const reads = [...readsOf(item), read];
    const needed = this.options.agreeingReads;
    let agreeing = 0;
    for (let i = reads.length - 1; i >= 0 && reads[i]?.verdict === 'not-applied'; i--) agreeing++;
    const mayResend =
      reading.verdict === 'not-applied' && agreeing >= needed && item.unknown_run !== this.claims.run;
    if (mayResend) {
      await this.claims.recordRead(item, read, {
        state: 'queued',
        set: { resolution: 'reconciled-not-applied' },
      });
      this.reconciled++;
      this.line(item, 'queued', `not carried out (${agreeing} reads agree): sent again`);
      return 'queued';
    }
    await this.claims.recordRead(item, read, { state: 'unknown' });
    const note =
      reading.verdict === 'not-applied'
        ? `${reading.note}: read ${agreeing} of ${needed} times, read again by the next apply`
        : `${reading.note}: decide with ohs outbox resolve ${item.id}`;
    this.line(item, 'unknown', note);
    return 'unknown';
  }
}

/**
 * What is printed, logged and stored of a failed item: the error's code and status, then its
 * message (`INVALID_REQUEST 400: refused: status 400, service code X, names ssn; its text
 * withheld: POST /...`). The service's text is no part of it (src/util/refusal.ts); the message
 * passes the masking gate with the item's own body all the same (an error of ours may name a value).
 */
function errorOf(item: OutboxItem, err: unknown): string {
  const code =
    err instanceof ApiError ? `${err.code}${err.status === undefined ? '' : ` ${err.status}`}: ` : '';
  return maskText(`${code}${describeError(err)}`, { carried: JSON.parse(item.body) as Json });
}

function targetOf(item: OutboxItem): number | null {
  return item.target_id === null ? null : Number(item.target_id);
}

/** Method and path of the request (the body stays in its own column). */
function requestOf(item: OutboxItem): Json {
  const def = operations[ops[item.op as OpName].operation];
  return { method: def.method, path: def.path.replace('{id}', String(item.target_id ?? '')) };
}

/**
 * The end of an apply as a stable code: `APPLY_CONFLICT` when a change it sent left the service
 * in another state than the change alone makes (whatever else), `APPLY_HELD` when it held an
 * item, `APPLY_INCOMPLETE` when an item ended failed, unknown or still queued; nothing when done.
 * One line naming every count that is not done.
 */
export function throwUnlessDone(report: ApplyReport): void {
  const c = report.counts;
  const queued = c.queued + c.sent + c.sending;
  const parts = [
    c.conflict > 0
      ? `${c.conflict} conflict (sent, but the balance read back is not the balance before less the amount: paid twice or changed upstream; see ohs outbox --state conflict)`
      : '',
    c.held > 0
      ? `${c.held} held (not sent: see ohs outbox --state held; re-plan, or ohs apply --release ID)`
      : '',
    c.failed > 0 ? `${c.failed} failed` : '',
    c.unknown > 0 ? `${c.unknown} unknown` : '',
    queued > 0 ? `${queued} still queued` : '',
  ].filter((p) => p !== '');
  if (parts.length === 0) return;
  const line = `${parts.join(', ')}: see ohs outbox`;
  if (c.conflict > 0) throw new ApplyConflictError(line);
  if (c.held > 0) throw new ApplyHeldError(line);
  throw new ApplyIncompleteError(line);
}

export async function applyOutbox(
  client: OhsClient,
  mirror: Mirror,
  options: ApplyOptions,
): Promise<ApplyReport> {
  return new Applier(client, mirror, options).run();
}
