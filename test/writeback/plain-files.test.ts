import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { openInvoices, syncStreams, withMirror, workdir } from '../helpers/writeback.js';
import { writeEdited } from '../helpers/xlsx-edit.js';

const env = { OHS_TOKEN: WRITE_TOKEN };
const SHEET = 'xl/worksheets/sheet1.xml';
const BOOK = 'xl/workbook.xml';

type Edit = (xml: string) => string;

/**
 * A payment workbook made with exceljs: the sheet `Pay` with InvoiceId, amountToPay and the rows
 * given (row 2 pays 5.00, row 3 pays 1500.00 unless told otherwise), then `build` for what exceljs
 * writes itself, then the XML edits for what it cannot write (a hidden tab bar, a data table).
 */
async function workbook(
  dir: string,
  name: string,
  invoice: string,
  build: (wb: ExcelJS.Workbook, ws: ExcelJS.Worksheet) => void = () => {},
  edits: Record<string, Edit> = {},
): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Pay');
  ws.addRow(['InvoiceId', 'amountToPay']);
  ws.addRow([Number(invoice), 5]);
  ws.addRow([Number(invoice), 1500]);
  build(wb, ws);
  return writeEdited(wb, dir, name, edits);
}

/**
 * Payment files are read only when plain: each form a review found paying what no
 * person sees in the file is refused, one line with INPUT_INVALID naming the file, the cell (or
 * row, column, sheet, field) and the feature found; exit 2; nothing planned. A plain file is read
 * and planned exactly as shown.
 */
describe('payment files read only when plain', { timeout: 300_000 }, () => {
  // One sandbox for both engines: these tests only plan, never apply.
  const sim = withSim({ scale: 0.02 });
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);
    let dir = '';
    let db = '';
    let invoice = '';

    beforeAll(async () => {
      // Setup: the invoices synced into the mirror the tests below plan against.
      ({ dir, db } = workdir(sim().url, await target()));
      await syncStreams(sim(), db, ['invoice']);
      invoice = openInvoices(sim()).find((i) => i.balance > 20)?.id ?? '';
      expect(invoice).not.toBe('');
    });

    const outbox = () => withMirror(db, (m) => listOutbox(m));

    /** `ohs plan FILE --op payment [more]` refused: exit 2, the code, one line saying `expected`; nothing queued. */
    async function refused(file: string, expected: RegExp, ...more: string[]): Promise<void> {
      const before = (await outbox()).length;
      const r = await runOhs(['plan', file, '--op', 'payment', ...more], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(2);
      // One line naming what was refused (a row's problem comes under the plan's count of problems).
      const said = r.stderr.trim().split('\n');
      expect(
        said.filter((l) => !/: 1 problem\(s\), nothing planned$/.test(l)),
        r.stderr,
      ).toHaveLength(1);
      expect(r.stderr).toMatch(/^ohs: INPUT_INVALID: /);
      expect(r.stderr).toContain(file);
      expect(r.stderr).toMatch(expected);
      expect((await outbox()).length).toBe(before);
    }

    it('a visible tab `Pay ` beside a hidden tab `Pay`: refused, with or without --sheet', async () => {
      const file = await workbook(dir, 'twin-tabs.xlsx', invoice, (wb, ws) => {
        ws.name = 'Pay ';
        const hidden = wb.addWorksheet('Pay', { state: 'hidden' });
        hidden.addRow(['InvoiceId', 'amountToPay']);
        hidden.addRow([Number(invoice), 1500]);
      });
      const twins = /sheets 'Pay ' and 'Pay' have names that differ only in spaces or case/;
      await refused(file, twins);
      await refused(file, twins, '--sheet', 'Pay');
    });

    it('a second column headed amountToPay in column Z: refused naming both cells', async () => {
      const file = await workbook(dir, 'second-column.xlsx', invoice, (_wb, ws) => {
        ws.getCell('Z1').value = 'amountToPay';
        ws.getCell('Z2').value = 1500;
      });
      await refused(file, /sheet 'Pay': cells B1 and Z1 are both headed amountToPay/);
    });

    it('a row 1 point high: refused naming the row and its height', async () => {
      const file = await workbook(dir, 'thin-row.xlsx', invoice, (_wb, ws) => {
        ws.getRow(3).height = 1;
      });
      await refused(file, /sheet 'Pay' row 3 is 1 pt high, under half the normal row height \(15 pt\)/);
    });

    it('an amount hidden by the number format ;;;: refused naming the cell and the format', async () => {
      const file = await workbook(dir, 'hiding-format.xlsx', invoice, (_wb, ws) => {
        ws.getCell('B3').numFmt = ';;;';
      });
      await refused(
        file,
        /sheet 'Pay' cell B3 \(row 3, column amountToPay\): number format ';;;': an empty section hides/,
      );
    });

    it('white text on a white fill (and a white theme colour on no fill): refused naming the cell and colours', async () => {
      const white = await workbook(dir, 'white-on-white.xlsx', invoice, (_wb, ws) => {
        const c = ws.getCell('B3');
        c.font = { color: { argb: 'FFFFFFFF' } };
        c.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFFFF' } };
      });
      await refused(
        white,
        /cell B3 \(row 3, column amountToPay\): a font the colour of its fill \(font FFFFFF on FFFFFF, contrast 1\.00:1/,
      );
      // Theme colour 0 is the theme's light 1 (white in exceljs's theme), with no fill: the window's white.
      const themed = await workbook(dir, 'theme-white.xlsx', invoice, (_wb, ws) => {
        ws.getCell('B3').font = { color: { theme: 0 } } as ExcelJS.Font;
      });
      await refused(themed, /cell B3 .*: a font the colour of its fill \(font FFFFFF on FFFFFF/);
    });

    it('1,500 in a ;-separated CSV: refused naming the row and field', async () => {
      const file = join(dir, 'semicolon.csv');
      writeFileSync(file, `InvoiceId;amountToPay\n${invoice};5.00\n${invoice};1,500\n`);
      await refused(file, /semicolon\.csv:3: field 2 \(1,500\): a ',' in a ';'-separated file/);
    });

    it('0 100 in a CSV: refused naming the row and field', async () => {
      const file = join(dir, 'spaced.csv');
      writeFileSync(file, `InvoiceId,amountToPay\n${invoice},5.00\n${invoice},0 100\n`);
      await refused(file, /spaced\.csv:3: amountToPay: "0 100" is not an amount/);
    });

    it('a hidden tab bar with another tab active: refused naming the sheet and the tab bar', async () => {
      const file = await workbook(
        dir,
        'no-tab-bar.xlsx',
        invoice,
        (wb) => {
          wb.addWorksheet('Notes').addRow(['nothing to pay here']);
          wb.views = [{ activeTab: 1 } as ExcelJS.WorkbookView];
        },
        { [BOOK]: (x) => x.replace('activeTab="1"', 'activeTab="1" showSheetTabs="0"') },
      );
      await refused(
        file,
        /sheet 'Pay': the tab bar is hidden \(showSheetTabs="0"\) and the workbook opens on 'Notes'/,
        '--sheet',
        'Pay',
      );
      // Without --sheet, two visible sheets: which one is meant is not guessed.
      await refused(file, /2 visible sheets \('Pay', 'Notes'\): name the one to read with --sheet/);
    });

    it("a data table's cached value: refused naming the cell and the data table", async () => {
      // exceljs writes no data table: its TABLE formula is set in the sheet's XML, as Excel writes it.
      const file = await workbook(dir, 'data-table.xlsx', invoice, () => {}, {
        [SHEET]: (x) =>
          x.replace(
            /<c r="B3"([^>]*)><v>1500<\/v><\/c>/,
            '<c r="B3"$1><f t="dataTable" ref="B3:B3" dt2D="0" dtr="0" r1="A1"/><v>1500</v></c>',
          ),
      });
      await refused(file, /sheet 'Pay' cell B3 \(row 3, column amountToPay\): a data table/);
    });

    it('a date-typed cell: refused naming the cell, as a date format and as a date type', async () => {
      const formatted = await workbook(dir, 'date-format.xlsx', invoice, (_wb, ws) => {
        ws.getCell('B3').value = new Date(Date.UTC(1904, 1, 8));
      });
      await refused(
        formatted,
        /sheet 'Pay' cell B3 \(row 3, column amountToPay\): a date \(number format 14/,
      );
      const typed = await workbook(dir, 'date-type.xlsx', invoice, () => {}, {
        [SHEET]: (x) =>
          x.replace(/<c r="B3"([^>]*)><v>1500<\/v><\/c>/, '<c r="B3" t="d"><v>1500-01-01</v></c>'),
      });
      await refused(typed, /sheet 'Pay' cell B3 \(row 3, column amountToPay\): a date \(a date-typed cell\)/);
    });

    it('a column 0.6 characters wide: refused naming the column and its width', async () => {
      const file = await workbook(dir, 'thin-column.xlsx', invoice, (_wb, ws) => {
        ws.getColumn(2).width = 0.6;
      });
      await refused(
        file,
        /sheet 'Pay': column B \(amountToPay\) is 0\.6 characters wide, under half the normal width/,
      );
    });

    it('a font under 6 pt, a rounding format and a formula: refused naming the cell and the feature', async () => {
      const cases: [string, (ws: ExcelJS.Worksheet) => void, RegExp][] = [
        [
          'tiny-font.xlsx',
          (ws) => {
            ws.getCell('B3').font = { size: 5 };
          },
          /cell B3 .*: a font of 5 pt/,
        ],
        [
          'rounding.xlsx',
          (ws) => {
            ws.getCell('B3').value = 12.25;
            ws.getCell('B3').numFmt = '0.0';
          },
          /cell B3 .*: number format '0\.0': it rounds 12\.25 to 1 decimal/,
        ],
        [
          'coloured-format.xlsx',
          (ws) => {
            ws.getCell('B3').numFmt = '[White]0.00';
          },
          /cell B3 .*: number format '\[White\]0\.00': a colour or condition \[White\]/,
        ],
        [
          'formula.xlsx',
          (ws) => {
            ws.getCell('B3').value = { formula: '15*100', result: 15 } as ExcelJS.CellFormulaValue;
          },
          /cell B3 .*: a formula/,
        ],
      ];
      for (const [name, build, expected] of cases)
        await refused(await workbook(dir, name, invoice, (_wb, ws) => build(ws)), expected);
    });

    it('amounts in one grammar: every other spelling refused, row by row, naming the value', async () => {
      const file = join(dir, 'amounts.csv');
      const loose = [
        '1e2',
        '+12.50',
        '12.505',
        '12.50 USD',
        '1\u00a0500',
        '１２.５０',
        '١٢.٥٠',
        '0x10',
        '-0',
        '12\u200b.50',
        '$12.50',
        '1,500.00',
        '.50',
        '12.',
      ];
      writeFileSync(file, `InvoiceId,amountToPay\n${loose.map((a) => `${invoice},"${a}"`).join('\n')}\n`);
      const before = (await outbox()).length;
      const r = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`INPUT_INVALID: ${file}: ${loose.length} problem(s), nothing planned`);
      loose.forEach((_a, i) => {
        expect(r.stderr).toMatch(
          new RegExp(`${file}:${i + 2}: amountToPay: .*(is not an amount|greater than 0)`),
        );
      });
      expect((await outbox()).length).toBe(before);
    });

    it('a plain workbook and a plain CSV are read and planned exactly as shown', async () => {
      // A hidden second sheet beside the visible, active one; a currency format, a dark red font, a yellow fill.
      const xlsx = await workbook(dir, 'plain.xlsx', invoice, (wb, ws) => {
        ws.getCell('B2').numFmt = '"$"#,##0.00;\\-"$"#,##0.00';
        ws.getCell('B2').font = { color: { argb: 'FFC00000' }, size: 11 };
        ws.getCell('B3').value = '7.25';
        ws.getCell('B3').fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFFFFF00' } };
        ws.getColumn(2).width = 14;
        ws.getRow(3).height = 18;
        wb.addWorksheet('Notes', { state: 'hidden' }).addRow(['not read']);
      });
      const csv = join(dir, 'plain.csv');
      writeFileSync(csv, `InvoiceId;amountToPay\n${invoice};0.10\n ${invoice} ; 0.20 \n`);
      const before = (await outbox()).length;
      for (const file of [xlsx, csv]) {
        const r = await runOhs(['plan', file, '--op', 'payment', '--allow-overpayment', '--yes'], {
          cwd: dir,
          env,
        });
        expect(r.code, r.stderr).toBe(0);
      }
      const items = (await outbox()).slice(before).map((i) => JSON.parse(i.body) as Record<string, unknown>);
      expect(items).toEqual([5, 7.25, 0.1, 0.2].map((amountToPay) => ({ InvoiceId: invoice, amountToPay })));
    });
  });
});
