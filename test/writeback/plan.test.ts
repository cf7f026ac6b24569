import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox, opNames, ops } from '../../src/writeback/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { openInvoices, syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

describe('ohs plan', () => {
  // One sandbox for both engines: these tests only plan, never apply.
  const sim = withSim({ scale: 0.1 });
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('rejects a file with bad rows whole, listing every error as file:row: field: message; the outbox stays empty', async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice']);
      const inv = openInvoices(sim())[0]?.id ?? '';
      const file = join(dir, 'bad.csv');
      writeFileSync(
        file,
        [
          'op,id,InvoiceId,amountToPay,nameFirst,nameLast,OrgId,staff,colour',
          `payment,,${inv},12.50,,,,,`, // fine
          'payment,,,-3,,,,,', // no invoice, negative amount
          'payment,,999999999,abc,,,,,', // unknown... and not a number
          'person.create,,,,Ann,,12.5,not json,', // no nameLast, OrgId not whole, staff not JSON
          'person.update,,,,Bob,,,,', // no id
          'teleport,,,,,,,,', // unknown op
          `payment,7,${inv},1.234,,,,,blue`, // id on a create, 3 decimals, unknown column
          '',
        ].join('\n'),
      );
      const r = await runOhs(['plan', file], { cwd: dir, env });
      expect(r.code).toBe(2);
      const lines = r.stderr.split('\n').map((l) => l.trim());
      expect(r.stderr).toMatch(/INPUT_INVALID: .*problem\(s\), nothing planned/);
      for (const expected of [
        `${file}:1: colour: unknown column`,
        `${file}:3: InvoiceId: required`,
        `${file}:3: amountToPay: must be greater than 0`,
        `${file}:4: amountToPay: "abc" is not an amount: digits, an optional point and at most two decimals`,
        `${file}:5: nameLast: required`,
        `${file}:5: OrgId: expected a whole number`,
        `${file}:5: staff: expected a JSON array of objects`,
        `${file}:6: id: required`,
        `${file}:7: op: 'teleport' is not one of`,
        `${file}:8: id: not used by payment`,
        `${file}:8: amountToPay: "1.234" is not an amount`,
      ]) {
        expect(
          lines.some((l) => l.startsWith(expected)),
          `${expected}\n${r.stderr}`,
        ).toBe(true);
      }
      expect(lines.some((l) => l.startsWith(`${file}:2:`))).toBe(false);
      expect(await withMirror(db, (m) => listOutbox(m))).toEqual([]);

      // A payment on an invoice the mirror does not know is refused too (the file with it).
      const unknown = writeCsv(
        join(dir, 'unknown.csv'),
        ['InvoiceId', 'amountToPay'],
        [
          [inv, 5],
          ['999999999', 5],
        ],
      );
      const u = await runOhs(['plan', unknown, '--op', 'payment'], { cwd: dir, env });
      expect(u.code).toBe(2);
      expect(u.stderr).toContain(`${unknown}:3: InvoiceId: invoice 999999999 is not in the mirror`);
      // The mirror holds invoices: the hint is to check the id, not to sync a mirror that is synced.
      expect(u.stderr).toMatch(
        /invoice 999999999 is not in the mirror \(the mirror holds \d+ invoices: check the id/,
      );
      expect(await withMirror(db, (m) => listOutbox(m))).toEqual([]);
    });

    it('planning the same file twice queues nothing new; identical rows are two items; flags and skips are shown', async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice', 'applicant']);
      const [a, b] = openInvoices(sim());
      const applicant = sim()
        .truth()
        .Applicant.find((x) => typeof x.priorAddressCity === 'string');
      const file = writeCsv(
        join(dir, 'mixed.csv'),
        ['op', 'id', 'InvoiceId', 'amountToPay', 'priorAddressCity'],
        [
          ['payment', '', a?.id ?? '', 10],
          ['payment', '', a?.id ?? '', 10], // the same payment again: a second item
          ['payment', '', b?.id ?? '', (b?.balance ?? 0) + 100], // above the balance: refused, or flagged when allowed
          ['applicant.update', String(applicant?.id), '', '', String(applicant?.priorAddressCity)], // no change
        ],
      );
      // An overpayment is refused at plan time, naming the row and the balance; nothing queued.
      const refused = await runOhs(['plan', file], { cwd: dir, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        new RegExp(`${file}:4: amountToPay: .* is above the balance of invoice ${b?.id} \\(.*[\\d.]+ left`),
      );
      expect(refused.stderr).toContain('--allow-overpayment');
      expect(await withMirror(db, (m) => listOutbox(m))).toHaveLength(0);
      const first = await runOhs(['plan', file, '--allow-overpayment'], { cwd: dir, env });
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toContain('3 new, 0 already queued, 1 skipped (no change)');
      expect(first.stdout).toMatch(/above balance .*allowed by --allow-overpayment/);
      expect(first.stdout).toMatch(/no change: every field equals the mirror/);
      const second = await runOhs(['plan', file, '--allow-overpayment'], { cwd: dir, env });
      expect(second.stdout).toContain('0 new, 3 already queued, 1 skipped (no change)');
      const items = await withMirror(db, (m) => listOutbox(m));
      expect(items.map((i) => i.state)).toEqual(['queued', 'queued', 'queued']);
      expect(new Set(items.map((i) => i.idempotency_key)).size).toBe(3);
    });

    it("a row's own rules are its op's declaration: a row with only an id is refused as each op declares", async () => {
      const { dir, db } = workdir(sim().url, await target());
      await syncStreams(sim(), db, ['invoice']);
      const targeted = opNames.filter((op) => ops[op].targeted);
      const declared = targeted.map((op) => ops[op].rowRules?.({}) ?? []);
      // Both kinds are declared (updates need a field, a delete is the id alone), so the test tells.
      expect(declared.some((d) => d.length > 0) && declared.some((d) => d.length === 0)).toBe(true);
      const file = writeCsv(
        join(dir, 'only-ids.csv'),
        ['op', 'id'],
        targeted.map((op) => [op, 7]),
      );
      const r = await runOhs(['plan', file], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(2);
      const lines = r.stderr.split('\n').map((l) => l.trim());
      targeted.forEach((op, i) => {
        const at = `${file}:${i + 2}: `;
        expect(
          lines.filter((l) => l.startsWith(at)),
          op,
        ).toEqual((declared[i] ?? []).map((l) => at + l));
      });
      expect(await withMirror(db, (m) => listOutbox(m))).toEqual([]);
    });
  });
});

describe.each(engines)('ohs apply killed midway (%s)', (engine) => {
  // A sandbox per engine: the checks count the sandbox's payments.
  const sim = withSim({ scale: 0.1 });
  const target = withTargets(engine);

  it('a rerun after SIGKILL reconciles what was in flight and sends nothing twice', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const invoices = openInvoices(sim());
    const rows = Array.from({ length: 60 }, (_, i) => [invoices[i % 20]?.id ?? '', (200 + i) / 100]);
    const file = writeCsv(join(dir, 'pay.csv'), ['InvoiceId', 'amountToPay'], rows);
    expect((await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env })).code).toBe(0);

    sim().configure({ latencyMs: 40 });
    const child = spawn(process.execPath, [OHS_BIN, 'apply', '--log-level', 'error'], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const until = Date.now() + 30_000;
    while ((sim().stats.writesApplied.createPayment ?? 0) < 15 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    const made = sim().truth().Payment.length;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(60);
    const mid = await withMirror(db, (m) => listOutbox(m));
    expect(mid.some((i) => i.state === 'queued')).toBe(true);

    sim().configure({ latencyMs: 0 });
    // Items the kill left in flight are unknown: settled as applied by the invoice read back, or
    // sent again only once writeback.agreeingReads (2) reads in as many runs show them not made.
    let rerun = await runOhs(['apply'], { cwd: dir, env });
    for (let n = 1; rerun.code !== 0 && n < 3; n++) {
      expect(rerun.code, rerun.stderr).toBe(5);
      expect(
        new Set(
          sim()
            .truth()
            .Payment.map((p) => Math.round(Number(p.amountToPay) * 100)),
        ).size,
      ).toBe(sim().truth().Payment.length);
      rerun = await runOhs(['apply'], { cwd: dir, env });
    }
    expect(rerun.code, rerun.stderr).toBe(0);
    const payments = sim().truth().Payment;
    expect(payments.length).toBe(60);
    expect(new Set(payments.map((p) => Math.round(Number(p.amountToPay) * 100))).size).toBe(60);
    const items = await withMirror(db, (m) => listOutbox(m));
    expect(items.every((i) => i.state === 'applied')).toBe(true);
  });
});
