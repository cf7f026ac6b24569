import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import {
  expectPaidAtMostOnce,
  openInvoices,
  paymentRows,
  syncStreams,
  withMirror,
  workdir,
  writeCsv,
} from '../helpers/writeback.js';

/**
 * Write-back on a PostgreSQL mirror: two `ohs apply` started together on 100 payments (two
 * processes, two connections, as two hosts would be): each payment made exactly once, the
 * other apply refused by the advisory lock.
 */
const env = { OHS_TOKEN: WRITE_TOKEN };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const newDatabase = withTargets('postgres');

describe.skipIf(!engines.includes('postgres'))('ohs apply on a PostgreSQL mirror', () => {
  const sim = withSim({ scale: 0.2 });

  it('two applies on 100 payments: paid exactly once, the other says LOCKED', async () => {
    const { dir } = workdir(sim().url);
    const db = await newDatabase();
    const local = join(dir, 'config', 'local.json');
    writeFileSync(local, JSON.stringify({ ...JSON.parse(readFileSync(local, 'utf8')), db }));
    await syncStreams(sim(), db, ['invoice']);
    const rows = paymentRows(openInvoices(sim()), 100, 60, 300);
    const file = writeCsv(join(dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], rows);
    const plan = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    sim().resetStats();
    sim().configure({ latencyMs: 200 });
    const both = [runOhs(['apply'], { cwd: dir, env }), runOhs(['apply'], { cwd: dir, env })];
    while ((sim().stats.byOperation.createPayment ?? 0) < 5) await sleep(50);
    const results = await Promise.all(both);
    sim().configure({ latencyMs: 0 });
    for (const r of results) expect([0, 6], r.stdout + r.stderr).toContain(r.code);
    const senders = results.filter((r) => /[1-9]\d* applied/.test(r.stdout));
    expect(senders, results.map((r) => r.stdout.slice(-300) + r.stderr).join('\n----\n')).toHaveLength(1);
    for (const r of results.filter((x) => x.code === 6))
      expect(r.stderr).toMatch(
        /LOCKED: another apply is running on postgres:\/\/ohs@[^ ]+ \(pid \d+ on .+, since \d{4}-/,
      );
    const made = expectPaidAtMostOnce(sim(), rows);
    for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
    expect(sim().stats.byOperation.createPayment).toBe(100);
    const items = await withMirror(db, (m) => listOutbox(m));
    expect(items.filter((i) => i.state === 'applied')).toHaveLength(100);
  }, 300_000);
});
