import { requests } from '../../schema/index.js';
import { type Json, money, near, type OpDeclaration, round2 } from './types.js';

/**
 * payment: POST, never idempotent. Evidence: the invoice's balance, read just before the claim
 * and recorded with it. Its lane is the invoice, so a later payment on the same invoice waits
 * until this one is settled and a balance can only have moved by this payment (or upstream).
 */
export const payment: OpDeclaration = {
  operation: 'createPayment',
  spec: requests.PaymentCreate,
  required: ['InvoiceId', 'amountToPay'],
  targeted: false,
  describe: (b) => `pay ${money(Number(b.amountToPay))} on invoice ${String(b.InvoiceId)}`,
  lane: (b) => `invoice:${String(b.InvoiceId)}`,
  idempotent: () => false,

  async before(ctx, work) {
    // Stored in the mirror with the balance after the payment, once it is answered.
    const invoice = await ctx.client.getInvoice(String(work.body.InvoiceId));
    return { balance: Number(invoice.balance ?? 0), invoice: invoice as Json };
  },

  async send(ctx, work) {
    const rec = await ctx.client.createPayment(work.body);
    const before = Number(work.before?.balance ?? 0);
    const expected = round2(before - Number(work.body.amountToPay));
    // The service answered: the balance is the one read before, less the amount.
    const invoice = work.before?.invoice;
    await ctx.mirror.storeAll([
      ['Payment', [rec]],
      [
        'Invoice',
        typeof invoice === 'object' && invoice !== null ? [{ ...(invoice as Json), balance: expected }] : [],
      ],
    ]);
    return {
      resultId: rec.id === undefined ? null : String(rec.id),
      response: rec,
      note: `paid; balance ${money(before)} -> ${money(expected)}`,
      check: { balanceBefore: before, amount: Number(work.body.amountToPay), expected },
    };
  },

  async readBack(ctx, work) {
    const invoice = await ctx.client.getInvoice(String(work.body.InvoiceId));
    await ctx.mirror.store('Invoice', [invoice]);
    const after = Number(invoice.balance ?? 0);
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
