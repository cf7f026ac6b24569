import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Mirror, openMirror } from '../../src/mirror/index.js';
import { Claims, listOutbox } from '../../src/writeback/index.js';
import { type CliResult, OHS_BIN, runOhs } from '../helpers/cli.js';
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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts `ohs apply` in a folder; `done` resolves with its exit and output. */
function startApply(cwd: string): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [OHS_BIN, 'apply'], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const done = once(child, 'close').then(([code]) => ({ code: code as number | null, stdout, stderr }));
  return { child, done };
}

/**
 * Two claimants of the outbox of `db` on two connections of their own (as two processes have),
 * closed after `fn`; `a` also serves the test's reads.
 */
async function withTwoClaimants(
  db: string,
  fn: (a: Mirror, claimants: [Claims, Claims]) => Promise<void>,
): Promise<void> {
  const [a, b] = [await openMirror(db), await openMirror(db)];
  try {
    const now = () => new Date().toISOString();
    await fn(a, [new Claims(a, '1@a r1', 'r1', now), new Claims(b, '2@b r2', 'r2', now)]);
  } finally {
    await a.close();
    await b.close();
  }
}

/**
 * Overlapping applies and SIGKILLs: exactly once, checked against the sandbox's own truth, on
 * each engine. A sandbox per engine: the checks count payments by amount over the whole sandbox.
 */
describe.concurrent.each(engines)('overlapping applies and kills (%s)', (engine) => {
  let killAfter: (() => void) | undefined;
  // Scale 0.25: the 80 open invoices (balance above zero, not cancelled) the kill test pays.
  const sim = withSim({ scale: 0.25, onRequest: () => killAfter?.() });
  const target = withTargets(engine);

  // The engines run at once, each with its own sandbox (the tests mostly wait on slow answers
  // and child processes); an engine's tests run in turn, since they configure its sandbox.
  describe.sequential('in turn', () => {
    it('a claim is one conditional update: of two processes claiming one item, exactly one wins', async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice']);
      const file = writeCsv(
        join(dir, 'one.csv'),
        ['InvoiceId', 'amountToPay'],
        paymentRows(openInvoices(sim()), 1),
      );
      expect((await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env })).code).toBe(0);
      await withTwoClaimants(db, async (a, claimants) => {
        const [item] = await listOutbox(a);
        if (item === undefined) throw new Error('nothing planned');
        const wins = await Promise.all(
          claimants.map((c) => c.claim({ ...item }, { balance: 1 }, { method: 'POST', path: '/x' })),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
        const [after] = await listOutbox(a);
        expect(after).toMatchObject({ state: 'sending', attempts: 1 });
        expect(after?.claimed_by).toBe(wins[0] ? '1@a r1' : '2@b r2');
      });
    });

    it('two claimants on two connections racing over 100 items: each item claimed once, by one of them', async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice']);
      const file = writeCsv(
        join(dir, 'race.csv'),
        ['InvoiceId', 'amountToPay'],
        // Invoices whose balance the amounts cannot look like cents of (plan refuses those).
        paymentRows(
          openInvoices(sim()).filter((i) => i.balance > 20),
          100,
          50,
          1300,
        ),
      );
      const planned = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(planned.code, planned.stderr).toBe(0);
      await withTwoClaimants(db, async (a, claimants) => {
        const items = await listOutbox(a);
        expect(items).toHaveLength(100);
        // One in id order, the other in reverse, several claims in flight each: they meet midway.
        const race = (c: Claims, order: typeof items) =>
          Promise.all(
            order.map((item) => c.claim({ ...item }, { balance: 1 }, { method: 'POST', path: '/x' })),
          );
        const [wonA, wonB] = await Promise.all([
          race(claimants[0], items),
          race(claimants[1], [...items].reverse()),
        ]);
        const byA = new Set(items.filter((_, i) => wonA[i]).map((i) => i.id));
        const byB = new Set(
          [...items]
            .reverse()
            .filter((_, i) => wonB[i])
            .map((i) => i.id),
        );
        expect(byA.size + byB.size).toBe(100);
        for (const id of byA) expect(byB.has(id), `item ${id} claimed twice`).toBe(false);
        const after = await listOutbox(a);
        for (const item of after) {
          expect(item).toMatchObject({ state: 'sending', attempts: 1 });
          expect(item.claimed_by).toBe(byA.has(item.id) ? '1@a r1' : '2@b r2');
        }
      });
    });

    it('two ohs apply started together on 100 payments, a third while they run: paid exactly once, the others say LOCKED', async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice']);
      const rows = paymentRows(openInvoices(sim()), 100, 60, 300);
      const file = writeCsv(join(dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], rows);
      expect((await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env })).code).toBe(0);
      sim().resetStats();
      sim().configure({ latencyMs: 300 });
      const first = [runOhs(['apply'], { cwd: dir, env }), runOhs(['apply'], { cwd: dir, env })];
      const until = Date.now() + 120_000;
      while ((sim().stats.byOperation.createPayment ?? 0) < 10 && Date.now() < until) await sleep(50);
      const third = runOhs(['apply'], { cwd: dir, env });
      // While an apply runs, the outbox can be listed and another file planned.
      const listed = await runOhs(['outbox', '--state', 'sending'], { cwd: dir, env });
      const other = writeCsv(
        join(dir, 'other.csv'),
        ['InvoiceId', 'amountToPay'],
        paymentRows(openInvoices(sim()), 1, 1, 800),
      );
      const planned = await runOhs(['plan', other, '--op', 'payment'], { cwd: dir, env });
      const results = await Promise.all([...first, third]);
      sim().configure({ latencyMs: 0 });
      expect(listed.code, listed.stderr).toBe(0);
      expect(planned.code, planned.stderr).toBe(0);

      for (const r of results) expect([0, 6], r.stdout + r.stderr).toContain(r.code);
      // One apply sent everything; each other one was refused by the lock (or, started after, found nothing).
      const senders = results.filter((r) => /[1-9]\d* applied/.test(r.stdout));
      expect(senders, results.map((r) => r.stdout.slice(-300) + r.stderr).join('\n----\n')).toHaveLength(1);
      const locked = results.filter((r) => r.code === 6);
      expect(locked.length).toBeGreaterThanOrEqual(1);
      for (const r of results)
        if (r !== senders[0] && r.code === 0) expect(r.stdout).toContain('nothing to send');
      for (const r of locked)
        expect(r.stderr).toMatch(/LOCKED: another apply is running on .* \(pid \d+ on .+, since \d{4}-/);
      const made = expectPaidAtMostOnce(sim(), rows);
      for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
      expect(sim().stats.byOperation.createPayment).toBe(100);
      const items = await withMirror(db, (m) => listOutbox(m));
      expect(items.filter((i) => i.state === 'applied')).toHaveLength(100);
    }, 300_000);

    it('two workers (two folders, one mirror) applying 100 payments, the sender SIGKILLed, the other takes over: each payment reaches the sandbox once', async () => {
      // Two working folders, as two hosts would have, naming the same mirror.
      const a = workdir(sim().url, await target());
      const b = workdir(sim().url, a.db);
      for (const w of [a, b]) configure(w.dir, { writeback: { settleMs: 300 } });
      await syncStreams(sim(), a.db, ['invoice']);
      const rows = paymentRows(
        openInvoices(sim()).filter((i) => i.balance > 20),
        100,
        50,
        1100,
      );
      const file = writeCsv(join(a.dir, 'two.csv'), ['InvoiceId', 'amountToPay'], rows);
      const planned = await runOhs(['plan', file, '--op', 'payment'], { cwd: a.dir, env });
      expect(planned.code, planned.stderr).toBe(0);
      sim().resetStats();
      const paymentsBefore = sim().tables.Payment.size;
      sim().configure({ latencyMs: 200 });
      const started = [a, b].map((w) => ({ w, ...startApply(w.dir) }));
      // The one refused by the apply lock exits 6 at once; the other one is sending.
      const loser = await Promise.race(started.map((s) => s.done.then(() => s)));
      const winner = started.find((s) => s !== loser);
      if (winner === undefined) throw new Error('two workers expected');
      const refused = await loser.done;
      expect(refused.code, refused.stdout + refused.stderr).toBe(6);
      expect(refused.stderr).toMatch(/LOCKED: another apply is running on .* \(pid \d+ on .+, since \d{4}-/);
      const until = Date.now() + 120_000;
      while ((sim().stats.byOperation.createPayment ?? 0) < 30 && Date.now() < until) await sleep(20);
      winner.child.kill('SIGKILL');
      await winner.done;
      sim().configure({ latencyMs: 0 });
      const sent = sim().stats.byOperation.createPayment ?? 0;
      expect(sent).toBeGreaterThanOrEqual(30);
      expect(sent).toBeLessThan(100);
      expectPaidAtMostOnce(sim(), rows);

      // The other worker takes over (the dead sender's lock is gone with it), until all is settled:
      // what the kill left in flight is read back, sent again only when not made.
      let last: CliResult | undefined;
      for (let run = 0; run < 8 && last?.code !== 0; run++) {
        last = await runOhs(['apply'], { cwd: loser.w.dir, env, timeoutMs: 120_000 });
        // A server may take a moment to notice the killed sender's connection (and its lock) gone.
        if (last.code === 6 && run < 2) {
          await sleep(500);
          continue;
        }
        expect([0, 5], last.stdout + last.stderr).toContain(last.code);
        expectPaidAtMostOnce(sim(), rows);
      }
      expect(last?.code, last?.stdout).toBe(0);
      const again = await runOhs(['apply'], { cwd: winner.w.dir, env });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain('nothing to send');

      const made = expectPaidAtMostOnce(sim(), rows);
      for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
      // The sandbox received each payment once: as many POSTs as payments made, 100 of them.
      expect(sim().stats.byOperation.createPayment).toBe(100);
      expect(sim().tables.Payment.size - paymentsBefore).toBe(100);
      const items = await withMirror(a.db, (m) => listOutbox(m));
      expect(items.map((i) => i.state)).toEqual(Array(100).fill('applied'));
    }, 300_000);

    it('SIGKILL at ten random points of 200 payments with 20% lost replies, then reruns: each paid exactly once', async () => {
      const { dir, db } = workdir(sim().url, await target());
      configure(dir, { writeback: { settleMs: 500 } });
      await syncStreams(sim(), db, ['invoice']);
      // Balances above 20: an invoice's three payments here (5.00 to 6.99 each) stay within what the
      // tests before paid left of it (plan refuses an overpayment).
      const invoices = openInvoices(sim()).filter((i) => i.balance > 20);
      expect(invoices.length).toBeGreaterThanOrEqual(80);
      const rows = paymentRows(invoices, 200, 80, 500);
      const file = writeCsv(join(dir, 'kill.csv'), ['InvoiceId', 'amountToPay'], rows);
      const planned = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(planned.code, planned.stderr).toBe(0);
      sim().configure({ faultRate: 0.2, faultKinds: ['lostReply'] });
      let seed = 7;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      let orphans = 0;
      for (let k = 0; k < 10; k++) {
        const start = sim().stats.requests;
        const after = 5 + Math.floor(random() * 60);
        const child = spawn(process.execPath, [OHS_BIN, 'apply'], {
          cwd: dir,
          env: { ...process.env, ...env },
          stdio: 'ignore',
        });
        killAfter = () => {
          if (sim().stats.requests - start >= after) child.kill('SIGKILL');
        };
        await once(child, 'exit');
        killAfter = undefined;
        expectPaidAtMostOnce(sim(), rows);
        orphans += await withMirror(db, async (m) => (await listOutbox(m, 'sending')).length);
      }
      expect(orphans).toBeGreaterThan(0);
      let reruns = 0;
      for (; reruns < 10; reruns++) {
        const r = await runOhs(['apply'], { cwd: dir, env, timeoutMs: 180_000 });
        expectPaidAtMostOnce(sim(), rows);
        if (r.code === 0) break;
      }
      sim().configure({ faultRate: 0 });
      const made = expectPaidAtMostOnce(sim(), rows);
      for (const [, amount] of rows) expect(made.get(Math.round(Number(amount) * 100))).toBe(1);
      const items = await withMirror(db, (m) => listOutbox(m));
      expect(items.every((i) => i.state === 'applied')).toBe(true);
      // Items killed in sending became unknown and were settled by evidence read back and recorded.
      const settled = items.filter((i) => i.evidence !== null);
      expect(settled.length).toBeGreaterThan(0);
      expect(
        items.some((i) => (i.error ?? '').includes('stopped before the answer') || i.evidence !== null),
      ).toBe(true);
    }, 900_000);
  });
});
