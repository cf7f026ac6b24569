import { readFileSync } from 'node:fs';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { neutralise, writeReport } from '../../src/render/index.js';
import { defaults } from '../helpers/defaults.js';
import { outDir, readXlsx } from './fixtures.js';

const attacks = ['=HYPERLINK("http://x","y")', '+1', '-2', '@SUM(A1)', '\tcmd', '\r=1+1'];

describe('formula injection', () => {
  it('prefixes text beginning with = + - @ tab or CR with a quote, and nothing else', () => {
    for (const a of attacks.slice(0, -1)) expect(neutralise(a)).toBe(`'${a}`);
    expect(neutralise('\r=1+1')).toBe("'\r'=1+1");
    for (const ok of ['Peña', "O'Brien", 'a=b', ' =1', '', '1-2']) expect(neutralise(ok)).toBe(ok);
  });

  it('leaves every such cell inert in the CSV and the xlsx; numbers are untouched', async () => {
    const dir = outDir();
    const { files } = await writeReport(
      {
        detail: {
          name: 'Detail',
          columns: [
            { key: 'text', title: 'Text', type: 'string' },
            { key: 'balance', title: 'Balance', type: 'money' },
            { key: 'delta', title: 'Delta', type: 'integer' },
          ],
          rows: attacks.map((text) => ({ text, balance: -4000, delta: -2 })),
        },
        summaries: () => [],
        warnings: () => ['@warning from the data'],
        about: () => [['-parameter', '=value']],
      },
      {
        outDir: dir,
        name: 'r',
        asOf: '2025-06-30',
        title: 'R',
        formats: ['xlsx', 'csv'],
        csv: defaults.reports.csv,
      },
    );

    const csv = readFileSync(files[1]!, 'utf8');
    expect(csv).toBe(
      '\ufeff' +
        [
          'text,balance,delta',
          `"'=HYPERLINK(""http://x"",""y"")",-40.00,-2`,
          "'+1,-40.00,-2",
          "'-2,-40.00,-2",
          "'@SUM(A1),-40.00,-2",
          "'\tcmd,-40.00,-2",
          `"'\r'=1+1",-40.00,-2`,
          '',
        ].join('\r\n'),
    );

    const wb = await readXlsx(files[0]!);
    const ws = wb.worksheets[0]!;
    attacks.forEach((a, i) => {
      const row = ws.getRow(i + 2);
      const text = row.getCell(1);
      expect(text.type).toBe(ExcelJS.ValueType.String);
      expect(text.formula).toBeUndefined();
      // Line breaks are LF in a cell, as Excel makes them. A typed string cell is never run as
      // a formula, so the text is stored as it is (no apostrophe to show in the name).
      expect(text.value).toBe(a.replace('\r', '\n'));
      expect(row.getCell(2).value).toBe(-40);
      expect(row.getCell(2).type).toBe(ExcelJS.ValueType.Number);
      expect(row.getCell(3).value).toBe(-2);
    });
    // No formula anywhere in the workbook, the Warnings and About sheets included.
    for (const sheet of wb.worksheets)
      sheet.eachRow((row) =>
        row.eachCell((c) => {
          expect(c.type).not.toBe(ExcelJS.ValueType.Formula);
          expect(c.formula).toBeUndefined();
        }),
      );
    expect(wb.getWorksheet('Warnings')!.getRow(2).getCell(1).value).toBe('@warning from the data');
    const about = wb.getWorksheet('About')!;
    // After Report, Title, As of, Generated at and Verdict.
    expect(about.getRow(7).getCell(1).value).toBe('-parameter');
    expect(about.getRow(7).getCell(2).value).toBe('=value');
  });
});
