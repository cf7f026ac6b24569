import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import type { InputLimits } from '../input/read-table.js';
import { readTable } from '../input/read-table.js';
import type { Mirror } from '../mirror/index.js';
import { ConfirmationNeededError } from './errors.js';
import { stateEntered } from './events.js';
import { type Json, moneyText, type OpName, ops, type PlanChecks, type PlanContext } from './ops/index.js';
import { checkRows, throwProblems, type ValidRow } from './validate.js';

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
 * The checks against the mirror are each operation's own (its declaration's `plan`, under ops/):
 * payments are checked against the mirror's invoice: unknown to the mirror or soft-deleted there
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

/** Resolved options: the configured values (config `input`, `writeback`, `mirror`) are required. */
export interface PlanOptions {
  op?: OpName;
  /** The workbook's sheet to read (`--sheet`, matched exactly); else its only visible sheet. */
  sheet?: string;
  /** Bounds of the input file (config `input`). */
  limits: InputLimits;
  /** A payment above this many times its invoice's balance is refused (looks like cents); 0: off (writeback.centsRatio). */
  centsRatio: number;
  /** Above this many new items, or this total of payments, `confirm` must say yes (writeback.confirmRows / confirmAmount). */
  confirmRows: number;
  confirmAmount: number;
  /** Asked above the thresholds; absent: the plan is refused there (ConfirmationNeededError). */
  confirm?: (what: PlanTotals) => Promise<boolean>;
  /** The mirror keeps sensitive fields as received (mirror.storeSensitive): they can be compared. */
  storeSensitive: boolean;
  /** Queue payments above their invoice's balance (flagged) instead of refusing the file (`--allow-overpayment`). */
  allowOverpayment?: boolean;
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

function summaryOf(r: ValidRow): string {
  return ops[r.op].describe(r.body, r.targetId);
}

/**
 * Each op's checks against the mirror (its declaration's `plan`), made once per plan; the
 * problems of every row, valid or not, are collected in one pass so they are all named.
 */
async function planChecks(
  rows: ReturnType<typeof checkRows>['rows'],
  file: string,
  ctx: PlanContext,
  problems: string[],
): Promise<(op: OpName) => PlanChecks | undefined> {
  const made = new Map<OpName, PlanChecks | undefined>();
  const checksOf = (op: OpName) => {
    if (!made.has(op)) made.set(op, ops[op].plan?.(ctx));
    return made.get(op);
  };
  for (const r of rows) {
    const lines = (await checksOf(r.op)?.problems?.(r)) ?? [];
    for (const line of lines) problems.push(`${file}:${r.row}: ${line}`);
  }
  return checksOf;
}

/**
 * Queues the new items in one transaction, noting each one's outbox id on its plan line, and
 * queues again the held items planned again (only while still held: an item released or
 * abandoned meanwhile is left as it is).
 */
async function insertItems(
  db: Mirror['db'],
  toInsert: { line: PlanLine; values: Parameters<typeof insertValues>[0] }[],
  rearm: { id: number; values: Parameters<typeof insertValues>[0] }[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const item of rearm) {
      const { idempotency_key: _k, created_at: _c, ...v } = insertValues(item.values);
      const r = await trx
        .updateTable('outbox')
        .set({ ...v, hold_reason: null, released_at: null, redacted_at: null })
        .where('id', '=', item.id)
        .where('state', '=', 'held')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 1) await stateEntered(trx, [item.id], 'queued', v.updated_at);
    }
    for (const item of toInsert) {
      const { id } = await trx
        .insertInto('outbox')
        .values(insertValues(item.values))
        .returning('id')
        .executeTakeFirstOrThrow();
      item.line.outboxId = id;
      await stateEntered(trx, [id], 'queued', item.values.now);
    }
  });
}

export async function planFile(mirror: Mirror, file: string, options: PlanOptions): Promise<PlanReport> {
  const { valid, problems, rows } = checkRows(
    await readTable(file, options.limits, options.sheet === undefined ? {} : { sheet: options.sheet }),
    options.op,
  );
  const db = mirror.db;
  const lines: PlanLine[] = [];
  const now = options.now ?? new Date().toISOString();
  const ctx = {
    db,
    centsRatio: options.centsRatio,
    storeSensitive: options.storeSensitive,
    allowOverpayment: options.allowOverpayment === true,
  };
  const checksOf = await planChecks(rows, file, ctx, problems);

  const occurrences = new Map<string, number>();
  const firstRow = new Map<string, number>();
  const toInsert: { line: PlanLine; values: Parameters<typeof insertValues>[0] }[] = [];
  const rearm: { id: number; values: Parameters<typeof insertValues>[0] }[] = [];
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

    const verdict = (await checksOf(r.op)?.check(r)) ?? { flags: [] };
    if (verdict.outcome === 'drop') continue; // refused: its problem is named above
    for (const p of verdict.problems ?? []) problems.push(`${file}:${r.row}: ${p}`);
    if (verdict.target !== undefined) line.target = verdict.target;
    flags.push(...verdict.flags);
    if (verdict.outcome === 'skip') {
      line.status = 'skipped';
      line.flags.push('no change: every field equals the mirror');
      lines.push(line);
      continue;
    }

    const existing = await db
      .selectFrom('outbox')
      .select(['id', 'state'])
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    if (existing !== undefined && existing.state !== 'held') {
      line.status = 'queued';
      line.outboxId = existing.id;
      lines.push(line);
      continue;
    }
    const values = {
      key,
      content,
      row: r,
      file,
      summary: line.summary,
      flags,
      now,
      planned: verdict.planned,
    };
    if (existing !== undefined) {
      // A held item planned again: checked again above, queued again with what this plan saw.
      flags.push(`held #${existing.id} planned again`);
      line.outboxId = existing.id;
      rearm.push({ id: existing.id, values });
    } else toInsert.push({ line, values });
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
    totals.amount += ops[r.op].amount?.(r.body) ?? 0;
  }

  throwProblems(file, problems);
  totals.amount = Math.round(totals.amount * 100) / 100;
  const big = totals.rows > options.confirmRows || totals.amount > options.confirmAmount;
  if (big && !(options.confirm !== undefined && (await options.confirm(totals))))
    throw new ConfirmationNeededError(
      `${file}: ${totals.rows} new item(s), payments totalling $${moneyText(totals.amount)}: above the confirmation threshold (writeback.confirmRows ${options.confirmRows}, writeback.confirmAmount ${options.confirmAmount}); pass --yes to queue them, nothing was planned`,
    );

  await insertItems(db, toInsert, rearm);
  const counts = { new: 0, queued: 0, skipped: 0 };
  for (const l of lines) counts[l.status]++;
  return { file, totals, lines, counts };
}

function insertValues(v: {
  key: string;
  content: string;
  row: ValidRow;
  file: string;
  summary: string;
  flags: string[];
  now: string;
  planned: Json | undefined;
}) {
  const planned = v.planned ?? null;
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
    planned: planned === null ? null : JSON.stringify(planned),
    balance_planned: typeof planned?.balance === 'number' ? planned.balance : null,
    hold_reason: null,
    released_at: null,
    redacted_at: null,
    file: v.file,
    row: v.row.row,
    created_at: v.now,
    updated_at: v.now,
  };
}
