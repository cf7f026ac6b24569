import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listOutbox, type OutboxItem } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { call, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { openInvoices, syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/**
 * The check at the moment of sending, through the CLI against the sandbox: the balance `ohs apply`
 * reads just before a payment decides. A payment planned on two mirrors is paid once and held on
 * the second; an invoice paid elsewhere, cancelled or showing no balance between plan and apply
 * is not paid; `apply` ends with APPLY_HELD (exit 5); a held item is sent once when released.
 */
describeEngines('payments checked when sent (%s)', { timeout: 300_000 }, (engine) => {
  // A sandbox per engine: the checks count the sandbox's payments by invoice.
  const sim = withSim({ scale: 0.05 });
  const target = withTargets(engine);

  const paymentsOn = (invoice: string) =>
    sim()
      .truth()
      .Payment.filter((p) => String(p.InvoiceId) === invoice);
  const balanceOf = (invoice: string) => sim().tables.Invoice.get(invoice)?.balance;
  const hook = async (body: Record<string, unknown>) => {
    const r = await call(sim(), 'POST', '/__sim/invoice', body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  /** A synced mirror of its own in a folder of its own, and a plan of `rows` there. */
  const mirrorWithPlan = async (name: string, rows: (string | number)[][], flags: string[] = []) => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const file = writeCsv(join(dir, `${name}.csv`), ['InvoiceId', 'amountToPay'], rows);
    const plan = await runOhs(['plan', file, '--op', 'payment', '--yes', ...flags], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    return { dir, db };
  };
  const items = (db: string): Promise<OutboxItem[]> => withMirror(db, (m) => listOutbox(m));
  const unused = (() => {
    let next = 0;
    return () => {
      const open = openInvoices(sim()).filter((i) => i.balance >= 100 && paymentsOn(i.id).length === 0);
      const inv = open[next++];
      if (inv === undefined) throw new Error('no unused open invoice left');
      return inv;
    };
  })();

  it('the same payment planned on two mirrors: paid by the first, held by the second with both balances', async () => {
    const big = unused();
    const small = unused();
    const bigAmount = Math.floor(big.balance * 0.9);
    // Two clerks plan the same two payments; 10.00 leaves the balance above the amount.
    const rows = [
      [big.id, bigAmount],
      [small.id, 10],
    ];
    const one = await mirrorWithPlan('clerk-one', rows);
    const two = await mirrorWithPlan('clerk-two', rows);
    const first = await runOhs(['apply'], { cwd: one.dir, env });
    expect(first.code, first.stderr).toBe(0);
    const second = await runOhs(['apply'], { cwd: two.dir, env });
    expect(second.code, second.stdout).toBe(5);
    expect(second.stderr).toMatch(/^ohs: APPLY_HELD: 2 held \(not sent: see ohs outbox --state held/m);
    expect(paymentsOn(big.id)).toHaveLength(1);
    expect(paymentsOn(small.id)).toHaveLength(1);

    const held = await items(two.db);
    expect(held.map((i) => i.state)).toEqual(['held', 'held']);
    expect(Number(held[0]?.balance_planned)).toBeCloseTo(big.balance, 2);
    expect(Number(held[0]?.balance_before)).toBeCloseTo(big.balance - bigAmount, 2);
    expect(held[0]?.hold_reason).toContain(`fell to`);
    expect(Number(held[1]?.balance_before)).toBeCloseTo(small.balance - 10, 2);
    const listed = await runOhs(['outbox', '--state', 'held'], { cwd: two.dir, env });
    expect(listed.stdout).toContain(
      `balance ${big.balance.toFixed(2)} planned, ${(big.balance - bigAmount).toFixed(2)} read now`,
    );
    expect(listed.stdout).toContain(`ohs apply --release ${held[0]?.id}`);
    // Run again: still held, still paid once, still exit 5.
    const again = await runOhs(['apply'], { cwd: two.dir, env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to send');
    expect(paymentsOn(big.id)).toHaveLength(1);
  });

  it('paid elsewhere, cancelled, no balance: none paid; a released one is paid once', async () => {
    const [paid, cancelled, nullBalance] = [unused(), unused(), unused()];
    const { dir, db } = await mirrorWithPlan('between', [
      [paid.id, 40],
      [cancelled.id, 40],
      [nullBalance.id, 40],
    ]);
    await hook({ action: 'balance', id: paid.id, balance: 0 });
    await hook({ action: 'cancel', id: cancelled.id });
    await hook({ action: 'balance', id: nullBalance.id, balance: null });
    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stdout).toBe(5);
    expect(r.stderr).toMatch(/APPLY_HELD: 3 held/);
    for (const inv of [paid, cancelled, nullBalance]) expect(paymentsOn(inv.id)).toHaveLength(0);
    const held = await items(db);
    expect(held.map((i) => i.state)).toEqual(['held', 'held', 'held']);
    expect(held[0]?.hold_reason).toMatch(/fell to 0\.00 from/);
    expect(held[1]?.hold_reason).toMatch(/was cancelled since the plan/);
    expect(held[2]?.hold_reason).toMatch(/shows no balance \(null, not read as 0\)/);
    expect(held[2]?.balance_before).toBeNull();

    // The cancellation was a mistake, and the payment is meant: released, sent once.
    await hook({ action: 'restore', id: cancelled.id });
    const released = await runOhs(['apply', '--release', String(held[1]?.id)], { cwd: dir, env });
    expect(released.code, released.stderr).toBe(0);
    expect(paymentsOn(cancelled.id)).toHaveLength(1);
    const after = await items(db);
    expect(after[1]).toMatchObject({ state: 'applied', resolution: 'released' });
    expect(after[1]?.released_at).not.toBeNull();
    expect((await runOhs(['apply'], { cwd: dir, env })).code).toBe(0);
    expect(paymentsOn(cancelled.id)).toHaveLength(1);
    // Only a held item is released; one not wanted any more is abandoned and never sent.
    const wrong = await runOhs(['apply', '--release', String(held[1]?.id)], { cwd: dir, env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/OUTBOX_ITEM: outbox item \d+ is applied: only held items can be released/);
    const abandon = await runOhs(['outbox', 'resolve', String(held[0]?.id), '--abandon'], { cwd: dir, env });
    expect(abandon.code, abandon.stderr).toBe(0);
    expect((await items(db))[0]?.state).toBe('abandoned');
    expect(paymentsOn(paid.id)).toHaveLength(0);
  });

  it('an invoice the plan already flagged cancelled: held, said as the plan knew it, never "cancelled since"', async () => {
    const known = unused();
    await hook({ action: 'cancel', id: known.id });
    const { dir, db } = await mirrorWithPlan('known', [[known.id, 40]]);
    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stdout).toBe(5);
    expect(paymentsOn(known.id)).toHaveLength(0);
    const [item] = await items(db);
    expect(JSON.parse(item?.flags ?? '[]')).toContain('invoice cancelled');
    expect(item?.hold_reason).toMatch(
      new RegExp(`^invoice ${known.id} is cancelled, as the plan flagged it`),
    );
    const said = `${r.stdout}${r.stderr}${item?.hold_reason ?? ''}`;
    expect(said).not.toMatch(/cancelled since/);
    await hook({ action: 'restore', id: known.id });
  });

  it('--allow-overpayment holds only while the balance is the one planned against', async () => {
    const [same, moved] = [unused(), unused()];
    const { dir, db } = await mirrorWithPlan(
      'over',
      [
        [same.id, (same.balance + 50).toFixed(2)],
        [moved.id, (moved.balance + 50).toFixed(2)],
      ],
      ['--allow-overpayment'],
    );
    // A late fee lands on the second: its balance is not the one the overpayment was meant on.
    await hook({ action: 'lateFee', id: moved.id, amount: 10 });
    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stdout).toBe(5);
    expect(paymentsOn(same.id)).toHaveLength(1);
    expect(Number(balanceOf(same.id))).toBeCloseTo(-50, 2);
    expect(paymentsOn(moved.id)).toHaveLength(0);
    const [a, b] = await items(db);
    expect(a?.state).toBe('applied');
    expect(b?.state).toBe('held');
    expect(b?.hold_reason).toContain(
      `is ${(moved.balance + 10).toFixed(2)} (${moved.balance.toFixed(2)} when planned)`,
    );
  });

  it('a held item planned again after a sync is checked again and queued with the new balance', async () => {
    const inv = unused();
    const { dir, db } = await mirrorWithPlan('replan', [[inv.id, 60]]);
    await hook({ action: 'balance', id: inv.id, balance: 50 });
    expect((await runOhs(['apply'], { cwd: dir, env })).code).toBe(5);
    const [held] = await items(db);
    expect(held?.state).toBe('held');
    // The clerk syncs and plans the file again: 60 is above 50 now, so the file is refused...
    await syncStreams(sim(), db, ['invoice']);
    const refused = await runOhs(['plan', join(dir, 'replan.csv'), '--op', 'payment'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    // ...until the service shows the balance it was meant for again.
    await hook({ action: 'balance', id: inv.id, balance: 75 });
    await syncStreams(sim(), db, ['invoice']);
    const plan = await runOhs(['plan', join(dir, 'replan.csv'), '--op', 'payment'], { cwd: dir, env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`held #${held?.id} planned again`);
    expect((await runOhs(['apply'], { cwd: dir, env })).code).toBe(0);
    expect(paymentsOn(inv.id)).toHaveLength(1);
    expect(Number(balanceOf(inv.id))).toBeCloseTo(15, 2);
  });
});
