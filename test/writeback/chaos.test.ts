import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { applyOutbox, applySettings, listOutbox, planFile, planSettings } from '../../src/writeback/index.js';
import { clientFor } from '../helpers/client.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { rows as mirrorRows } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';
import {
  openInvoices,
  silent,
  syncStreams,
  withClient,
  withMirror,
  workdir,
  writeCsv,
} from '../helpers/writeback.js';

/**
 * 500 payments applied through injected faults (503, dropped connections, truncated replies,
 * replies lost after the write): each is made exactly once upstream, every unknown outcome is
 * reconciled (or left listed as unknown), and the mirror's balances equal the service's.
 */
describe.concurrent.each(engines)('write-back under faults (%s)', (engine) => {
  // A sandbox per engine: the checks count payments by amount over the whole sandbox. The engines
  // run at once: each mostly waits (retries, one payment at a time per invoice).
  const sim = withSim({ scale: 0.2 });
  const target = withTargets(engine);

  it('500 payments with faultRate 0.2 end applied exactly once, the mirror balances equal the truth', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const invoices = openInvoices(sim()).slice(0, 120);
    expect(invoices.length).toBeGreaterThan(50);
    // Each row its own amount in cents (1.00 .. 5.99), so each payment upstream names its row;
    // rows share invoices, so payments on one invoice must go one at a time.
    const rows = Array.from({ length: 500 }, (_, i) => [
      invoices[i % invoices.length]?.id ?? '',
      (100 + i) / 100,
    ]);
    const file = writeCsv(join(dir, 'payments.csv'), ['InvoiceId', 'amountToPay'], rows);
    const before = new Map(
      sim()
        .truth()
        .Invoice.map((i) => [String(i.id), Number(i.balance)]),
    );

    await withMirror(db, async (m) => {
      const plan = await planFile(m, file, { ...planSettings(defaults), op: 'payment' });
      expect(plan.counts.new).toBe(500);
    });
    sim().configure({ faultRate: 0.2, faultKinds: ['503', 'drop', 'truncate', 'lostReply'] });
    let reconciled = 0;
    for (let pass = 0; pass < 6; pass++) {
      const report = await withMirror(db, (m) =>
        withClient(clientFor(sim(), { concurrency: 8, maxRetries: 10 }), (c) =>
          applyOutbox(c, m, {
            ...applySettings(defaults),
            concurrency: 8,
            deletes: 'confirmed',
            logger: silent,
          }),
        ),
      );
      reconciled += report.reconciled;
      // Never a payment twice, after any pass.
      const amounts = sim()
        .truth()
        .Payment.map((p) => Math.round(Number(p.amountToPay) * 100));
      expect(new Set(amounts).size).toBe(amounts.length);
      if (report.counts.queued + report.counts.sent === 0) break;
    }
    sim().configure({ faultRate: 0 });
    expect(sim().stats.faults.lostReply).toBeGreaterThan(0);
    expect(reconciled).toBeGreaterThan(0);

    const items = await withMirror(db, (m) => listOutbox(m));
    const payments = sim().truth().Payment;
    const byAmount = new Map(payments.map((p) => [Math.round(Number(p.amountToPay) * 100), p]));
    for (const item of items) {
      const body = JSON.parse(item.body) as { InvoiceId: string; amountToPay: number };
      const made = byAmount.get(Math.round(body.amountToPay * 100));
      if (item.state === 'applied') {
        expect(made?.InvoiceId).toBe(body.InvoiceId);
      } else {
        // Not settled: listed as unknown, never queued or failed silently.
        expect(item.state).toBe('unknown');
      }
    }
    const applied = items.filter((i) => i.state === 'applied').length;
    expect(payments.length).toBeGreaterThanOrEqual(applied);
    expect(payments.length).toBeLessThanOrEqual(500);
    expect(items.filter((i) => i.state === 'unknown').length).toBeLessThan(10);

    // Every invoice's balance upstream is its old balance less the payments made, and the mirror agrees.
    const truth = new Map(
      sim()
        .truth()
        .Invoice.map((i) => [String(i.id), Number(i.balance)]),
    );
    const paid = new Map<string, number>();
    for (const p of payments)
      paid.set(String(p.InvoiceId), (paid.get(String(p.InvoiceId)) ?? 0) + Number(p.amountToPay));
    for (const [id, sum] of paid) expect(truth.get(id)).toBeCloseTo((before.get(id) ?? 0) - sum, 2);
    const mirrored = await withMirror(
      db,
      async (m) =>
        (await mirrorRows(m, sql`SELECT id, balance FROM invoice`)) as { id: string; balance: number }[],
    );
    for (const r of mirrored)
      expect(r.balance, `invoice ${r.id}`).toBeCloseTo(truth.get(r.id) ?? Number.NaN, 2);
  });
});
