import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { openInvoices, syncStreams, withMirror, workdir } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/** A payment workbook: one sheet per entry, each [InvoiceId, amountToPay] rows under a header. */
async function workbook(
  file: string,
  sheets: { name: string; rows: [string, unknown][]; hidden?: boolean }[],
  edit: (wb: ExcelJS.Workbook) => void = () => {},
): Promise<string> {
  const wb = new ExcelJS.Workbook();
  for (const s of sheets) {
    const ws = wb.addWorksheet(s.name, { state: s.hidden === true ? 'hidden' : 'visible' });
    ws.addRow(['InvoiceId', 'amountToPay']);
    for (const r of s.rows) ws.addRow(r);
  }
  edit(wb);
  await wb.xlsx.writeFile(file);
  return file;
}

/**
 * A payment file pays what a person sees in it, nothing else: hidden sheets, rows and
 * columns and formula cells are refused with their place named; amounts follow one strict grammar
 * and are sent as exactly the value the plan shows.
 */
describe('write-back input is what a person sees', { timeout: 300_000 }, () => {
  const sim = withSim({ scale: 0.05 });
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);
    let dir = '';
    let db = '';
    let inv = { id: '', balance: 0 };

    const plan = (file: string, ...more: string[]) =>
      runOhs(['plan', file, '--op', 'payment', ...more], { cwd: dir, env });
    const outbox = () => withMirror(db, (m) => listOutbox(m));

    beforeAll(async () => {
      // Setup: the invoices synced into the mirror the tests below plan against.
      db = await target();
      ({ dir } = workdir(sim().url, db));
      await syncStreams(sim(), db, ['invoice']);
      inv = openInvoices(sim()).sort((a, b) => b.balance - a.balance)[0] ?? inv;
      expect(inv.balance).toBeGreaterThan(1300);
    });

    it('refuses a hidden sheet, a hidden row, a hidden column and a formula cell, naming the place; nothing queued', async () => {
      const cases: [string, Promise<string>, RegExp][] = [
        [
          'hidden sheet',
          workbook(join(dir, 'hidden-sheet.xlsx'), [
            { name: 'Pay', rows: [[inv.id, 2000]], hidden: true },
            { name: 'Shown', rows: [[inv.id, 20]] },
          ]),
          /INPUT_INVALID: .*hidden-sheet\.xlsx: sheet 'Shown' is not the sheet the workbook opens on \('Pay', hidden\)/,
        ],
        [
          'hidden row',
          workbook(
            join(dir, 'hidden-row.xlsx'),
            [
              {
                name: 'Pay',
                rows: [
                  [inv.id, 20],
                  [inv.id, 1500],
                ],
              },
            ],
            (wb) => {
              const row = wb.worksheets[0]?.getRow(3);
              if (row !== undefined) row.hidden = true;
            },
          ),
          /INPUT_INVALID: .*hidden-row\.xlsx: sheet 'Pay' row 3 is hidden/,
        ],
        [
          'hidden column',
          workbook(join(dir, 'hidden-col.xlsx'), [{ name: 'Pay', rows: [[inv.id, 20]] }], (wb) => {
            const col = wb.worksheets[0]?.getColumn(2);
            if (col !== undefined) col.hidden = true;
          }),
          /INPUT_INVALID: .*hidden-col\.xlsx: sheet 'Pay': column B \(amountToPay\) is hidden/,
        ],
        [
          'formula cell',
          workbook(join(dir, 'formula.xlsx'), [
            { name: 'Pay', rows: [[inv.id, { formula: '20*100', result: 20 }]] },
          ]),
          /INPUT_INVALID: .*formula\.xlsx: sheet 'Pay' cell B2 \(row 2, column amountToPay\): a formula/,
        ],
      ];
      for (const [name, made, expected] of cases) {
        const r = await plan(await made);
        expect(r.code, name).toBe(2);
        expect(r.stderr, name).toMatch(expected);
        expect(r.stderr.trim().split('\n'), name).toHaveLength(1);
      }
      // Named with --sheet, the hidden sheet is refused as hidden.
      const named = await plan(join(dir, 'hidden-sheet.xlsx'), '--sheet', 'Pay');
      expect(named.code).toBe(2);
      expect(named.stderr).toMatch(/INPUT_INVALID: .*hidden-sheet\.xlsx: sheet 'Pay' is hidden/);
      expect(await outbox()).toEqual([]);
    });

    it('refuses loose amounts (hex, exponent, nine decimals, Infinity), naming file, row and field', async () => {
      const file = join(dir, 'loose.csv');
      const loose = ['0x10', '1e2', '5.000000001', 'Infinity', '1.2.3', '12,34', '$1,000.5', '€ 7.25'];
      writeFileSync(file, `InvoiceId,amountToPay\n${loose.map((a) => `${inv.id},"${a}"`).join('\n')}\n`);
      const r = await plan(file);
      expect(r.code).toBe(2);
      loose.forEach((a, i) => {
        // The value read is shown, so the row can be found and fixed.
        expect(r.stderr).toContain(`${file}:${i + 2}: amountToPay: "${a}" is not an amount`);
      });
      expect(await outbox()).toEqual([]);
    });

    it('pays exactly the amounts the plan shows, read from a visible sheet', async () => {
      const csv = join(dir, 'exact.csv');
      writeFileSync(csv, `InvoiceId,amountToPay\n${inv.id},"1000.5"\n${inv.id},7.25\n`);
      const xlsx = await workbook(join(dir, 'exact.xlsx'), [{ name: 'Pay', rows: [[inv.id, 20.1]] }]);
      for (const f of [csv, xlsx]) {
        const r = await plan(f);
        expect(r.code, r.stderr).toBe(0);
      }
      const planned = await runOhs(['outbox'], { cwd: dir, env });
      for (const shown of ['1000.50', '7.25', '20.10']) expect(planned.stdout).toContain(`pay ${shown}`);
      const before = sim().truth().Payment.length;
      const applied = await runOhs(['apply'], { cwd: dir, env });
      expect(applied.code, applied.stderr).toBe(0);
      const sent = sim()
        .truth()
        .Payment.slice(before)
        .map((p) => p.amountToPay);
      expect(sent).toEqual([1000.5, 7.25, 20.1]);
    });
  });
});
