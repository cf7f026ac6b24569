import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { InputLimits } from '../input/read-table.js';
import { readTable } from '../input/read-table.js';
import type { Mirror } from '../mirror/index.js';
import { requests } from '../schema/index.js';
import { ConfirmationNeededError } from './errors.js';
import { type OpName, ops } from './ops/index.js';
import { checkRows, parseAmount, throwProblems, type ValidRow } from './validate.js';

/**
 * `ohs plan FILE`: validate, diff against the mirror, queue in the outbox.
 *
 * Idempotency key: sha256 of [op, target id, canonical JSON body (keys sorted), file name
 * (without its folder), occurrence], where occurrence counts the rows of this file with the same
 * op, target and body (1 for the first, 2 for a second identical row...). Planning the same file
 * again gives the same keys, so nothing new is queued, even after rows were inserted, removed or
 * fixed elsewhere in it; two identical payments on different rows of one file are two items; the
 * same payment in another file (next month's) is another item, and the plan flags it as
 * "same change as outbox #N (file)" so a renamed copy of an old file is noticed.
 *
 * Payments are checked against the mirror's invoice: unknown to the mirror or soft-deleted there
 * is an error (the row is refused, and with it the file); above the balance left (the mirror's
 * balance less the payments already queued for it and the rows above) or on a cancelled invoice
 * (dropInvoice) is a flag, and the payment is queued. An update whose every field equals the
 * mirror's current value is skipped and said so (only fields the mirror can compare: nested
 * arrays always add records, and masked sensitive fields cannot be compared).
 *
 * Every check runs on every row in one pass: a row with a bad amount and an unknown invoice
 * gets both named. A payment above `centsRatio` times its invoice's balance is refused: it looks
 * like cents where the interface means dollars. Exact duplicates of an earlier row of the file
 * are flagged. Above `confirmRows` new items or `confirmAmount` dollars of payments, the plan
 * asks (`confirm`) and queues nothing without a yes, stating the total.
 */
export interface PlanLine {
  row: number;
  op: OpName;
  target: string;
  summary: string;
  flags: string[];
  /** new: queued now; queued: already in the outbox (outbox id); skipped: nothing to change. */
  status: 'new' | 'queued' | 'skipped';
  outboxId?: number;
}

export interface PlanTotals {
  /** New items about to be queued. */
  rows: number;
  /** Dollars of the new payments among them. */
  amount: number;
}

export interface PlanReport {
  file: string;
  totals: PlanTotals;
  lines: PlanLine[];
  counts: { new: number; queued: number; skipped: number };
}

export interface PlanOptions {
  op?: OpName;
  /** Bounds of the input file (config `input`). */
  limits?: InputLimits;
  /** A payment above this many times its invoice's balance is refused (looks like cents); 0: off. @default 20 */
  centsRatio?: number;
  /** Above this many new items, or this total of payments, `confirm` must say yes. */
  confirmRows?: number;
  confirmAmount?: number;
  /** Asked above the thresholds; absent: the plan is refused there (ConfirmationNeededError). */
  confirm?: (what: PlanTotals) => Promise<boolean>;
  /** The mirror keeps sensitive fields as received (mirror.storeSensitive): they can be compared. */
  storeSensitive?: boolean;
  now?: string;
}

export function canonicalJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(sort(value));
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function contentKey(op: OpName, target: number | null, body: Record<string, unknown>): string {
  return sha256(JSON.stringify([op, target === null ? '' : String(target), canonicalJson(body)]));
}

export function idempotencyKey(content: string, file: string, occurrence: number): string {
  return sha256(JSON.stringify([content, basename(file), occurrence]));
}

const money = (n: number) => (Math.round(n * 100) / 100).toFixed(2);
const moneyText = (n: number) => money(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

function summaryOf(r: ValidRow): string {
  return ops[r.op].describe(r.body, r.targetId);
}

function parseRaw(raw: string | null | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === null) return undefined;
  return JSON.parse(raw) as Record<string, unknown>;
}

/** Balance left per invoice: the mirror's, less the payments already in the outbox and not settled. */
async function pendingPayments(mirror: Mirror): Promise<Map<string, number>> {
  const rows = await mirror.db
    .selectFrom('outbox')
    .select(['body'])
    .where('op', '=', 'payment')
    .where('state', 'in', ['queued', 'sending', 'sent', 'unknown'])
    .execute();
  const out = new Map<string, number>();
  for (const q of rows) {
    const b = JSON.parse(q.body) as { InvoiceId?: string; amountToPay?: number };
    const id = String(b.InvoiceId);
    out.set(id, (out.get(id) ?? 0) + (b.amountToPay ?? 0));
  }
  return out;
}

interface InvoiceSeen {
  balance: number;
  cancelled: boolean;
  deletedAt: string | null;
}

type InvoiceLookup = (id: string) => Promise<InvoiceSeen | undefined>;

/** The mirror's invoices as a plan reads them, each read once. */
function invoiceLookup(db: Mirror['db']): InvoiceLookup {
  const invoices = new Map<string, InvoiceSeen | undefined>();
  const invoice = async (id: string) => {
    if (!invoices.has(id)) {
      const inv = await db
        .selectFrom('invoice')
        .select(['raw', 'deleted_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      const raw = parseRaw(inv?.raw ?? undefined) ?? {};
      invoices.set(
        id,
        inv === undefined
          ? undefined
          : {
              balance: typeof raw.balance === 'number' ? raw.balance : 0,
              cancelled: typeof raw.dropInvoice === 'string' && raw.dropInvoice !== '',
              deletedAt: inv.deleted_at,
            },
      );
    }
    return invoices.get(id);
  };

  return invoice;
}

/**
 * Checks against the mirror, on every payment row, valid or not, so one pass names them all:
 * the invoice is mirrored and not deleted, and the amount does not look like cents.
 */
async function mirrorProblems(
  rows: ReturnType<typeof checkRows>['rows'],
  file: string,
  invoice: InvoiceLookup,
  ratio: number,
  problems: string[],
): Promise<void> {
  for (const r of rows) {
    if (r.op !== 'payment' || r.values.InvoiceId === null || r.values.InvoiceId === undefined) continue;
    const id = String(r.values.InvoiceId);
    const inv = await invoice(id);
    if (inv === undefined)
      problems.push(`${file}:${r.row}: InvoiceId: invoice ${id} is not in the mirror (run ohs sync)`);
    else if (inv.deletedAt !== null)
      problems.push(`${file}:${r.row}: InvoiceId: invoice ${id} was deleted upstream (${inv.deletedAt})`);
    const amount = parseAmount(r.values.amountToPay);
    if (
      inv !== undefined &&
      typeof amount === 'number' &&
      ratio > 0 &&
      inv.balance > 0 &&
      amount > ratio * inv.balance
    )
      problems.push(
        `${file}:${r.row}: amountToPay: ${moneyText(amount)} is over ${ratio} times the invoice's balance of ${moneyText(inv.balance)}: amounts are dollars, not cents (${moneyText(amount / 100)}?)`,
      );
  }
}

/** Queues the new items in one transaction, noting each one's outbox id on its plan line. */
async function insertItems(
  db: Mirror['db'],
  toInsert: { line: PlanLine; values: Parameters<typeof insertValues>[0] }[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const item of toInsert) {
      const { id } = await trx
        .insertInto('outbox')
        .values(insertValues(item.values))
        .returning('id')
        .executeTakeFirstOrThrow();
      item.line.outboxId = id;
    }
  });
}

export async function planFile(mirror: Mirror, file: string, options: PlanOptions = {}): Promise<PlanReport> {
  const { valid, problems, rows } = checkRows(await readTable(file, options.limits), options.op);
  const db = mirror.db;
  const lines: PlanLine[] = [];
  const now = options.now ?? new Date().toISOString();
  const pending = await pendingPayments(mirror);
  const invoice = invoiceLookup(db);
  await mirrorProblems(rows, file, invoice, options.centsRatio ?? 20, problems);

  /** Balance left per invoice: mirror balance, less queued payments, less rows above. */
  const left = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const firstRow = new Map<string, number>();
  const toInsert: { line: PlanLine; values: Parameters<typeof insertValues>[0] }[] = [];
  const totals: PlanTotals = { rows: 0, amount: 0 };

  for (const r of valid) {
    const flags: string[] = [];
    const content = contentKey(r.op, r.targetId, r.body);
    const occurrence = (occurrences.get(content) ?? 0) + 1;
    occurrences.set(content, occurrence);
    if (occurrence === 1) firstRow.set(content, r.row);
    else flags.push(`exact duplicate of row ${firstRow.get(content)}`);
    const key = idempotencyKey(content, file, occurrence);
    const line: PlanLine = {
      row: r.row,
      op: r.op,
      target: r.targetId === null ? '' : String(r.targetId),
      summary: summaryOf(r),
      flags,
      status: 'new',
    };

    if (r.op === 'payment') {
      const invoiceId = String(r.body.InvoiceId);
      line.target = `invoice ${invoiceId}`;
      const inv = await invoice(invoiceId);
      if (inv === undefined || inv.deletedAt !== null) continue; // named above
      if (inv.cancelled) flags.push('invoice cancelled');
      const balance = left.get(invoiceId) ?? inv.balance - (pending.get(invoiceId) ?? 0);
      const amount = r.body.amountToPay as number;
      if (amount - balance > 0.005) flags.push(`above balance (${money(balance)} left)`);
      left.set(invoiceId, Math.round((balance - amount) * 100) / 100);
    }

    if (r.op === 'person.update' || r.op === 'applicant.update' || r.op === 'person.delete') {
      const skipped = await unchanged(mirror, r, options.storeSensitive === true, flags);
      if (skipped) {
        line.status = 'skipped';
        line.flags.push('no change: every field equals the mirror');
        lines.push(line);
        continue;
      }
    }

    const existing = await db
      .selectFrom('outbox')
      .select(['id'])
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (existing !== undefined) {
      line.status = 'queued';
      line.outboxId = existing.id;
      lines.push(line);
      continue;
    }
    const twin = await db
      .selectFrom('outbox')
      .select(['id', 'file'])
      .where('content_key', '=', content)
      .orderBy('id')
      .executeTakeFirst();
    if (twin !== undefined && basename(twin.file) !== basename(file))
      flags.push(`same change as outbox #${twin.id} (${basename(twin.file)})`);
    lines.push(line);
    totals.rows++;
    if (r.op === 'payment') totals.amount += r.body.amountToPay as number;
    toInsert.push({ line, values: { key, content, row: r, file, summary: line.summary, flags, now } });
  }

  throwProblems(file, problems);
  totals.amount = Math.round(totals.amount * 100) / 100;
  const big =
    totals.rows > (options.confirmRows ?? Number.POSITIVE_INFINITY) ||
    totals.amount > (options.confirmAmount ?? Number.POSITIVE_INFINITY);
  if (big && !(options.confirm !== undefined && (await options.confirm(totals))))
    throw new ConfirmationNeededError(
      `${file}: ${totals.rows} new item(s), payments totalling $${moneyText(totals.amount)}: above the confirmation threshold (writeback.confirmRows ${options.confirmRows}, writeback.confirmAmount ${options.confirmAmount}); pass --yes to queue them, nothing was planned`,
    );

  await insertItems(db, toInsert);
  const counts = { new: 0, queued: 0, skipped: 0 };
  for (const l of lines) counts[l.status]++;
  return { file, totals, lines, counts };
}

/** An update whose every field equals the mirror's current value changes nothing. */
async function unchanged(
  mirror: Mirror,
  r: ValidRow,
  storeSensitive: boolean,
  flags: string[],
): Promise<boolean> {
  const table = r.op === 'applicant.update' ? 'applicant' : 'person';
  const current = await mirror.db
    .selectFrom(table)
    .select(['raw', 'deleted_at'])
    .where('id', '=', r.targetId ?? 0)
    .executeTakeFirst();
  if (current === undefined) flags.push(`${table} not in the mirror`);
  else if (current.deleted_at !== null) flags.push(`${table} deleted upstream`);
  if (current === undefined || current.deleted_at !== null || r.op === 'person.delete') return false;
  const raw = parseRaw(current.raw ?? undefined) ?? {};
  const spec = r.op === 'applicant.update' ? requests.ApplicantUpdate : requests.PersonUpdate;
  return Object.entries(r.body).every(([k, v]) => {
    const f = spec.fields[k as keyof typeof spec.fields] as { sensitive?: boolean } | undefined;
    if (f === undefined) return false; // a nested array: adds records
    if (f.sensitive === true && !storeSensitive) return false;
    return raw[k] === v;
  });
}

function insertValues(v: {
  key: string;
  content: string;
  row: ValidRow;
  file: string;
  summary: string;
  flags: string[];
  now: string;
}) {
  return {
    idempotency_key: v.key,
    content_key: v.content,
    op: v.row.op,
    target_id: v.row.targetId === null ? null : String(v.row.targetId),
    body: JSON.stringify(v.row.body),
    summary: v.summary,
    flags: JSON.stringify(v.flags),
    state: 'queued' as const,
    attempts: 0,
    request: null,
    response: null,
    error: null,
    balance_before: null,
    verify: null,
    resolution: null,
    result_id: null,
    confirmed_at: null,
    file: v.file,
    row: v.row.row,
    created_at: v.now,
    updated_at: v.now,
  };
}
