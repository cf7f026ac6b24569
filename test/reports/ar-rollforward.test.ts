import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { call, withSim } from '../helpers/sim.js';
import { pathOf } from '../helpers/sim-data.js';
import { csv, env, syncedSandbox } from './synced-sandbox.js';

/**
 * The A/R roll-forward on the synced sandbox, through the real CLI: over a period with a payment
 * written back by `ohs apply`, a payment made in the service, a late fee, a cancellation, a
 * restored invoice and a new invoice, the lines are the changes made here, figured by hand in
 * cents, and they reconcile to the cent with the unpaid-invoices ageing as of both ends.
 */
const sim = withSim({ scale: 0.1 });
const synced = syncedSandbox(sim);

const cents = (v: unknown) => Math.round(Number(v) * 100);
const sum = (rows: Record<string, string>[], key: string) => rows.reduce((s, r) => s + cents(r[key]), 0);

async function ohs(dir: string, ...args: string[]) {
  const r = await runOhs(args, { cwd: dir, env });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** The ageing's net total as of an instant, from its own CSV (`ohs report unpaid-invoices --as-of-time`). */
async function ageingTotal(dir: string, at: string, out: string): Promise<number> {
  const r = await ohs(dir, 'report', 'unpaid-invoices', '--as-of-time', at, '--format', 'csv', '--out', out);
  const file = join(dir, r.stdout.trim().split('\n')[0] as string);
  return sum(
    csv(file).filter((row) => row.status === 'open'),
    'totalDue',
  );
}

/** The sandbox's A/R by hand: open, not cancelled, dated by today, in cents. */
function truthTotal(): number {
  const today = new Date().toISOString().slice(0, 10);
  return sim()
    .truth()
    .Invoice.filter((i) => !i.dropInvoice && String(i.date).slice(0, 10) <= today)
    .reduce((s, i) => s + cents(i.balance ?? 0), 0);
}

const admin = async (body: Record<string, unknown>) => {
  const r = await call(sim(), 'POST', '/__sim/invoice', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Record<string, unknown>;
};

describe.each(engines)('%s: ar-rollforward', (engine) => {
  it('reconciles to the cent over payments, a late fee, a cancellation, a restoration and a new invoice', async () => {
    const { dir } = await synced(engine);
    // Before the history begins: refused, one line, a stable code, nothing written.
    const early = await runOhs(
      ['report', 'ar-rollforward', '--from', '2026-01-01', '--to', '2026-02-01', '--out', 'rf-early'],
      { cwd: dir, env },
    );
    expect(early.code).toBe(2);
    expect(early.stderr.split('\n')[0]).toMatch(
      /^ohs: AS_OF_BEFORE_HISTORY: ar-rollforward: the period starts 2026-01-01T00:00:00.000Z, before the mirror's history begins/,
    );
    expect(existsSync(join(dir, 'rf-early'))).toBe(false);

    const invoices = sim()
      .truth()
      .Invoice.filter((i) => Number(i.balance) > 60 && !i.dropInvoice);
    const [paid, fee, cancelled, elsewhere] = invoices.slice(0, 4).map((i) => String(i.id));
    const restored = sim()
      .truth()
      .Invoice.find((i) => Number(i.balance) > 0 && i.dropInvoice);
    expect(restored).toBeDefined();
    const balanceOf = (id: string | undefined) => cents(sim().tables.Invoice.get(String(id))?.balance);
    const cancelledBalance = balanceOf(cancelled);
    const restoredBalance = balanceOf(String(restored?.id));
    const opening = truthTotal();

    await new Promise((r) => setTimeout(r, 1100));
    const from = new Date().toISOString();
    // A payment written back by the tool: the outbox, then `ohs apply`.
    const file = join(dir, `pay-${engine}.csv`);
    writeFileSync(file, `InvoiceId,amountToPay\n${paid},50.00\n`);
    await ohs(dir, 'plan', file, '--op', 'payment');
    await ohs(dir, 'apply');
    // Before any sync after it: the payment is not seen yet, and the page says so.
    const before = new Date(Date.now() + 1000).toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    await ohs(
      dir,
      'report',
      'ar-rollforward',
      '--from',
      from,
      '--to',
      before,
      '--format',
      'csv,xlsx,html',
      '--out',
      'rf-before',
    );
    const beforeRows = csv(
      join(dir, 'rf-before', `ar-rollforward-${new Date().toISOString().slice(0, 10)}.csv`),
    );
    expect(sum(beforeRows, 'decreasesApplied')).toBe(5000);
    const verdictBefore = JSON.parse(
      (await import('node:fs')).readFileSync(
        join(dir, 'rf-before', `ar-rollforward-${new Date().toISOString().slice(0, 10)}.summary.json`),
        'utf8',
      ),
    ) as { level: string; problems: string[] };
    expect(verdictBefore.level).toBe('warn');
    expect(verdictBefore.problems.join()).toContain('1 payment(s) applied not seen by a sync yet');

    // Changes in the service: a late fee, a cancellation, a restoration, a new invoice, a payment.
    await admin({ action: 'lateFee', id: fee, amount: 25 });
    await admin({ action: 'cancel', id: cancelled });
    await admin({ action: 'restore', id: restored?.id });
    const created = await admin({
      action: 'create',
      OrgId: restored?.OrgId,
      amount: 123.45,
      date: from.slice(0, 10),
    });
    const pay = await call(sim(), 'POST', pathOf('createPayment'), { InvoiceId: elsewhere, amountToPay: 10 });
    expect(pay.status).toBe(200);
    await ohs(dir, 'sync', 'invoice');
    await new Promise((r) => setTimeout(r, 1100));
    const to = new Date().toISOString();
    const closing = truthTotal();

    const day = new Date().toISOString().slice(0, 10);
    await ohs(
      dir,
      'report',
      'ar-rollforward',
      '--from',
      from,
      '--to',
      to,
      '--format',
      'csv,xlsx,html',
      '--out',
      'rf',
    );
    const rows = csv(join(dir, 'rf', `ar-rollforward-${day}.csv`));
    const line = (key: string) => sum(rows, key);
    // By hand: what was done above.
    expect(line('opening')).toBe(opening);
    expect(line('new')).toBe(12345);
    expect(line('increases')).toBe(2500);
    expect(line('decreases')).toBe(6000);
    expect(line('decreasesApplied')).toBe(5000);
    expect(line('decreasesElsewhere')).toBe(1000);
    expect(line('cancellations')).toBe(cancelledBalance);
    expect(line('restorations')).toBe(restoredBalance);
    expect(line('removed')).toBe(0);
    expect(line('closing')).toBe(closing);
    expect(closing).toBe(opening + 12345 + 2500 - 6000 - cancelledBalance + restoredBalance);
    // Invoice by invoice, the right lines.
    const row = (id: unknown) => rows.find((r) => r.invoiceId === String(id)) ?? {};
    expect(cents(row(paid).decreasesApplied)).toBe(5000);
    expect(cents(row(elsewhere).decreasesElsewhere)).toBe(1000);
    expect(cents(row(fee).increases)).toBe(2500);
    expect(cents(row(cancelled).cancellations)).toBe(cancelledBalance);
    expect(cents(row(restored?.id).restorations)).toBe(restoredBalance);
    expect(cents(row(created.id).new)).toBe(12345);
    // Opening and closing are the ageing's own totals as of both instants.
    expect(await ageingTotal(dir, from, 'ageing-from')).toBe(opening);
    expect(await ageingTotal(dir, to, 'ageing-to')).toBe(closing);
    // The payment applied is matched with the drop the sync saw; the verdict is OK.
    const verdict = JSON.parse(
      (await import('node:fs')).readFileSync(join(dir, 'rf', `ar-rollforward-${day}.summary.json`), 'utf8'),
    ) as { level: string; figures: { label: string; value: string }[] };
    expect(verdict.level).toBe('ok');
    expect(verdict.figures.find((f) => f.label === 'Reconciles to the cent')?.value).toBe('yes');
    expect(verdict.figures.find((f) => f.label === 'Payments applied: matched')?.value).toBe('1');
  }, 300_000);
});
