import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { configure, openInvoices, syncStreams, withMirror, workdir } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/** Write-back files as people make them (Excel habits, cents, duplicates, big files), through the CLI. */
describe('write-back input', { timeout: 300_000 }, () => {
  // One sandbox for both engines: these tests only plan, never apply.
  const sim = withSim({ scale: 0.1 });
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);
    let dir = '';
    let db = '';
    let big = { id: '', balance: 0 };
    let small = { id: '', balance: 0 };

    beforeAll(async () => {
      // Setup: the invoices synced into the mirror the tests below plan against.
      ({ dir, db } = workdir(sim().url, await target()));
      await syncStreams(sim(), db, ['invoice']);
      const open = openInvoices(sim()).sort((a, b) => b.balance - a.balance);
      big = open[0] ?? big;
      small = open.find((i) => i.balance > 20 && i.balance < 500) ?? small;
      expect(big.balance).toBeGreaterThan(1300);
      expect(small.id).not.toBe('');
    });

    it('reads semicolon-separated files and headers in any case; refuses thousands separators and currency signs', async () => {
      const file = join(dir, 'excel.csv');
      writeFileSync(file, `invoiceid;AMOUNTTOPAY\n${big.id};1234.50\n${small.id};7\n`);
      const r = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`pay 1234.50 on invoice ${big.id}`);
      expect(r.stdout).toContain(`pay 7.00 on invoice ${small.id}`);
      const comma = join(dir, 'comma.csv');
      writeFileSync(comma, `InvoiceId,amountToPay\n${big.id},"1000.25"\n`);
      const c = await runOhs(['plan', comma, '--op', 'payment'], { cwd: dir, env });
      expect(c.code, c.stderr).toBe(0);
      // What a spreadsheet shows as 1,234.50 or $7.00 is refused, not cleaned: one grammar of amounts.
      const habits = join(dir, 'habits.csv');
      writeFileSync(habits, `InvoiceId,amountToPay\n${big.id},"1,234.50"\n${small.id},$7.00\n`);
      const h = await runOhs(['plan', habits, '--op', 'payment'], { cwd: dir, env });
      expect(h.code).toBe(2);
      expect(h.stderr).toContain(`${habits}:2: amountToPay: "1,234.50" is not an amount`);
      expect(h.stderr).toContain(`${habits}:3: amountToPay: "$7.00" is not an amount`);
      const items = await withMirror(db, (m) => listOutbox(m));
      expect(items.map((i) => JSON.parse(i.body))).toEqual([
        { InvoiceId: big.id, amountToPay: 1234.5 },
        { InvoiceId: small.id, amountToPay: 7 },
        { InvoiceId: big.id, amountToPay: 1000.25 },
      ]);
    });

    it('names an unknown header with the closest field, or the op it belongs to', async () => {
      const file = join(dir, 'typo.csv');
      writeFileSync(file, `InvoiceIdd,amountToPay,nameFirst\n${small.id},5,Ann\n`);
      const r = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `${file}:1: InvoiceIdd: unknown column (not a field of payment): did you mean InvoiceId?`,
      );
      expect(r.stderr).toContain(
        `${file}:1: nameFirst: unknown column: not a field of payment (it is a field of person.create, person.update`,
      );
      expect(r.stderr).not.toContain('not a field of any op');
    });

    it('refuses an amount that looks like cents, and names every problem of every row in one pass', async () => {
      const file = join(dir, 'cents.csv');
      const cents = Math.round(small.balance * 100);
      writeFileSync(file, `InvoiceId,amountToPay\n${small.id},${cents}\n999999999,abc\n`);
      const r = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          `${file}:2: amountToPay: .* is over 20 times the invoice's balance .*: amounts are dollars, not cents`,
        ),
      );
      expect(r.stderr).toContain(`${file}:3: InvoiceId: invoice 999999999 is not in the mirror`);
      expect(r.stderr).toContain(`${file}:3: amountToPay: "abc" is not an amount`);
      // The ratio is configuration: off, the same row is only flagged above the balance.
      configure(dir, { writeback: { centsRatio: 0 } });
      const ok = join(dir, 'cents-ok.csv');
      writeFileSync(ok, `InvoiceId,amountToPay\n${small.id},${cents}\n`);
      const off = await runOhs(['plan', ok, '--op', 'payment', '--allow-overpayment'], { cwd: dir, env });
      configure(dir, { writeback: { centsRatio: 20 } });
      expect(off.code, off.stderr).toBe(0);
      expect(off.stdout).toContain('above balance');
    });

    it('flags exact duplicate rows, and asks before a file above the threshold, stating the total', async () => {
      const dup = join(dir, 'dup.csv');
      writeFileSync(dup, `InvoiceId,amountToPay\n${big.id},3.00\n${big.id},3.00\n${big.id},3.00\n`);
      const d = await runOhs(['plan', dup, '--op', 'payment'], { cwd: dir, env });
      expect(d.code, d.stderr).toBe(0);
      expect(d.stdout.match(/exact duplicate of row 2/g)).toHaveLength(2);

      configure(dir, { writeback: { confirmRows: 3, confirmAmount: 1_000_000 } });
      const many = join(dir, 'many.csv');
      writeFileSync(
        many,
        `InvoiceId,amountToPay\n${[1, 2, 3, 4].map((n) => `${big.id},${n}.10`).join('\n')}\n`,
      );
      const before = (await withMirror(db, (m) => listOutbox(m))).length;
      const refused = await runOhs(['plan', many, '--op', 'payment'], { cwd: dir, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('CONFIRMATION_NEEDED');
      expect(refused.stderr).toContain('4 new item(s), payments totalling $10.40');
      expect(refused.stderr).toContain('pass --yes');
      expect((await withMirror(db, (m) => listOutbox(m))).length).toBe(before);
      const yes = await runOhs(['plan', many, '--op', 'payment', '--yes'], { cwd: dir, env });
      expect(yes.code, yes.stderr).toBe(0);
      expect((await withMirror(db, (m) => listOutbox(m))).length).toBe(before + 4);
    });
  });
});
