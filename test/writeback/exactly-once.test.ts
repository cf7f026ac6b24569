import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import {
  configure,
  expectPaidAtMostOnce,
  openInvoices,
  paymentRows,
  syncStreams,
  withMirror,
  workdir,
  writeCsv,
} from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/**
 * Exactly once against the sandbox's truth when the gateway answers 504 for writes the backend
 * carries out later (late writes), or the backend answers after the client gave up (slow
 * writes): an unknown outcome is never resent in the run that produced it, and is settled by
 * reading the invoice back once it had time to land.
 */
describe.each(engines)('late and slow writes (%s)', { timeout: 300_000 }, (engine) => {
  // A sandbox per engine: the checks count payments by amount over the whole sandbox. Scale 0.25:
  // the 80 open invoices (balance above zero, not cancelled) the first test pays.
  const sim = withSim({ scale: 0.25 });
  const target = withTargets(engine);

  it('200 payments, 30% late writes: each paid exactly once within three ohs apply runs', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const invoices = openInvoices(sim());
    expect(invoices.length).toBeGreaterThan(80);
    // 200 payments over 80 invoices: two or three per invoice, so later ones wait for earlier ones.
    const rows = paymentRows(invoices, 200, 80, 100);
    const file = writeCsv(join(dir, 'late.csv'), ['InvoiceId', 'amountToPay'], rows);
    const plan = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);

    sim().resetStats();
    const paymentsBefore = sim().tables.Payment.size;
    sim().configure({
      lateWriteRate: 0.3,
      lateWriteOps: ['createPayment'],
      lateWriteMinMs: 100,
      lateWriteMaxMs: 800,
    });
    let runs = 0;
    let last = '';
    for (; runs < 3; runs++) {
      const r = await runOhs(['apply'], { cwd: dir, env, timeoutMs: 180_000 });
      last = r.stdout;
      expectPaidAtMostOnce(sim(), rows);
      if (r.code === 0) break;
      expect(r.code, r.stderr).toBe(5);
    }
    sim().configure({ lateWriteRate: 0 });
    expect(sim().stats.lateWrites).toBeGreaterThan(30);
    // Every late write was answered 504 once and never sent again: POSTs = payments made.
    await new Promise((r) => setTimeout(r, 1000));
    const made = expectPaidAtMostOnce(sim(), rows);
    expect(sim().stats.byOperation.createPayment).toBe(sim().tables.Payment.size - paymentsBefore);

    const items = await withMirror(db, (m) => listOutbox(m));
    for (const [i, item] of items.entries()) {
      const cents = Math.round(Number(rows[i]?.[1]) * 100);
      if (item.state === 'applied') expect(made.get(cents), item.summary).toBe(1);
      else expect(item.state, `${item.summary}: ${last}`).toBe('unknown');
    }
    const unknown = items.filter((i) => i.state === 'unknown');
    const listed = await runOhs(['outbox', '--state', 'unknown', '--json'], { cwd: dir, env });
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(unknown.length);
    // The late writes were reconciled from the invoice read back, each read recorded on the item.
    const reconciled = items.filter((i) => i.resolution === 'reconciled');
    expect(reconciled.length).toBeGreaterThan(30);
    for (const item of reconciled) {
      const reads = JSON.parse(item.evidence ?? '[]') as { verdict: string; evidence: { balance: number } }[];
      expect(reads.at(-1)?.verdict).toBe('applied');
      expect(typeof reads.at(-1)?.evidence.balance).toBe('number');
    }
    expect(items.filter((i) => i.state === 'applied').length).toBeGreaterThanOrEqual(190);
  });

  it('slow writes past the client timeout are unknown, then settled as applied, never sent twice', async () => {
    const { dir, db } = workdir(sim().url, await target());
    configure(dir, { api: { timeoutMs: 1000 } });
    await syncStreams(sim(), db, ['invoice']);
    const rows = paymentRows(openInvoices(sim()).slice(0, 20), 20, 20, 1000);
    const file = writeCsv(join(dir, 'slow.csv'), ['InvoiceId', 'amountToPay'], rows);
    expect((await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env })).code).toBe(0);
    sim().resetStats();
    sim().configure({ slowWriteRate: 0.5, slowWriteOps: ['createPayment'], slowWriteMs: 3000 });
    const r = await runOhs(['apply'], { cwd: dir, env, timeoutMs: 120_000 });
    sim().configure({ slowWriteRate: 0 });
    expect(sim().stats.slowWrites).toBeGreaterThan(3);
    const made = expectPaidAtMostOnce(sim(), rows);
    for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
    expect(sim().stats.byOperation.createPayment).toBe(20);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/reconciled: balance dropped/);
  });
});
