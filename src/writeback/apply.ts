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
import type { Mirror, OutboxState, OutboxTable } from '../mirror/index.js';
import { operations, type ResourceName } from '../schema/index.js';
import type { OpName } from './ops.js';

/**
 * `ohs apply`: sends the outbox. Items run through a pool as wide as the client's concurrency
 * (the client rate-limits every request); items of one lane run one after the other in outbox
 * order: a lane is an invoice for payments (never two payments in flight on one invoice), the
 * target for updates and deletes, the item itself for creates.
 *
 * States: queued -> sent -> applied | failed | unknown. `sent` is written before the request
 * leaves (for a payment, in the same statement as the invoice balance just read), so an apply
 * killed mid-request leaves `sent`, and the next apply reconciles it like `unknown` before
 * anything else in its lane; nothing is resent blindly.
 *
 * Reconciliation of an unknown outcome:
 * - payment: re-read the invoice; balance = before - amount: applied (resolution `reconciled`);
 *   balance = before: not applied, back to queued and resent in this run (at most `maxSends`
 *   sends per run); anything else: left unknown for a person (`ohs outbox resolve`), and the
 *   invoice's later payments wait, since a balance can no longer tell them apart.
 * - person.create: if the body had user[] with an email, a user with that email linked to a
 *   person and not there before the send: applied (result_id = its PersonId); else unknown.
 * - org.create: there is no Org read; left unknown.
 * - person.update / applicant.update / person.delete left `sent`: resent (PATCH and DELETE are
 *   safe to repeat; a DELETE finding the person gone counts as done).
 */
export interface ApplyOptions {
  concurrency: number;
  logger?: Logger;
  /** person.delete items: 'all' queued ones (confirmed by the caller), or only those confirmed before. */
  deletes: 'all' | 'confirmed';
  /** Sends of one payment per run when the service shows it was not carried out. @default 3 */
  maxSends?: number;
  signal?: AbortSignal;
  now?: () => string;
}

export interface ApplyLine {
  id: number;
  op: OpName;
  summary: string;
  state: OutboxState;
  note: string;
}

export interface ApplyReport {
  lines: ApplyLine[];
  counts: Record<OutboxState, number>;
  /** Unknown outcomes settled by reading the service back. */
  reconciled: number;
  /** person.delete items not sent (not confirmed). */
  deletesWaiting: number;
}

type Item = OutboxTable & { id: number };
type Json = Record<string, unknown>;

const round2 = (n: number) => Math.round(n * 100) / 100;
const near = (a: number, b: number) => Math.abs(a - b) < 0.005;

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
  private reconciled = 0;

  constructor(
    private readonly client: OhsClient,
    private readonly mirror: Mirror,
    private readonly options: ApplyOptions,
  ) {
    this.now = options.now ?? (() => new Date().toISOString());
  }

  async run(): Promise<ApplyReport> {
    const db = this.mirror.db;
    const items = (await db
      .selectFrom('outbox')
      .selectAll()
      .where('state', 'in', ['queued', 'sent', 'unknown'])
      .orderBy('id')
      .execute()) as Item[];
    let deletesWaiting = 0;
    const lanes = new Map<string, Item[]>();
    for (const item of items) {
      if (
        item.op === 'person.delete' &&
        item.state === 'queued' &&
        this.options.deletes === 'confirmed' &&
        item.confirmed_at === null
      ) {
        deletesWaiting++;
        continue;
      }
      const lane = laneOf(item);
      const list = lanes.get(lane) ?? [];
      list.push(item);
      lanes.set(lane, list);
    }
    const pool = new PQueue({ concurrency: Math.max(1, this.options.concurrency) });
    await pool.addAll([...lanes.values()].map((lane) => () => this.runLane(lane)));
    const counts: Record<OutboxState, number> = { queued: 0, sent: 0, applied: 0, failed: 0, unknown: 0 };
    const lines = [...this.lines.values()].sort((a, b) => a.id - b.id);
    for (const l of lines) counts[l.state]++;
    return { lines, counts, reconciled: this.reconciled, deletesWaiting };
  }

  private async runLane(lane: Item[]): Promise<void> {
    let blockedBy: number | undefined;
    for (const item of lane) {
      if (this.options.signal?.aborted) return;
      if (blockedBy !== undefined) {
        this.line(item, item.state, `waits: payment #${blockedBy} on this invoice has an unknown outcome`);
        continue;
      }
      let state: OutboxState;
      try {
        state = await this.handle(item);
      } catch (err) {
        if (err instanceof UnauthorizedError) throw err;
        // A read needed to send or to reconcile failed after its retries: the item stays as it was.
        this.options.logger?.warn(
          { outbox: item.id, err: describeError(err) },
          'write-back item not settled',
        );
        await this.update(item.id, { error: describeError(err) });
        state = item.state;
        this.line(item, state, describeError(err));
      }
      if (item.op === 'payment' && state !== 'applied' && state !== 'failed') blockedBy = item.id;
    }
  }

  private async handle(item: Item): Promise<OutboxState> {
    let state = item.state;
    if (state === 'sent' || state === 'unknown') state = await this.reconcile(item);
    const max = this.options.maxSends ?? 3;
    for (let n = 0; state === 'queued' && n < max; n++) {
      if (this.options.signal?.aborted) break;
      state = await this.send(item);
    }
    return state;
  }

  private line(item: Item, state: OutboxState, note: string): void {
    this.lines.set(item.id, { id: item.id, op: item.op as OpName, summary: item.summary, state, note });
  }

  private async update(id: number, set: Partial<Omit<OutboxTable, 'id'>>): Promise<void> {
    await this.mirror.db
      .updateTable('outbox')
      .set({ ...set, updated_at: this.now() })
      .where('id', '=', id)
      .execute();
  }

  private async settle(
    item: Item,
    state: OutboxState,
    note: string,
    set: Partial<Omit<OutboxTable, 'id'>> = {},
  ): Promise<OutboxState> {
    await this.update(item.id, { ...set, state });
    item.state = state;
    this.line(item, state, note);
    return state;
  }

  private store(resource: ResourceName, records: unknown): void {
    if (!Array.isArray(records)) return;
    const rows = records.filter((r): r is Json => typeof r === 'object' && r !== null && 'id' in r);
    if (rows.length === 0) return;
    const now = this.now();
    this.mirror.adapter.transaction(() => this.mirror.adapter.upsert(resource, rows, { now }));
  }

  // Sending.

  private async send(item: Item): Promise<OutboxState> {
    const body = JSON.parse(item.body) as Json;
    const target = Number(item.target_id);
    const request = (
      op:
        | 'createPayment'
        | 'createPerson'
        | 'createOrg'
        | 'updatePerson'
        | 'updateApplicant'
        | 'deletePerson',
    ) =>
      JSON.stringify({
        method: operations[op].method,
        path: operations[op].path.replace('{id}', String(target)),
        ...(op === 'deletePerson' ? {} : { body }),
      });
    const sent = { attempts: item.attempts + 1, error: null, state: 'sent' as const };
    item.attempts += 1;
    try {
      switch (item.op as OpName) {
        case 'payment': {
          const invoiceId = String(body.InvoiceId);
          const before = await this.client.getInvoice(invoiceId);
          this.store('Invoice', [before]);
          const balance = Number(before.balance ?? 0);
          // One statement: the state and the balance it will be reconciled against.
          await this.update(item.id, {
            ...sent,
            balance_before: balance,
            request: request('createPayment'),
          });
          item.state = 'sent';
          item.balance_before = balance;
          const rec = await this.client.createPayment(body);
          this.store('Payment', [rec]);
          const done = {
            response: JSON.stringify(rec),
            result_id: rec.id === undefined ? null : String(rec.id),
          };
          const after = await this.reread(() => this.client.getInvoice(invoiceId));
          if (after === undefined)
            return this.settle(item, 'applied', 'applied; the invoice could not be re-read', {
              ...done,
              verify: JSON.stringify({ reread: 'failed' }),
            });
          this.store('Invoice', [after]);
          const verify = this.paymentCheck(balance, Number(body.amountToPay), Number(after.balance ?? 0));
          return this.settle(item, 'applied', `applied; ${verify.note}`, {
            ...done,
            verify: JSON.stringify(verify),
          });
        }
        case 'person.create': {
          const emails = userEmails(body);
          let usersBefore: number[] = [];
          if (emails.length > 0) usersBefore = (await this.usersWithEmail(emails)).map((u) => Number(u.id));
          await this.update(item.id, {
            ...sent,
            request: request('createPerson'),
            verify: JSON.stringify({ usersBefore }),
          });
          item.state = 'sent';
          item.verify = JSON.stringify({ usersBefore });
          const rec = await this.client.createPerson(body);
          this.storePerson(rec);
          return this.settle(item, 'applied', `created person ${String(rec.id)}`, {
            response: JSON.stringify(rec),
            result_id: String(rec.id),
          });
        }
        case 'org.create': {
          await this.update(item.id, { ...sent, request: request('createOrg') });
          item.state = 'sent';
          const rec = await this.client.createOrg(body);
          this.storeOrg(rec, body);
          return this.settle(item, 'applied', `created org ${String(rec.id)}`, {
            response: JSON.stringify(rec),
            result_id: String(rec.id),
          });
        }
        case 'person.update': {
          await this.update(item.id, { ...sent, request: request('updatePerson') });
          item.state = 'sent';
          const rec = await this.client.updatePerson(target, body);
          this.storePerson(rec);
          const verify = fieldCheck(body, rec);
          return this.settle(
            item,
            'applied',
            verify.ok
              ? 'updated; the answer shows every field'
              : `updated; differs: ${verify.differs.join(', ')}`,
            {
              response: JSON.stringify(rec),
              result_id: String(target),
              verify: JSON.stringify(verify),
            },
          );
        }
        case 'applicant.update': {
          await this.update(item.id, { ...sent, request: request('updateApplicant') });
          item.state = 'sent';
          const rec = await this.client.updateApplicant(target, body);
          const reread = await this.reread(() => this.client.getApplicant(target, 'all'));
          if (reread === undefined)
            return this.settle(item, 'applied', 'updated; the applicant could not be re-read', {
              response: JSON.stringify(rec),
              result_id: String(target),
              verify: JSON.stringify({ reread: 'failed' }),
            });
          this.store('Applicant', [reread]);
          const verify = fieldCheck(body, reread);
          return this.settle(
            item,
            'applied',
            verify.ok
              ? 'updated; re-read shows every field'
              : `updated; re-read differs: ${verify.differs.join(', ')}`,
            {
              response: JSON.stringify(rec),
              result_id: String(target),
              verify: JSON.stringify(verify),
            },
          );
        }
        case 'person.delete': {
          await this.update(item.id, { ...sent, request: request('deletePerson') });
          item.state = 'sent';
          const rec = await this.client.deletePerson(target);
          this.softDeletePerson(target);
          return this.settle(item, 'applied', `deleted person ${target}`, {
            response: rec === undefined ? null : JSON.stringify(rec),
            result_id: String(target),
            verify: JSON.stringify({ deleted: true }),
          });
        }
      }
    } catch (err) {
      if (err instanceof OutcomeUnknownError) {
        await this.settle(item, 'unknown', describeError(err), { error: describeError(err) });
        return this.reconcile(item);
      }
      if (isRejection(err))
        return this.settle(item, 'failed', describeError(err), { error: describeError(err) });
      if (item.state === 'sent' && ['person.update', 'applicant.update', 'person.delete'].includes(item.op)) {
        // PATCH / DELETE failed after the client's retries.
        return this.settle(item, 'failed', describeError(err), { error: describeError(err) });
      }
      if (
        item.state === 'sent' &&
        (err instanceof NetworkError || err instanceof RateLimitedError) &&
        item.op !== 'payment'
      ) {
        // A create never left (connection refused every time, or 429 to the end).
        return this.settle(item, 'queued', describeError(err), { error: describeError(err) });
      }
      if (item.state === 'sent') {
        // The POST did not get an answer we can read but was not reported unknown: reconcile.
        await this.settle(item, 'unknown', describeError(err), { error: describeError(err) });
        return this.reconcile(item);
      }
      throw err;
    }
    return item.state;
  }

  /** A read after a change that succeeded: its failure does not undo the change. */
  private async reread<T>(read: () => Promise<T>): Promise<T | undefined> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof UnauthorizedError) throw err;
      this.options.logger?.warn({ err: describeError(err) }, 're-read after a write failed');
      return undefined;
    }
  }

  private paymentCheck(before: number, amount: number, after: number) {
    const expected = round2(before - amount);
    const dropped = near(after, expected);
    return {
      balanceBefore: before,
      amount,
      balanceAfter: after,
      expected,
      dropped,
      note: dropped ? 'balance dropped by the amount' : `balance ${after}, expected ${expected}`,
    };
  }

  // Reconciliation.

  private async reconcile(item: Item): Promise<OutboxState> {
    const body = JSON.parse(item.body) as Json;
    switch (item.op as OpName) {
      case 'payment': {
        const invoiceId = String(body.InvoiceId);
        const inv = await this.client.getInvoice(invoiceId);
        this.store('Invoice', [inv]);
        const after = Number(inv.balance ?? 0);
        const before = item.balance_before;
        if (before === null) {
          return this.settle(
            item,
            'unknown',
            'no balance recorded before the send: decide with ohs outbox resolve',
          );
        }
        const amount = Number(body.amountToPay);
        const verify = { ...this.paymentCheck(before, amount, after), reconciled: true };
        if (verify.dropped) {
          this.reconciled++;
          return this.settle(item, 'applied', 'reconciled: the invoice balance dropped by the amount', {
            resolution: 'reconciled',
            verify: JSON.stringify(verify),
          });
        }
        if (near(after, before)) {
          this.reconciled++;
          return this.settle(
            item,
            'queued',
            'reconciled: not carried out (balance unchanged), to be resent',
            {
              verify: JSON.stringify(verify),
            },
          );
        }
        return this.settle(
          item,
          'unknown',
          `balance ${after} is neither ${before} (not paid) nor ${verify.expected} (paid): decide with ohs outbox resolve ${item.id}`,
          { verify: JSON.stringify(verify) },
        );
      }
      case 'person.create': {
        const emails = userEmails(body);
        if (emails.length === 0)
          return this.settle(
            item,
            'unknown',
            `no user email to look for: decide with ohs outbox resolve ${item.id}`,
          );
        const before = new Set(
          ((JSON.parse(item.verify ?? '{}') as { usersBefore?: number[] }).usersBefore ?? []).map(Number),
        );
        const found = (await this.usersWithEmail(emails)).filter(
          (u) => !before.has(Number(u.id)) && typeof u.PersonId === 'number',
        );
        const first = found[0];
        if (first === undefined)
          return this.settle(
            item,
            'unknown',
            `no new user with ${emails.join(', ')}: decide with ohs outbox resolve ${item.id}`,
          );
        this.reconciled++;
        this.store('User', found);
        return this.settle(
          item,
          'applied',
          `reconciled: user ${String(first.id)} links person ${String(first.PersonId)}`,
          {
            resolution: 'reconciled',
            result_id: String(first.PersonId),
            verify: JSON.stringify({ usersBefore: [...before], found: found.map((u) => u.id) }),
          },
        );
      }
      case 'org.create':
        return this.settle(
          item,
          'unknown',
          `the service has no Org read: check it and decide with ohs outbox resolve ${item.id}`,
        );
      default:
        // PATCH and DELETE are safe to send again.
        return this.settle(item, 'queued', 'left sent by an earlier apply: sent again');
    }
  }

  private async usersWithEmail(emails: string[]): Promise<Json[]> {
    const wanted = new Set(emails.map((e) => e.toLowerCase()));
    const { records } = await this.client.listUser();
    return records.filter((u) => typeof u.email === 'string' && wanted.has(u.email.toLowerCase())) as Json[];
  }

  // The mirror.

  private storePerson(rec: Json): void {
    this.store('Person', [rec]);
    this.store('Staff', rec.staff);
    this.store('Applicant', rec.applicant);
    this.store('User', rec.user);
  }

  private storeOrg(rec: Json, body: Json): void {
    this.store('Org', [rec]);
    this.store('HsVendor', rec.hsVendor);
    const drug = body.rpMinDrug;
    const alc = body.rpMinAlc;
    const dot = body.rpDotRegistrationNumber;
    if (typeof rec.id !== 'number' || (drug === undefined && alc === undefined && dot === undefined)) return;
    const values = {
      org_id: rec.id,
      program: typeof dot === 'string' && dot !== '' ? 'DOT' : 'NON_DOT',
      agency: null,
      rp_min_drug: typeof drug === 'number' ? drug : null,
      rp_min_alc: typeof alc === 'number' ? alc : null,
      dot_registration_number: typeof dot === 'string' ? dot : null,
      parent_org_id: typeof body['Parent~OrgId'] === 'number' ? body['Parent~OrgId'] : null,
      source: 'writeback',
      updated_at: this.now(),
    };
    this.mirror.sqlite
      .prepare(
        `INSERT OR REPLACE INTO org_policy (org_id, program, agency, rp_min_drug, rp_min_alc, dot_registration_number, parent_org_id, source, updated_at)
         VALUES (@org_id, @program, @agency, @rp_min_drug, @rp_min_alc, @dot_registration_number, @parent_org_id, @source, @updated_at)`,
      )
      .run(values);
  }

  private softDeletePerson(id: number): void {
    const now = this.now();
    const s = this.mirror.sqlite;
    this.mirror.adapter.transaction(() => {
      s.prepare('UPDATE person SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(now, id);
      s.prepare('UPDATE applicant SET deleted_at = ? WHERE PersonId = ? AND deleted_at IS NULL').run(now, id);
      s.prepare('UPDATE staff SET deleted_at = ? WHERE PersonId = ? AND deleted_at IS NULL').run(now, id);
    });
  }
}

function laneOf(item: Item): string {
  if (item.op === 'payment') return `invoice:${String((JSON.parse(item.body) as Json).InvoiceId)}`;
  if (item.op === 'applicant.update') return `applicant:${item.target_id}`;
  if (item.op === 'person.update' || item.op === 'person.delete') return `person:${item.target_id}`;
  return `item:${item.id}`;
}

function userEmails(body: Json): string[] {
  const users = Array.isArray(body.user) ? (body.user as Json[]) : [];
  return users.map((u) => u.email).filter((e): e is string => typeof e === 'string' && e !== '');
}

/** Whether the record shows every scalar field of the body (nested arrays add records: not compared). */
function fieldCheck(body: Json, rec: Json): { ok: boolean; differs: string[] } {
  const differs = Object.entries(body)
    .filter(([, v]) => !Array.isArray(v))
    .filter(([k, v]) => rec[k] !== v)
    .map(([k]) => k);
  return { ok: differs.length === 0, differs };
}

export async function applyOutbox(
  client: OhsClient,
  mirror: Mirror,
  options: ApplyOptions,
): Promise<ApplyReport> {
  return new Applier(client, mirror, options).run();
}
