import { NotFoundError } from '../../api/index.js';
import type { Mirror } from '../../mirror/index.js';
import { requests } from '../../schema/index.js';
import { isCancelled } from '../../util/invoice-cancelled.js';
import { parseAmount } from '../amount.js';
import {
  type Json,
  money,
  moneyText,
  near,
  type OpDeclaration,
  type PlanChecks,
  type PlanContext,
  parseRaw,
  round2,
  type Work,
} from './types.js';

/**
 * payment: POST, never idempotent. Evidence: the invoice's balance, read just before the claim
 * and recorded with it. Its lane is the invoice, so a later payment on the same invoice waits
 * until this one is settled and a balance can only have moved by this payment (or upstream).
 */
interface InvoiceSeen {
  balance: number;
  cancelled: boolean;
  deletedAt: string | null;
}

/** Payments per invoice already in the outbox and not settled (held ones are not counted). */
async function pendingPayments(db: Mirror['db']): Promise<Map<string, { ids: number[]; sum: number }>> {
  const rows = await db
    .selectFrom('outbox')
    .select(['id', 'body'])
    .where('op', '=', 'payment')
    .where('state', 'in', ['queued', 'sending', 'sent', 'unknown'])
    .execute();
  const out = new Map<string, { ids: number[]; sum: number }>();
  for (const q of rows) {
    const b = JSON.parse(q.body) as { InvoiceId?: string; amountToPay?: number };
    const id = String(b.InvoiceId);
    const seen = out.get(id) ?? { ids: [], sum: 0 };
    seen.ids.push(q.id);
    seen.sum += b.amountToPay ?? 0;
    out.set(id, seen);
  }
  return out;
}

/**
 * The plan's checks of payments against the mirror's invoice: unknown to the mirror or
 * soft-deleted there is a problem (the row is refused, and with it the file), and so is an
 * amount above `centsRatio` times the balance (it looks like cents where the interface means
 * dollars); above the balance left (the mirror's, less the payments already queued for it and
 * the rows above) or on a cancelled invoice (dropInvoice) is a flag, and the payment is queued.
 */
function invoiceChecks(ctx: PlanContext): PlanChecks {
  const invoices = new Map<string, InvoiceSeen | undefined>();
  const invoice = async (id: string) => {
    if (!invoices.has(id)) {
      const inv = await ctx.db
        .selectFrom('invoice')
        .select(['raw', 'deleted_at'])
        .where('id', '=', id)
        .executeTakeFirst();
      const raw = parseRaw(inv?.raw);
      invoices.set(
        id,
        inv === undefined
          ? undefined
          : {
              balance: typeof raw.balance === 'number' ? raw.balance : 0,
              cancelled: isCancelled(raw.dropInvoice),
              deletedAt: inv.deleted_at,
            },
      );
    }
    return invoices.get(id);
  };
  /** What to do about an invoice the mirror lacks: sync first when it has none, else check the id. */
  let missingHint: Promise<string> | undefined;
  const hint = async () => {
    const row = await ctx.db
      .selectFrom('invoice')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    const n = Number(row?.n ?? 0);
    return n === 0
      ? 'the mirror holds no invoices: run ohs sync (with sync.idStart.invoice on a first sync)'
      : `the mirror holds ${n} invoices: check the id, or run ohs sync if the invoice is newer than the last sync`;
  };
  let pending: ReturnType<typeof pendingPayments> | undefined;
  /** Balance left per invoice: mirror balance, less queued payments, less rows above. */
  const left = new Map<string, number>();
  const ratio = ctx.centsRatio;

  return {
    async problems(r) {
      if (r.values.InvoiceId === null || r.values.InvoiceId === undefined) return [];
      const lines: string[] = [];
      const id = String(r.values.InvoiceId);
      const inv = await invoice(id);
      if (inv === undefined) {
        missingHint ??= hint();
        lines.push(`InvoiceId: invoice ${id} is not in the mirror (${await missingHint})`);
      } else if (inv.deletedAt !== null)
        lines.push(`InvoiceId: invoice ${id} was deleted upstream (${inv.deletedAt})`);
      const amount = parseAmount(r.values.amountToPay);
      if (
        inv !== undefined &&
        typeof amount === 'number' &&
        ratio > 0 &&
        inv.balance > 0 &&
        amount > ratio * inv.balance
      )
        lines.push(
          `amountToPay: ${moneyText(amount)} is over ${ratio} times the invoice's balance of ${moneyText(inv.balance)}: amounts are dollars, not cents (${moneyText(amount / 100)}?)`,
        );
      return lines;
    },

    async check(r) {
      const flags: string[] = [];
      const invoiceId = String(r.body.InvoiceId);
      const target = `invoice ${invoiceId}`;
      const inv = await invoice(invoiceId);
      if (inv === undefined || inv.deletedAt !== null) return { flags, target, outcome: 'drop' }; // a problem
      if (inv.cancelled) flags.push('invoice cancelled');
      pending ??= pendingPayments(ctx.db);
      const queued = (await pending).get(invoiceId);
      const balance = left.get(invoiceId) ?? inv.balance - (queued?.sum ?? 0);
      const amount = r.body.amountToPay as number;
      const problems: string[] = [];
      if (amount - balance > 0.005) {
        // What the plan shows is what is paid: an overpayment is refused unless said to be meant.
        if (ctx.allowOverpayment)
          flags.push(`above balance (${money(balance)} left): allowed by --allow-overpayment`);
        else
          problems.push(
            `amountToPay: ${moneyText(amount)} is above the balance of invoice ${invoiceId} (${money(balance)} left after the payments queued and the rows above); pass --allow-overpayment if it is meant`,
          );
      }
      left.set(invoiceId, Math.round((balance - amount) * 100) / 100);
      // Checked again against the service's balance when it is sent (`hold` below).
      // `counted`: the queued payments the balance left counts on (the rows above are found by
      // file and plan time): one of them never sent (held, failed, abandoned) adds back.
      // `cancelled`: what the plan knew (and flagged), so that the check when sent says only
      // what happened since.
      const planned = {
        balance: round2(balance),
        allowOverpayment: ctx.allowOverpayment,
        counted: queued?.ids ?? [],
        cancelled: inv.cancelled,
      };
      return { flags, target, problems, planned };
    },
  };
}

/**
 * The check at the moment of sending: the balance just read decides. Not sent when the invoice
 * cannot be read, is cancelled, shows no balance (never read as 0), fell since the plan (paid
 * elsewhere, or the same payment planned on another mirror: the plan did not count it) or is
 * below the amount beyond a cent, unless `--allow-overpayment` was given at plan time and the
 * balance is still the one planned against. A person's release for this apply (`work.released`)
 * lets through what changed since the plan (cancelled, fallen), never a payment above the balance
 * read now (nor on no balance) unless `--allow-overpayment` was given with the release.
 */
export function holdReason(work: Work): string | undefined {
  const id = String(work.body.InvoiceId);
  const b = work.before ?? {};
  const amount = Number(work.body.amountToPay);
  const released = work.released ?? null;
  const overpay = released?.allowOverpayment === true;
  const unlessOver = released === null ? '' : '; a release sends it only with --allow-overpayment';
  // The balance the plan counted on, plus the payments it counted that were never sent.
  const unsent = typeof b.unsent === 'number' ? b.unsent : 0;
  const planned = typeof work.planned?.balance === 'number' ? round2(work.planned.balance + unsent) : null;
  const then = planned === null ? '' : ` (${money(planned)} when planned)`;
  if (typeof b.unreadable === 'string') return `invoice ${id} cannot be read: ${b.unreadable}`;
  if (b.cancelled === true && released === null)
    // Said as what happened since the plan: a cancellation the plan flagged is no news.
    return work.planned?.cancelled === true
      ? `invoice ${id} is cancelled, as the plan flagged it${then}: release it if the payment is meant`
      : `invoice ${id} was cancelled since the plan${then}`;
  if (typeof b.balance !== 'number')
    return overpay ? undefined : `invoice ${id} shows no balance (null, not read as 0)${then}${unlessOver}`;
  const now = b.balance;
  if (released === null && planned !== null && planned - now > 0.005)
    return `balance of invoice ${id} fell to ${money(now)} from ${money(planned)} when planned: paid elsewhere or planned twice?`;
  if (amount - now <= 0.005 || overpay) return undefined;
  if (work.planned?.allowOverpayment === true && planned !== null && near(planned, now)) return undefined;
  return `balance of invoice ${id} is ${money(now)}${then}, below the amount ${money(amount)}${unlessOver}`;
}

/**
 * The payment's own check after its answer: the balance read back from the service must be the
 * balance read before less the amount (within a cent), and so must the balance the answer gives,
 * if it gives one. Anything else (paid twice by another mirror or machine, changed upstream
 * meanwhile, not read) is a conflict, named.
 */
function conflictOf(
  before: number | null,
  amount: number,
  readBack: number | null,
  answered: number | null,
): string | undefined {
  if (before === null)
    return 'no balance was read before the payment: the balance after it cannot be checked';
  const expected = round2(before - amount);
  const why = 'paid twice (by another mirror or machine?) or changed upstream meanwhile';
  if (readBack !== null && !near(readBack, expected))
    return `balance ${money(before)} -> ${money(readBack)} read back, expected ${money(expected)}: ${why}`;
  if (answered !== null && !near(answered, expected))
    return `the answer gives a balance of ${money(answered)}, expected ${money(expected)} (${money(before)} less ${money(amount)}): ${why}`;
  if (readBack === null && answered === null)
    return `the balance could not be read back after the payment (expected ${money(expected)})`;
  return undefined;
}

export const payment: OpDeclaration = {
  operation: 'createPayment',
  spec: requests.PaymentCreate,
  required: ['InvoiceId', 'amountToPay'],
  targeted: false,
  rowRules(input) {
    const amount = parseAmount(input.amountToPay);
    return amount !== undefined && !(amount > 0) ? ['amountToPay: must be greater than 0'] : [];
  },
  plan: invoiceChecks,
  amount: (b) => b.amountToPay as number,
  describe: (b) => `pay ${money(Number(b.amountToPay))} on invoice ${String(b.InvoiceId)}`,
  lane: (b) => `invoice:${String(b.InvoiceId)}`,
  idempotent: () => false,

  async before(ctx, work) {
    const id = String(work.body.InvoiceId);
    let invoice: Json;
    try {
      invoice = (await ctx.client.getInvoice(id)) as Json;
    } catch (err) {
      if (err instanceof NotFoundError) return { balance: null, unreadable: 'not found on the service' };
      throw err;
    }
    // An observation: the invoice as the service shows it now, a version in its history.
    await ctx.mirror.store('Invoice', [invoice]);
    const counted = Array.isArray(work.planned?.counted) ? (work.planned.counted as number[]) : [];
    return {
      unsent: await ctx.mirror.countedNotSent(work.id, id, counted),
      balance: typeof invoice.balance === 'number' ? invoice.balance : null,
      cancelled: isCancelled(invoice.dropInvoice),
      invoice,
    };
  },

  hold: holdReason,

  async send(ctx, work) {
    const id = String(work.body.InvoiceId);
    const rec = (await ctx.client.createPayment(work.body)) as Json;
    const before = typeof work.before?.balance === 'number' ? work.before.balance : null;
    const amount = Number(work.body.amountToPay);
    const expected = before === null ? null : round2(before - amount);
    // The balance read back from the service after it, always (the answer's balance, when the
    // interface's open answer gives one, is checked too); stored as the invoice's next version.
    const read = (await ctx.mirror.reread(() => ctx.client.getInvoice(id))) as Json | undefined;
    const readBack = typeof read?.balance === 'number' ? read.balance : null;
    const answered = typeof rec.balance === 'number' ? rec.balance : null;
    const seen = work.before?.invoice;
    const invoice =
      read ??
      (answered !== null && typeof seen === 'object' && seen !== null
        ? { ...(seen as Json), balance: answered }
        : undefined);
    const after = readBack ?? answered;
    await ctx.mirror.storeAll([
      ['Payment', [rec]],
      ['Invoice', invoice === undefined ? [] : [invoice]],
    ]);
    const moved = `${before === null ? 'unknown' : money(before)} -> ${after === null ? 'not read' : money(after)}`;
    const conflict = conflictOf(before, amount, readBack, answered);
    return {
      resultId: rec.id === undefined ? null : String(rec.id),
      response: rec,
      note: `paid; balance ${moved}`,
      check: { balanceBefore: before, amount, expected, balanceAfter: after, answered },
      ...(conflict === undefined ? {} : { conflict }),
    };
  },

  async readBack(ctx, work) {
    const invoice = await ctx.client.getInvoice(String(work.body.InvoiceId));
    await ctx.mirror.store('Invoice', [invoice]);
    if (typeof invoice.balance !== 'number')
      return { verdict: 'unclear', evidence: { balance: null }, note: 'the invoice shows no balance' };
    const after = invoice.balance;
    const amount = Number(work.body.amountToPay);
    const raw = work.before?.balance;
    if (typeof raw !== 'number')
      return {
        verdict: 'unclear',
        evidence: { balance: after },
        note: 'no balance recorded before the send',
      };
    const expected = round2(raw - amount);
    const evidence = { balanceBefore: raw, amount, balance: after, expected };
    if (near(after, expected))
      return { verdict: 'applied', evidence, note: `balance dropped by ${money(amount)}` };
    if (near(after, raw))
      return { verdict: 'not-applied', evidence, note: `balance unchanged (${money(raw)})` };
    return {
      verdict: 'unclear',
      evidence,
      note: `balance ${money(after)} is neither ${money(raw)} (not paid) nor ${money(expected)} (paid)`,
    };
  },
};
