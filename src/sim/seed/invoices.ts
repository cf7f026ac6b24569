import { hash32, Rng } from '../rng.js';
import type { SimRecord } from '../store.js';
import { DAY, IdSequence, isoDate, type SeedContext } from './common.js';

/** Chances that an invoice is cancelled: one paid in full, one with a balance. */
const CANCEL_PAID = 0.01;
const CANCEL_UNPAID = 0.1;

/**
 * Invoices: numeric-string ids with gaps; paid, unpaid, overdue, a few credits. Drawn from a
 * generator of their own, so that which invoices exist and what they owe depend on the seed and
 * scale alone, not on the anchor date (the sections above draw by calendar month): the ids of
 * examples/payment.csv hold in a sandbox started on any day.
 */
export function seedInvoices(c: SeedContext, orgs: SimRecord[]): void {
  const { seed, t, scaled, anchor, start, span } = c;
  const irng = new Rng(hash32(`invoices:${seed}`));
  const invoiceIds = new IdSequence(240001, irng, 9);
  for (let i = 0, n = scaled(3000); i < n; i++) {
    const org = irng.pick(orgs);
    const issued = start + Math.floor(irng.next() * span);
    const date = new Date(issued);
    const amount = irng.money(35, 2400);
    const age = (anchor - issued) / DAY;
    const paid = age > 120 ? irng.chance(0.94) : age > 30 ? irng.chance(0.6) : irng.chance(0.2);
    let balance = paid ? 0 : irng.chance(0.2) ? Math.round(amount * irng.next() * 100) / 100 : amount;
    if (irng.chance(0.005)) balance = -irng.money(5, 150);
    const invoice: SimRecord = {
      id: String(invoiceIds.take()),
      amount,
      balance,
      c_org: org.name,
      date: isoDate(issued),
      dateDue: isoDate(issued + 30 * DAY),
      lateFee: !paid && age > 60 ? irng.pick([15, 25, 0]) : irng.chance(0.5) ? 0 : null,
      month: date.getUTCMonth() + 1,
      year: date.getUTCFullYear(),
      OrgId: org.id,
    };
    if (irng.chance(0.01)) delete invoice.dateDue;
    // Cancelled (dropInvoice filled): about 2% of invoices as before, mostly ones never paid (an
    // invoice is cancelled instead of paid), so a small sandbox has cancelled invoices with an
    // open balance too. One draw either way: the invoices after it stay as they were.
    if (irng.chance(balance === 0 ? CANCEL_PAID : CANCEL_UNPAID))
      invoice.dropInvoice = `https://files.example/invoice/${invoice.id}/void.pdf`;
    t.Invoice.insert(invoice);
  }
}
