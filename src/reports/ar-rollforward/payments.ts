import type { Kysely } from 'kysely';
import { asOf, type Database } from '../../mirror/index.js';
import type { Column, Row } from '../../render/types.js';
import { reportDb } from '../core/tables.js';
import { toCents } from '../core/values.js';

/** A payment this tool applied (an outbox item, state applied) in the period. */
export interface AppliedPayment {
  outboxId: number;
  invoiceId: string;
  /** Cents. */
  amount: number;
  appliedAt: string;
  /** The invoice's balance read just before the send, cents; null when not recorded. */
  balanceBefore: number | null;
}

/**
 * Payments write-back applied in the period (from, to]: outbox items of op payment in state
 * applied, at the instant they were settled (updated_at).
 */
export async function appliedPayments(
  db: Kysely<Database>,
  from: string,
  to: string,
): Promise<AppliedPayment[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'body', 'updated_at', 'balance_before'])
    .where('op', '=', 'payment')
    .where('state', '=', 'applied')
    .where('updated_at', '>', from)
    .where('updated_at', '<=', to)
    .orderBy('updated_at')
    .orderBy('id')
    .execute();
  const out: AppliedPayment[] = [];
  for (const r of rows) {
    let body: { InvoiceId?: unknown; amountToPay?: unknown } = {};
    try {
      body = JSON.parse(r.body) as typeof body;
    } catch {
      // An unreadable body names no invoice: listed with no invoice, never dropped.
    }
    out.push({
      outboxId: r.id,
      invoiceId: body.InvoiceId === undefined ? '' : String(body.InvoiceId),
      amount: toCents(body.amountToPay) ?? 0,
      appliedAt: r.updated_at,
      balanceBefore: r.balance_before === null ? null : toCents(r.balance_before),
    });
  }
  return out;
}

export const RESULTS = { matched: 'matched', notSeen: 'not seen yet', different: 'different' } as const;

/**
 * Each applied payment against the balance change seen on its invoice after it: the invoice as
 * the mirror held it at the end of the first complete sync of invoices that started after the
 * payment was applied and ended by `to` (the period's end). `matched`: the balance dropped by the amount; `not seen yet`: no such sync
 * yet; `different`: some other change (another payment, a fee, a credit in between, or none).
 */
export async function reconcile(
  db: Kysely<Database>,
  payments: readonly AppliedPayment[],
  to: string,
): Promise<Row[]> {
  // Syncs that ended by the period's end only: a later sync never changes a past period's figures.
  const syncs = await db
    .selectFrom('sync_stream_run')
    .select(['started_at', 'ended_at'])
    .where('stream', '=', 'invoice')
    .where('outcome', '=', 'ok')
    .where('ended_at', 'is not', null)
    .where('ended_at', '<=', to)
    .orderBy('started_at')
    .execute();
  const rows: Row[] = [];
  for (const p of payments) {
    const sync = syncs.find((s) => s.started_at > p.appliedAt);
    let after: number | null = null;
    let orgId: number | null = null;
    if (sync?.ended_at != null && p.invoiceId !== '') {
      const inv = await reportDb(db)
        .selectFrom(asOf(reportDb(db), 'invoice', sync.ended_at))
        .select(['balance', 'OrgId'])
        .where('id', '=', p.invoiceId)
        .executeTakeFirst();
      after = inv === undefined ? null : toCents(inv.balance ?? 0);
      orgId = typeof inv?.OrgId === 'number' ? inv.OrgId : null;
    }
    const change = after === null || p.balanceBefore === null ? null : p.balanceBefore - after;
    const result =
      sync === undefined
        ? RESULTS.notSeen
        : change !== null && change === p.amount
          ? RESULTS.matched
          : RESULTS.different;
    rows.push({
      outboxId: p.outboxId,
      invoiceId: p.invoiceId,
      orgId,
      appliedAt: p.appliedAt,
      amount: p.amount,
      balanceBefore: p.balanceBefore,
      seenAt: sync?.ended_at ?? null,
      balanceAfter: after,
      balanceChange: change,
      result,
    });
  }
  return rows;
}

export const paymentColumns: Column[] = [
  { key: 'outboxId', title: 'Outbox item', type: 'integer', width: 9 },
  { key: 'invoiceId', title: 'Invoice', type: 'string', width: 12 },
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'appliedAt', title: 'Applied at', type: 'datetime', width: 22 },
  { key: 'amount', title: 'Amount paid', type: 'money', width: 12 },
  { key: 'balanceBefore', title: 'Balance before (read before sending)', type: 'money', width: 14 },
  { key: 'seenAt', title: 'Seen by the sync ending', type: 'datetime', width: 22 },
  { key: 'balanceAfter', title: 'Balance seen after', type: 'money', width: 14 },
  { key: 'balanceChange', title: 'Balance change seen', type: 'money', width: 14 },
  {
    key: 'result',
    title: 'Result',
    type: 'string',
    width: 12,
    alert: { red: [RESULTS.different], amber: [RESULTS.notSeen] },
  },
];
