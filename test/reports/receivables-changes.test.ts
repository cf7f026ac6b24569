import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { engines, withTargets } from '../helpers/engines.js';
import { call, TEST_ANCHOR, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { workdir } from '../helpers/writeback.js';
import { type CsvRow, fileOf, ohsAt, plain, readCsv } from './changes-helpers.js';

/**
 * Receivables as a controller reads them, end to end on the sandbox between two syncs (clocks set
 * by libfaketime): an invoice whose balance turns null is "balance unknown" in unpaid invoices
 * (warned, in no total), the roll-forward (held apart, never a decrease) and what changed (its own
 * line, never "paid or credited elsewhere"); a late fee, on a paid invoice or an open one, is a
 * late fee in both (never a new invoice).
 */
const D = TEST_ANCHOR;
const SYNC1 = `${D}T23:00:00Z`;
const T1 = `${D}T23:30:00.000Z`;
const SYNC2 = '2026-06-16T00:10:00Z';
const T2 = '2026-06-16T00:30:00.000Z';
const LATER = '2026-06-16T01:00:00Z';
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };

describe.each(engines)('%s: receivables between two syncs', (engine) => {
  // A sandbox of its own per engine: the test changes it.
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  async function ohs(args: string[], dir: string, at = LATER) {
    const r = await ohsAt(at, args, { cwd: dir, env });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  }
  const csvOf = (dir: string, out: string, name: string): CsvRow[] =>
    readCsv(fileOf(join(dir, out), `${name}-2`, '.csv'));

  it('a balance that turns null is "balance unknown": warned in unpaid invoices, held apart in the roll-forward, its own line in what changed; never paid or credited', async () => {
    const { dir } = workdir(sim().url, await target());
    const open = sim()
      .truth()
      .Invoice.filter((i) => Number(i.balance) > 20 && !i.dropInvoice && String(i.date) <= D)
      .map((i) => ({ id: String(i.id), cents: Math.round(Number(i.balance) * 100) }));
    const U = open.at(-1) as { id: string; cents: number };
    expect(U).toBeDefined();
    await ohs(['sync'], dir, SYNC1);
    const before = csvOf(dir, await out(dir, 'u1', T1), 'unpaid-invoices');
    expect(before.some((r) => r.invoiceId === U.id)).toBe(true);

    // Upstream: the service shows no balance for U any more (the sandbox's invoice hook).
    expect(
      (await call(sim(), 'POST', '/__sim/invoice', { action: 'balance', id: U.id, balance: null })).status,
    ).toBe(200);
    await ohs(['sync', '--full'], dir, SYNC2);

    // Unpaid invoices: not in the detail, in no total, and warned about by id.
    const u2 = await ohs(
      ['report', 'unpaid-invoices', '--as-of-time', T2, '--format', 'csv', '--out', 'u2'],
      dir,
    );
    expect(csvOf(dir, 'u2', 'unpaid-invoices').some((r) => r.invoiceId === U.id)).toBe(false);
    const warned = u2.stderr.split('\n').filter((l) => l.includes('balance unknown'));
    expect(warned.join('\n')).toContain(U.id);
    expect(warned.join('\n')).toContain('never counted as paid or credited');

    // The roll-forward: its last known balance held apart, no decrease; the lines still reconcile.
    const roll = await ohs(
      ['report', 'ar-rollforward', '--from', T1, '--to', T2, '--format', 'csv', '--out', 'r12'],
      dir,
    );
    const moved = csvOf(dir, 'r12', 'ar-rollforward').find((r) => plain(r.invoiceId) === U.id);
    expect(moved).toMatchObject({ opening: cents(U.cents), unknown: cents(U.cents), closing: '0.00' });
    expect(moved).toMatchObject({ decreases: '0.00', decreasesElsewhere: '0.00', decreasesApplied: '0.00' });
    expect(roll.stderr).not.toMatch(/RECONCILIATION FAILED/);
    expect(roll.stderr).toContain(U.id);

    // What changed: one line of its own, never a payment.
    await ohs(
      ['report', 'changes', '--since', T1, '--as-of-time', T2, '--format', 'csv', '--out', 'c12'],
      dir,
    );
    const lines = csvOf(dir, 'c12', 'changes').filter((r) => plain(r.subject) === U.id);
    expect(lines.map((r) => r.kind)).toEqual(['INVOICE_BALANCE_UNKNOWN']);
    expect(lines[0]?.severity).toBe('worse');
    expect(lines[0]?.after).toContain(`${money(U.cents)} held apart, not paid`);
  }, 300_000);

  it('a late fee on a paid invoice and one on an open invoice: one late-fee line each in what changed, a late fee in the roll-forward, never a new invoice', async () => {
    const { dir } = workdir(sim().url, await target());
    const truth = sim().truth().Invoice;
    const ok = (i: (typeof truth)[number]) => !i.dropInvoice && String(i.date) <= D && i.dateDue;
    const paid = truth.filter((i) => ok(i) && i.balance === 0).at(-1);
    const open = truth.filter((i) => ok(i) && Number(i.balance) > 20).at(-2);
    expect(paid).toBeDefined();
    expect(open).toBeDefined();
    const [P, O] = [String(paid?.id), String(open?.id)];
    await ohs(['sync'], dir, SYNC1);
    // Upstream: a 25.00 fee on each (the sandbox's invoice hook: balance and lateFee both up).
    for (const id of [P, O])
      expect(
        (await call(sim(), 'POST', '/__sim/invoice', { action: 'lateFee', id, amount: 25 })).status,
      ).toBe(200);
    await ohs(['sync', '--full'], dir, SYNC2);

    await ohs(['report', 'ar-rollforward', '--from', T1, '--to', T2, '--format', 'csv', '--out', 'r12'], dir);
    const roll = csvOf(dir, 'r12', 'ar-rollforward');
    for (const id of [P, O])
      expect(
        roll.find((r) => plain(r.invoiceId) === id),
        id,
      ).toMatchObject({
        lateFees: '25.00',
        new: '0.00',
        found: '0.00',
        increases: '0.00',
      });

    await ohs(
      ['report', 'changes', '--since', T1, '--as-of-time', T2, '--format', 'csv', '--out', 'c12'],
      dir,
    );
    const lines = csvOf(dir, 'c12', 'changes');
    for (const id of [P, O]) {
      const of = lines.filter((r) => plain(r.subject) === id && r.area === 'receivables');
      expect(
        of.map((r) => r.kind),
        id,
      ).toEqual(['INVOICE_LATE_FEE']);
      expect(of[0]?.after).toContain('late fee $25.00 charged');
    }
  }, 300_000);

  /** `report unpaid-invoices` as of an instant into `out`; returns `out`. */
  async function out(dir: string, to: string, at: string): Promise<string> {
    await ohs(['report', 'unpaid-invoices', '--as-of-time', at, '--format', 'csv', '--out', to], dir);
    return to;
  }
});

const cents = (c: number) => (c / 100).toFixed(2);
const money = (c: number) =>
  `$${(c / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
