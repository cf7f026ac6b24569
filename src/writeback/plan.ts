import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { InputError } from '../errors.js';
import { readTable } from '../input/read-table.js';
import type { Mirror } from '../mirror/index.js';
import { requests } from '../schema/index.js';
import type { OpName } from './ops.js';
import { type ValidRow, validateRows } from './validate.js';

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

export interface PlanReport {
  file: string;
  lines: PlanLine[];
  counts: { new: number; queued: number; skipped: number };
}

export interface PlanOptions {
  op?: OpName;
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

function summaryOf(r: ValidRow): string {
  const b = r.body;
  const fields = Object.keys(b).join(', ');
  switch (r.op) {
    case 'payment':
      return `pay ${money(b.amountToPay as number)} on invoice ${String(b.InvoiceId)}`;
    case 'person.create':
      return `create person ${String(b.nameFirst)} ${String(b.nameLast)} in org ${String(b.OrgId)}`;
    case 'person.update':
      return `update person ${r.targetId}: ${fields}`;
    case 'person.delete':
      return `delete person ${r.targetId} permanently`;
    case 'applicant.update':
      return `update applicant ${r.targetId}: ${fields}`;
    case 'org.create':
      return `create org ${String(b.name)} (${String(b.zip)})`;
  }
}

function parseRaw(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  return JSON.parse(raw) as Record<string, unknown>;
}

export async function planFile(mirror: Mirror, file: string, options: PlanOptions = {}): Promise<PlanReport> {
  const rows = validateRows(await readTable(file), options.op);
  const db = mirror.db;
  const problems: string[] = [];
  const lines: PlanLine[] = [];
  const now = options.now ?? new Date().toISOString();
  /** Balance left per invoice: mirror balance, less queued payments, less rows above. */
  const left = new Map<string, number>();
  const occurrences = new Map<string, number>();
  const toInsert: { line: PlanLine; values: Parameters<typeof insertValues>[0] }[] = [];

  for (const r of rows) {
    const flags: string[] = [];
    const content = contentKey(r.op, r.targetId, r.body);
    const occurrence = (occurrences.get(content) ?? 0) + 1;
    occurrences.set(content, occurrence);
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
      const inv = await db
        .selectFrom('invoice')
        .select(['raw', 'deleted_at'])
        .where('id', '=', invoiceId)
        .executeTakeFirst();
      if (inv === undefined) {
        problems.push(
          `${file}:${r.row}: InvoiceId: invoice ${invoiceId} is not in the mirror (run ohs sync)`,
        );
        continue;
      }
      if (inv.deleted_at !== null) {
        problems.push(
          `${file}:${r.row}: InvoiceId: invoice ${invoiceId} was deleted upstream (${inv.deleted_at})`,
        );
        continue;
      }
      const raw = parseRaw(inv.raw) ?? {};
      if (typeof raw.dropInvoice === 'string' && raw.dropInvoice !== '') flags.push('invoice cancelled');
      let balance = left.get(invoiceId);
      if (balance === undefined) {
        balance = typeof raw.balance === 'number' ? raw.balance : 0;
        const queued = await db
          .selectFrom('outbox')
          .select(['body'])
          .where('op', '=', 'payment')
          .where('state', 'in', ['queued', 'sent', 'unknown'])
          .execute();
        for (const q of queued) {
          const b = JSON.parse(q.body) as { InvoiceId?: string; amountToPay?: number };
          if (b.InvoiceId === invoiceId) balance -= b.amountToPay ?? 0;
        }
      }
      const amount = r.body.amountToPay as number;
      if (amount - balance > 0.005) flags.push(`above balance (${money(balance)} left)`);
      left.set(invoiceId, Math.round((balance - amount) * 100) / 100);
    }

    if (r.op === 'person.update' || r.op === 'applicant.update' || r.op === 'person.delete') {
      const table = r.op === 'applicant.update' ? 'applicant' : 'person';
      const current = await db
        .selectFrom(table)
        .select(['raw', 'deleted_at'])
        .where('id', '=', r.targetId ?? 0)
        .executeTakeFirst();
      if (current === undefined) flags.push(`${table} not in the mirror`);
      else if (current.deleted_at !== null) flags.push(`${table} deleted upstream`);
      else if (r.op !== 'person.delete') {
        const raw = parseRaw(current.raw) ?? {};
        const spec = r.op === 'applicant.update' ? requests.ApplicantUpdate : requests.PersonUpdate;
        const same = Object.entries(r.body).every(([k, v]) => {
          const f = spec.fields[k as keyof typeof spec.fields] as { sensitive?: boolean } | undefined;
          if (f === undefined) return false; // a nested array: adds records
          if (f.sensitive === true && options.storeSensitive !== true) return false;
          return raw[k] === v;
        });
        if (same) {
          line.status = 'skipped';
          line.flags.push('no change: every field equals the mirror');
          lines.push(line);
          continue;
        }
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
    toInsert.push({
      line,
      values: { key, content, row: r, file, summary: line.summary, flags, now },
    });
  }

  if (problems.length > 0)
    throw new InputError(`${file}: ${problems.length} problem(s), nothing planned`, { detail: problems });

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
  const counts = { new: 0, queued: 0, skipped: 0 };
  for (const l of lines) counts[l.status]++;
  return { file, lines, counts };
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
