import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { openInvoices, syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/**
 * An apply is an observation: the invoice `ohs apply` reads just before a payment and the balance
 * the service gives after it are versions of the invoice in its history, dated when read. A late
 * fee landing between the last sync and the payment shows as an increase before it, and the
 * payment shows whole (the fee is not netted into it).
 */
describe.each(engines)('apply writes what it reads into the history (%s)', { timeout: 300_000 }, (engine) => {
  const sim = withSim({ scale: 0.05 });
  const target = withTargets(engine);

  it('a late fee between sync and payment: sync version, the fee read before paying, the payment', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const inv = openInvoices(sim()).find((i) => i.balance >= 600);
    if (inv === undefined) throw new Error('no invoice owing 600 or more');
    const fee = await call(sim(), 'POST', '/__sim/invoice', { action: 'lateFee', id: inv.id, amount: 25 });
    expect(fee.status).toBe(200);
    const file = writeCsv(join(dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], [[inv.id, 500]]);
    expect((await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env })).code).toBe(0);
    const started = new Date().toISOString();
    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const cents = (n: number) => Math.round(n * 100);
    expect(r.stdout).toContain(
      `paid; balance ${(inv.balance + 25).toFixed(2)} -> ${(inv.balance + 25 - 500).toFixed(2)}`,
    );

    await withMirror(db, async (m) => {
      const versions = (
        await sql<{ balance: number | string; valid_from: string; valid_to: string | null }>`
          SELECT balance, valid_from, valid_to FROM h_invoice WHERE id = ${inv.id} ORDER BY valid_from`.execute(
          m.db,
        )
      ).rows;
      expect(versions.map((v) => cents(Number(v.balance)))).toEqual([
        cents(inv.balance),
        cents(inv.balance + 25),
        cents(inv.balance + 25 - 500),
      ]);
      const [synced, before, after] = versions;
      // Each dated when it was read: the fee before the claim, the payment after it.
      const [item] = await listOutbox(m);
      expect(synced?.valid_to).toBe(before?.valid_from);
      expect(String(before?.valid_from) >= started).toBe(true);
      expect(String(before?.valid_from) <= String(item?.claimed_at)).toBe(true);
      expect(String(after?.valid_from) >= String(item?.claimed_at)).toBe(true);
      expect(after?.valid_to).toBeNull();
    });
  });
});
