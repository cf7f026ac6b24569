import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { readTable } from '../../src/input/read-table.js';
import { runOhs } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir } from '../helpers/writeback.js';
import { writeEdited } from '../helpers/xlsx-edit.js';

const env = { OHS_TOKEN: WRITE_TOKEN };
const SHEET = 'xl/worksheets/sheet1.xml';
const BOOK = 'xl/workbook.xml';

/** A workbook of three columns and two data rows, as exceljs writes it, its XML then edited as another program would write it. */
async function workbook(
  dir: string,
  name: string,
  edits: Record<string, (xml: string) => string>,
  rows: (string | number)[][] = [
    [240019, 5, 7],
    [240020, 9, 8],
  ],
): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Pay');
  ws.addRow(['InvoiceId', 'amountToPay', 'PersonId']);
  for (const r of rows) ws.addRow(r);
  ws.getColumn(1).width = 12;
  ws.getColumn(2).width = 12;
  return writeEdited(wb, dir, name, edits);
}

/** Row 3 of zero height, its attributes single-quoted. */
const row3 = (x: string) => x.replace('<row r="3"', "<row r=\"3\" ht='0' customHeight='1'");

const refusal = (file: string) =>
  readTable(file, defaults.input).then(
    () => 'read',
    (err: Error & { code?: string }) => `${err.code}: ${err.message}`,
  );

/**
 * Input files are read exactly or refused: a CSV row that does not fit its header, a hidden row,
 * column or sheet in any of the spellings a workbook's XML allows (found with an XML parser), a
 * merged cell over a named column. Each refusal is one line with its code, naming the file and
 * where; through the CLI, `ohs plan` exits 2 and plans nothing.
 */
describe('input files read exactly', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-exact-'));

  it('a hidden row, column or sheet is refused in every spelling of its XML', async () => {
    const cases: [string, Record<string, (x: string) => string>, RegExp][] = [
      ['single-quoted.xlsx', { [SHEET]: row3 }, /sheet 'Pay' row 3 is of zero height/],
      [
        'char-ref.xlsx',
        { [SHEET]: (x) => x.replace('<row r="3"', '<row r="3" ht="&#48;"') },
        /row 3 is of zero height/,
      ],
      [
        'zero-height-default.xlsx',
        {
          [SHEET]: (x) =>
            x
              .replace('<sheetFormatPr ', '<sheetFormatPr zeroHeight="1" ')
              .replace('<row r="1"', '<row r="1" ht="15" customHeight="1"')
              .replace('<row r="2"', '<row r="2" ht="15" customHeight="1"'),
        },
        /row 3 is hidden \(the sheet hides rows by default: zeroHeight\)/,
      ],
      [
        'default-col-width.xlsx',
        { [SHEET]: (x) => x.replace('<sheetFormatPr ', '<sheetFormatPr defaultColWidth="0" ') },
        /column C \(PersonId\) is of zero width \(the sheet’s default column width\)/,
      ],
      [
        'hidden-true.xlsx',
        { [SHEET]: (x) => x.replace('<row r="3"', '<row r="3" hidden="true"') },
        /row 3 is hidden/,
      ],
      [
        'collapsed-outline.xlsx',
        {
          [SHEET]: (x) =>
            x
              .replace('<row r="3"', '<row r="3" outlineLevel="1"')
              .replace('</sheetData>', '<row r="4" collapsed="1"/></sheetData>'),
        },
        /row 3 is hidden \(in a collapsed group\)/,
      ],
      [
        'spaced.xlsx',
        { [SHEET]: (x) => x.replace('<row r="3"', '<row r="3"\n  hidden = \' true \'') },
        /row 3 is hidden/,
      ],
      [
        'very-hidden-sheet.xlsx',
        { [BOOK]: (x) => x.replace('state="visible"', "state='veryHidden'") },
        /sheet 'Pay' is veryHidden/,
      ],
    ];
    for (const [name, edits, expected] of cases) {
      const said = await refusal(await workbook(dir, name, edits));
      expect(said, name).toMatch(/^INPUT_INVALID: /);
      expect(said, name).toMatch(expected);
      expect(said, name).toContain(name);
      expect(said.split('\n'), name).toHaveLength(1);
    }
    // The same workbook unedited is read, both rows.
    const plain = await readTable(await workbook(dir, 'plain.xlsx', {}), defaults.input);
    expect(plain.rows.map((r) => r.values.amountToPay)).toEqual([5, 9]);
  });

  it('a merged amount cell is refused, naming the range, its rows and its column', async () => {
    const file = await workbook(dir, 'merged.xlsx', {
      [SHEET]: (x) =>
        x.replace('</sheetData>', '</sheetData><mergeCells count="1"><mergeCell ref="B2:B3"/></mergeCells>'),
    });
    expect(await refusal(file)).toMatch(
      /^INPUT_INVALID: .*merged\.xlsx: sheet 'Pay': cells B2:B3 are merged \(rows 2 to 3, column amountToPay\)/,
    );
  });

  it('the sheet named by --sheet is read even when exceljs numbers another sheet first', async () => {
    // Two visible tabs; the first holds the amounts, the second (sheetId 1) does not.
    const wb = new ExcelJS.Workbook();
    const second = wb.addWorksheet('Notes');
    second.addRow(['note']);
    second.addRow(['nothing to pay here']);
    const first = wb.addWorksheet('Pay');
    first.addRow(['InvoiceId', 'amountToPay']);
    first.addRow([240019, 5]);
    const zip = await JSZip.loadAsync(await wb.xlsx.writeBuffer());
    const book = (await zip.file(BOOK)?.async('string')) ?? '';
    // Swap the tabs' order, keeping their ids: Pay is the first tab, Notes has the lower id.
    const tags = book.match(/<sheet [^>]*\/>/g) ?? [];
    expect(tags).toHaveLength(2);
    zip.file(BOOK, book.replace(`${tags[0]}${tags[1]}`, `${tags[1]}${tags[0]}`));
    const file = join(dir, 'tabs.xlsx');
    writeFileSync(file, await zip.generateAsync({ type: 'nodebuffer' }));
    // Two visible sheets: which one is meant is not guessed.
    expect(await refusal(file)).toMatch(
      /tabs\.xlsx: 2 visible sheets \('Pay', 'Notes'\): name the one to read with --sheet/,
    );
    const table = await readTable(file, defaults.input, { sheet: 'Pay' });
    expect(table.columns).toEqual(['InvoiceId', 'amountToPay']);
    expect(table.rows.map((r) => r.values.amountToPay)).toEqual([5]);
  });

  it('a CSV row of more or fewer fields than its header is refused, naming the row and both counts', async () => {
    const more = join(dir, 'decimal-comma.csv');
    writeFileSync(more, 'InvoiceId,amountToPay\n240019,12,50\n');
    expect(await refusal(more)).toBe(
      `INPUT_INVALID: ${more}:2: 3 fields, header has 2: a decimal comma or a comma inside a value must be quoted ("12,50"), or separate the fields with ;`,
    );
    const fewer = join(dir, 'short.csv');
    writeFileSync(fewer, 'InvoiceId;amountToPay;PersonId\n240019;5;7\n\n240020;9\n');
    expect(await refusal(fewer)).toMatch(new RegExp(`^INPUT_INVALID: ${fewer}:4: 2 fields, header has 3`));
    // Quoted, the same value is one field: read, and refused later as an amount showing the value read.
    const quoted = join(dir, 'quoted.csv');
    writeFileSync(quoted, 'InvoiceId,amountToPay\n240019,"12,50"\n');
    expect((await readTable(quoted, defaults.input)).rows[0]?.values.amountToPay).toBe('12,50');
  });
});

describe.each(engines.slice(0, 1))(
  'ohs plan refuses an inexact file (%s)',
  { timeout: 300_000 },
  (engine) => {
    const sim = withSim({ scale: 0.02 });
    const target = withTargets(engine);
    let dir = '';
    let db = '';
    let invoice = 0;
    beforeAll(async () => {
      ({ dir, db } = workdir(sim().url, await target()));
      await syncStreams(sim(), db, ['invoice']);
      invoice = Number(
        sim()
          .truth()
          .Invoice.find((i) => Number(i.balance) > 100)?.id,
      );
    });

    it('exit 2, one INPUT_INVALID line naming file and row, nothing planned', async () => {
      const csv = join(dir, 'pay.csv');
      writeFileSync(csv, `InvoiceId,amountToPay\n${invoice},12,50\n`);
      const merged = await workbook(
        dir,
        'merged.xlsx',
        {
          [SHEET]: (x) =>
            x.replace('</sheetData>', '</sheetData><mergeCells><mergeCell ref="B2:B3"/></mergeCells>'),
        },
        [
          [invoice, 5, 7],
          [invoice + 1, '', 8],
        ],
      );
      const flat = await workbook(dir, 'flat.xlsx', { [SHEET]: row3 }, [
        [invoice, 5, 7],
        [invoice, 9, 8],
      ]);
      const semicolon = join(dir, 'comma.csv');
      writeFileSync(semicolon, `InvoiceId;amountToPay\n${invoice};12,50\n`);
      for (const [file, expected] of [
        [csv, `${csv}:2: 3 fields, header has 2`],
        [merged, `${merged}: sheet 'Pay': cells B2:B3 are merged`],
        [flat, `${flat}: sheet 'Pay' row 3 is of zero height`],
        [semicolon, `${semicolon}:2: field 2 (12,50): a ',' in a ';'-separated file`],
      ] as const) {
        const r = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain('INPUT_INVALID');
        expect(r.stderr).toContain(expected);
      }
      expect(await withMirror(db, (m) => m.db.selectFrom('outbox').select('id').execute())).toEqual([]);
    });
  },
);
