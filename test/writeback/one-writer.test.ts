import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { copyMirrorInto, displayBaseUrl, machineLock } from '../../src/mirror/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { listOutbox, planFile, planSettings } from '../../src/writeback/index.js';
import { type CliResult, runOhs } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { configure, openInvoices, syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

/**
 * One writer per service. Two copies of one synced mirror plan the same 16 payments
 * and both `ohs apply` start together, against the sandbox at 30 ms latency, ROUNDS times: the
 * sandbox's own payments (not our outboxes) show each paid exactly once, and no run exits 0 over
 * a conflict. Then the same with the two applies as two machines (a state directory each, two
 * files or two databases: no lock can see both): what no client can prevent is detected, every
 * invoice paid twice has a conflict on an item, and its apply did not exit 0. And the locks
 * themselves: the machine's and PostgreSQL's lock of the service, and a release refused by them.
 */
// 10 rounds (the figure) take about 2.5 min per engine on a loaded 2-core machine (13 s a round,
// two CLI applies each): the suite runs 3, OHS_ONE_WRITER_ROUNDS=10 the full count.
const ROUNDS = Number(process.env.OHS_ONE_WRITER_ROUNDS ?? 3);
const env = { OHS_TOKEN: WRITE_TOKEN };
const settings = { ...planSettings(defaults), confirm: async () => true, op: 'payment' as const };

/** Payments the sandbox's own ledger holds, by invoice and amount in cents (`invoice:cents`). */
function ledger(sim: RunningSim): Map<string, number> {
  const made = new Map<string, number>();
  for (const p of sim.truth().Payment) {
    const key = `${String(p.InvoiceId)}:${Math.round(Number(p.amountToPay) * 100)}`;
    made.set(key, (made.get(key) ?? 0) + 1);
  }
  return made;
}
const keyOf = ([invoice, amount]: (string | number)[]) =>
  `${String(invoice)}:${Math.round(Number(amount) * 100)}`;

describeEngines('one writer per service (%s)', { timeout: 600_000 }, (engine) => {
  /** Another payer, armed by a test: pays an invoice the moment the sandbox answers our payment. */
  let otherPayer: (() => void) | undefined;
  // Scale 0.25: 80 open invoices, 16 fresh ones a round.
  const sim = withSim({
    scale: 0.25,
    onRequest: (info) => {
      if (info.method === 'POST' && info.path.endsWith('/action/core/payment')) otherPayer?.();
    },
  });
  const target = withTargets(engine);
  /** A folder of its own for a "machine": its own state directory, hence its own machine lock. */
  const machine = () => ({ ...env, OHS_STATE_DIR: mkdtempSync(join(tmpdir(), 'ohs-state-')) });
  let nextCents = 100;

  /** A mirror of the sandbox's invoices, synced once: each round's mirrors start as copies of it. */
  let golden: string | undefined;

  /**
   * Mirror A (a copy of the synced one, its invoices of `rows` as the service shows them now, as a
   * sync would write them) and the payments planned on it; mirror B a copy of A, outbox included:
   * two copies of one synced mirror, each in a folder of its own, with the same items queued.
   */
  async function twoCopies(rows: (string | number)[][], copies = 2) {
    if (golden === undefined) {
      const g = await target();
      await syncStreams(sim(), g, ['invoice']);
      golden = g;
    }
    const a = workdir(sim().url, await target());
    const invoices = [...new Set(rows.map((r) => String(r[0])))].flatMap((id) => {
      const inv = sim().tables.Invoice.get(id);
      return inv === undefined ? [] : [inv];
    });
    const file = writeCsv(join(a.dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], rows);
    await withMirror(golden, (from) =>
      withMirror(a.db, async (to) => {
        await copyMirrorInto(from, to);
        await to.write((w) => w.upsert('Invoice', invoices, { now: new Date().toISOString() }));
        await planFile(to, file, settings);
      }),
    );
    if (copies === 1) return { a, b: a };
    const b = workdir(sim().url, await target());
    await withMirror(a.db, (from) => withMirror(b.db, (to) => copyMirrorInto(from, to)));
    return { a, b };
  }

  /** 16 payments of distinct amounts on `n` open invoices not paid by this file before. */
  function payments(used: Set<string>, n: number): (string | number)[][] {
    const fresh = openInvoices(sim()).filter((i) => i.balance > 40 && !used.has(i.id));
    const invoices = fresh.slice(0, n);
    if (invoices.length < n) throw new Error('not enough open invoices left');
    for (const i of invoices) used.add(i.id);
    return Array.from({ length: 16 }, (_, k) => [invoices[k % n]?.id ?? '', (nextCents++ / 100).toFixed(2)]);
  }

  const conflicted = (r: CliResult) => /CONFLICT/.test(r.stdout) || /APPLY_CONFLICT/.test(r.stderr);

  it(`two copies of one mirror apply the same 16 payments at once, ${ROUNDS} rounds at 30 ms: each paid once, no conflict passes`, async () => {
    const exits: string[] = [];
    const started = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      // The same 16 invoices each round (A is synced anew: its plan counts on today's balances).
      const rows = payments(new Set(), 16);
      const { a, b } = await twoCopies(rows);
      const before = ledger(sim());
      sim().configure({ latencyMs: 30 });
      const runs = await Promise.all([a.dir, b.dir].map((cwd) => runOhs(['apply'], { cwd, env })));
      sim().configure({ latencyMs: 0 });
      const made = ledger(sim());
      for (const row of rows) {
        const key = keyOf(row);
        // Exactly once, by the sandbox's own ledger: one run paid it, the other was refused or held it.
        expect((made.get(key) ?? 0) - (before.get(key) ?? 0), `round ${round}: ${row.join(' ')}`).toBe(1);
      }
      const shown = runs.map((r) => `${r.code}: ${r.stdout.slice(-400)}${r.stderr}`).join('\n---\n');
      for (const r of runs) {
        expect([0, 5, 6], shown).toContain(r.code);
        if (conflicted(r)) expect(r.code, shown).not.toBe(0);
      }
      // One sender; the other found the service's lock held (6) or, started after, the balances
      // fallen since its plan (5, held): never a second payment.
      expect(
        runs.filter((r) => r.code === 0),
        shown,
      ).toHaveLength(1);
      for (const r of runs.filter((x) => x.code === 6))
        expect(r.stderr).toMatch(
          /LOCKED: another apply to \S+ is running on this machine.*\(pid \d+ on .+, since \d{4}-/,
        );
      exits.push(runs.map((r) => r.code).join('/'));
    }
    console.log(
      `one writer, ${engine}: ${ROUNDS} rounds in ${Math.round((Date.now() - started) / 1000)} s, exits per round ${exits.join(' ')}`,
    );
  });

  it('two machines (a state directory and a mirror each): every invoice paid twice is a conflict, never exit 0', async () => {
    const used = new Set<string>();
    let doubles = 0;
    for (let round = 0; round < 3 && doubles === 0; round++) {
      // A payment's read, send and read back take 2.4 s here: two applies started together overlap.
      const rows = payments(used, 16);
      const { a, b } = await twoCopies(rows);
      const before = ledger(sim());
      sim().configure({ latencyMs: 800 });
      const runs = await Promise.all(
        [a.dir, b.dir].map((cwd) => runOhs(['apply'], { cwd, env: machine(), timeoutMs: 120_000 })),
      );
      sim().configure({ latencyMs: 0 });
      const shown = runs.map((r) => `${r.code}: ${r.stdout}${r.stderr}`).join('\n---\n');
      const items = [
        ...(await withMirror(a.db, (m) => listOutbox(m))),
        ...(await withMirror(b.db, (m) => listOutbox(m))),
      ];
      const made = ledger(sim());
      for (const row of rows) {
        const [invoice, amount] = row;
        const times = (made.get(keyOf(row)) ?? 0) - (before.get(keyOf(row)) ?? 0);
        if (times < 2) continue;
        doubles++;
        // No client prevents it here; the read-back of the balance names it on an item of that invoice.
        const flagged = items.filter(
          (i) => i.state === 'conflict' && String(JSON.parse(i.body).InvoiceId) === String(invoice),
        );
        expect(flagged.length, `${amount} on ${invoice} paid ${times} times:\n${shown}`).toBeGreaterThan(0);
      }
      for (const r of runs) if (conflicted(r)) expect(r.code, shown).toBe(5);
      expect(
        runs.some((r) => r.code === 6),
        shown,
      ).toBe(false);
      if (items.some((i) => i.state === 'conflict'))
        expect(
          runs.some((r) => /APPLY_CONFLICT: \d+ conflict/.test(r.stderr)),
          shown,
        ).toBe(true);
    }
    // The case is reached: without a shared lock the two machines did pay twice (and it was seen).
    expect(doubles).toBeGreaterThan(0);
  });

  it('the machine lock of the service refuses an apply of any mirror of it, and a release with it', async () => {
    const inv = openInvoices(sim()).find((i) => i.balance > 20 && i.balance < 500);
    if (inv === undefined) throw new Error('no open invoice');
    const { a } = await twoCopies([[inv.id, (inv.balance - 5).toFixed(2)]], 1);
    const paidBefore = sim()
      .truth()
      .Payment.filter((p) => String(p.InvoiceId) === inv.id).length;
    const state = machine();
    // The balance falls below the amount: the apply holds the payment.
    const set = await call(sim(), 'POST', '/__sim/invoice', {
      action: 'balance',
      id: inv.id,
      balance: 10.64,
    });
    expect(set.status).toBe(200);
    const held = await runOhs(['apply'], { cwd: a.dir, env: state });
    expect(held.code, held.stdout + held.stderr).toBe(5);
    const [item] = await withMirror(a.db, (m) => listOutbox(m));
    expect(item?.state).toBe('held');
    const id = String(item?.id);

    // Another apply of this service holds the machine's lock (this test process, as another mirror would).
    const lock = await machineLock(
      `apply ${displayBaseUrl(sim().url)}`,
      (h) => `held (${h})`,
      state.OHS_STATE_DIR,
    );
    let refused: CliResult;
    try {
      refused = await runOhs(['apply', '--release', id], { cwd: a.dir, env: state });
    } finally {
      await lock.release();
    }
    expect(refused.code, refused.stderr).toBe(6);
    expect(refused.stderr).toMatch(
      new RegExp(
        `LOCKED: another apply to ${displayBaseUrl(sim().url)} is running on this machine.*\\(pid ${process.pid} on `,
      ),
    );
    // Refused by the lock: nothing was released, and a plain apply later does not send it.
    const [after] = await withMirror(a.db, (m) => listOutbox(m));
    expect(after).toMatchObject({ state: 'held', released_at: null, released_by: null });
    const plain = await runOhs(['apply'], { cwd: a.dir, env: state });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('nothing to send');
    // Released: still not above the balance read when it leaves; held again at the apply's end.
    const released = await runOhs(['apply', '--release', id], { cwd: a.dir, env: state });
    expect(released.code, released.stdout).toBe(5);
    expect(released.stdout).toContain('below the amount');
    expect(released.stdout).toContain('a release sends it only with --allow-overpayment');
    const paidOn = () =>
      sim()
        .truth()
        .Payment.filter((p) => String(p.InvoiceId) === inv.id)
        .slice(paidBefore);
    expect(paidOn()).toHaveLength(0);
    expect((await withMirror(a.db, (m) => listOutbox(m)))[0]?.state).toBe('held');
    // With --allow-overpayment given with the release: sent, once, and who released it recorded.
    const meant = await runOhs(['apply', '--release', id, '--allow-overpayment'], { cwd: a.dir, env: state });
    expect(meant.code, meant.stdout + meant.stderr).toBe(0);
    expect(paidOn()).toHaveLength(1);
    const [done] = await withMirror(a.db, (m) => listOutbox(m));
    expect(done).toMatchObject({ state: 'applied', resolution: 'released, overpayment allowed' });
    expect(done?.released_by).toMatch(/ \(\d+@\S+ \w+\)$/);
    expect((await runOhs(['apply', '--allow-overpayment'], { cwd: a.dir, env: state })).code).toBe(2);
  });

  it('a balance read back that is not the payment alone: conflict, the push job fails with it, its notice and the dashboard show it', async () => {
    const inv = openInvoices(sim()).find((i) => i.balance > 60);
    if (inv === undefined) throw new Error('no open invoice');
    const { a } = await twoCopies([[inv.id, '12.34']], 1);
    const noticeFile = join(a.dir, 'notice.json');
    const notify = [
      process.execPath,
      '-e',
      `require('fs').writeFileSync(${JSON.stringify(noticeFile)}, require('fs').readFileSync(0))`,
    ];
    configure(a.dir, {
      monitor: { notify: { command: notify, webhook: null, onSuccess: false, timeoutMs: 10_000 } },
    });
    // Another machine pays 12.34 on the invoice just as the service answers ours.
    otherPayer = () => {
      otherPayer = undefined;
      const now = Number(sim().tables.Invoice.get(inv.id)?.balance);
      sim().tables.Invoice.update(inv.id, { balance: Math.round((now - 12.34) * 100) / 100 });
    };
    const r = await runOhs(['run', 'push'], { cwd: a.dir, env });
    otherPayer = undefined;
    expect(r.code, r.stdout + r.stderr).not.toBe(0);
    const [item] = await withMirror(a.db, (m) => listOutbox(m));
    expect(item?.state).toBe('conflict');
    expect(item?.error).toMatch(
      /read back, expected .*: paid twice \(by another mirror or machine\?\) or changed upstream/,
    );
    const notice = JSON.parse(readFileSync(noticeFile, 'utf8')) as {
      errorCode: string;
      outbox: Record<string, number>;
    };
    expect(notice.errorCode).toBe('APPLY_CONFLICT');
    expect(notice.outbox).toEqual({ conflict: 1, held: 0, unknown: 0, failed: 0 });
    const out = join(a.dir, 'out');
    const dash = await runOhs(['dashboard', '--out', out], { cwd: a.dir, env });
    expect(dash.code, dash.stderr).toBe(0);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toMatch(
      /id="outbox".*Action needed.*Write-back: 1 in conflict/s,
    );
    // A person checked the invoice upstream: the item is settled, and the line goes.
    const listed = await runOhs(['outbox', '--state', 'conflict'], { cwd: a.dir, env });
    expect(listed.stdout).toContain('read back, expected');
    const ok = await runOhs(['outbox', 'resolve', String(item?.id), '--applied'], { cwd: a.dir, env });
    expect(ok.code, ok.stderr).toBe(0);
    await runOhs(['dashboard', '--out', out], { cwd: a.dir, env });
    expect(readFileSync(join(out, 'index.html'), 'utf8')).not.toContain('id="outbox"');
  });

  it.runIf(engine === 'postgres')(
    "PostgreSQL: the database's lock of the service refuses an apply from another machine",
    async () => {
      const inv = openInvoices(sim()).find((i) => i.balance > 20);
      const { a } = await twoCopies([[inv?.id ?? '', '1.23']], 1);
      const name = `apply ${displayBaseUrl(sim().url)}`;
      const paid = sim().truth().Payment.length;
      await withMirror(a.db, async (m) => {
        // Held by this process on the database, as an apply of another schema, from another host, would.
        const lock = await m.sharedLock(name, (h) => `held (${h})`);
        try {
          const r = await runOhs(['apply'], { cwd: a.dir, env: machine() });
          expect(r.code, r.stderr).toBe(6);
          expect(r.stderr).toMatch(
            /LOCKED: another apply to \S+ is running against .* from a mirror of the same database \(pid \d+ on /,
          );
        } finally {
          await lock?.release();
        }
      });
      expect(sim().truth().Payment.length).toBe(paid);
      const r = await runOhs(['apply'], { cwd: a.dir, env: machine() });
      expect(r.code, r.stderr).toBe(0);
      expect(sim().truth().Payment.length).toBe(paid + 1);
    },
  );
});
