import { badRequest, notFound } from '../http-error.js';
import type { SimRecord, SimTables } from '../store.js';

/**
 * Test hook `POST /__sim/invoice` (docs/sandbox.md): the invoice changes the service's staff make
 * by hand and the live mutation does not, so the A/R roll-forward can be tested on them:
 * - `{"action": "lateFee", "id", "amount"}`: a late fee added to the balance and to `lateFee`;
 * - `{"action": "cancel", "id"}`: `dropInvoice` filled (the void document's address);
 * - `{"action": "restore", "id"}`: `dropInvoice` cleared;
 * - `{"action": "balance", "id", "balance"}`: the balance set as given, `null` included (paid or
 *   changed through another channel; a balance the service does not show);
 * - `{"action": "create", "OrgId", "amount", "date", "count"}`: `count` (default 1) new invoices
 *   on consecutive ids above the highest, copying an invoice of the org.
 * Answers the invoice after the change (the last one created).
 */
export function invoiceAdmin(t: SimTables, body: unknown): SimRecord {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const cents = (v: unknown) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw badRequest('amount: a number above 0');
    return Math.round(v * 100);
  };
  if (b.action === 'create') {
    const template = t.Invoice.all().find((i) => i.OrgId === b.OrgId);
    if (template === undefined) throw notFound(`no invoice of org ${String(b.OrgId)} to copy`);
    const date = typeof b.date === 'string' ? b.date : String(template.date);
    const count = b.count ?? 1;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 100_000)
      throw badRequest('count: a whole number from 1 to 100000');
    const balance = cents(b.amount) / 100;
    // `count` new invoices on consecutive ids above the highest (a busy day's invoicing run).
    let id = '';
    for (let k = 0; k < count; k++) {
      id = String(Number(t.Invoice.maxId() ?? template.id) + 1);
      t.Invoice.insert({ ...template, id, balance, date, dateDue: date, lateFee: null, dropInvoice: null });
    }
    return t.Invoice.get(id) as SimRecord;
  }
  const id = String(b.id);
  const inv = t.Invoice.get(id);
  if (inv === undefined) throw notFound(`invoice ${id} not found`);
  if (b.action === 'lateFee') {
    const fee = cents(b.amount);
    t.Invoice.update(id, {
      balance: (Math.round(Number(inv.balance ?? 0) * 100) + fee) / 100,
      lateFee: (Math.round(Number(inv.lateFee ?? 0) * 100) + fee) / 100,
    });
  } else if (b.action === 'cancel')
    t.Invoice.update(id, { dropInvoice: `https://files.example/invoice/${id}/void.pdf` });
  else if (b.action === 'restore') t.Invoice.update(id, { dropInvoice: null });
  else if (b.action === 'balance') {
    if (b.balance !== null && (typeof b.balance !== 'number' || !Number.isFinite(b.balance)))
      throw badRequest('balance: a number or null');
    t.Invoice.update(id, { balance: b.balance === null ? null : Math.round(b.balance * 100) / 100 });
  } else throw badRequest('action: one of lateFee, cancel, restore, balance, create');
  return t.Invoice.get(id) as SimRecord;
}
