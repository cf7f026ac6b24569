import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { type Sheet, writeReport } from '../../src/render/index.js';
import { SheetNames, sheetBacklog } from '../../src/render/xlsx-renderer.js';
import { defaults } from '../helpers/defaults.js';
import { col, outDir, type ReportSpec, readXlsx, report } from './fixtures.js';

async function xlsxOf(spec: ReportSpec = {}, about?: [string, string][]): Promise<ExcelJS.Workbook> {
  const { files, rows } = await writeReport(report(spec), {
    outDir: outDir(),
    name: 'unpaid-invoices',
    asOf: '2025-06-30',
    title: 'Unpaid invoices',
    formats: ['xlsx'],
    csv: defaults.reports.csv,
    ...(about === undefined ? {} : { about }),
  });
  expect(files[0]).toMatch(/unpaid-invoices-2025-06-30\.xlsx$/);
  expect(rows).toBe(3);
  return readXlsx(files[0]!);
}

function aboutOf(wb: ExcelJS.Workbook): Map<string, string> {
  const lines = new Map<string, string>();
  wb.getWorksheet('About')?.eachRow((row) => {
    lines.set(String(row.getCell(1).value), String(row.getCell(2).value));
  });
  return lines;
}

/** A summary whose rows, like a report's, can be read only once. */
const byOrg = (): Sheet => ({
  name: 'By org',
  columns: [
    { key: 'org', title: 'Org', type: 'string' },
    { key: 'total', title: 'Total', type: 'money' },
  ],
  rows: (function* () {
    yield { org: 'Peña', total: 119445 };
    yield { org: 'Total', total: 119445 };
  })(),
});

describe('xlsx renderer', () => {
  it('writes typed cells: real dates, money, integers, numbers, percents, booleans', async () => {
    const ws = (await xlsxOf()).worksheets[0]!;
    const first = ws.getRow(2);
    const cell = (key: string) => first.getCell(col(key));

    expect(cell('orgId').value).toBe(1);
    expect(cell('orgId').numFmt).toBe('0');
    expect(cell('org').value).toBe('Peña, "Hermanos"');
    expect(cell('org').type).toBe(ExcelJS.ValueType.String);

    expect(cell('invoiceDate').type).toBe(ExcelJS.ValueType.Date);
    expect(cell('invoiceDate').value).toEqual(new Date('2025-06-30T00:00:00Z'));
    expect(cell('invoiceDate').numFmt).toBe('yyyy-mm-dd');
    expect(cell('createdAt').type).toBe(ExcelJS.ValueType.Date);
    expect(cell('createdAt').value).toEqual(new Date('2025-06-10T12:00:00Z'));
    expect(cell('createdAt').numFmt).toBe('yyyy-mm-dd hh:mm');

    expect(cell('balance').type).toBe(ExcelJS.ValueType.Number);
    expect(cell('balance').value).toBe(1234.5);
    expect(cell('balance').numFmt).toBe('#,##0.00');
    expect(cell('drugRate').value).toBe(0.5);
    expect(cell('drugRate').numFmt).toBe('0.0%');
    expect(cell('ageHours').value).toBe(36.25); // full precision; the format shows one decimal
    expect(cell('ageHours').numFmt).toBe('#,##0.0');
    expect(cell('open').type).toBe(ExcelJS.ValueType.Boolean);
    expect(cell('open').value).toBe(true);

    const second = ws.getRow(3);
    expect(second.getCell(col('balance')).value).toBe(-40.05);
    expect(second.getCell(col('createdAt')).value).toEqual(new Date('2025-06-10T08:30:15Z'));
    expect(second.getCell(col('open')).value).toBe(false);
    expect(second.getCell(col('org')).value).toBe("O'Brien\nline two");

    // Nulls are empty cells.
    const empty = ws.getRow(4);
    expect(empty.getCell(col('orgId')).value).toBe(3);
    for (const key of ['org', 'invoiceDate', 'createdAt', 'balance', 'drugRate', 'ageHours', 'open'])
      expect(empty.getCell(col(key)).type).toBe(ExcelJS.ValueType.Null);
  });

  it('heads the detail with bold human titles, frozen, filtered, with widths', async () => {
    const ws = (await xlsxOf()).worksheets[0]!;
    expect(ws.name).toBe('Invoices');
    const header = ws.getRow(1);
    expect(header.getCell(1).value).toBe('Org ID');
    expect(header.getCell(col('ageHours')).value).toBe('Age (hours)');
    expect(header.getCell(1).font?.bold).toBe(true);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(ws.autoFilter).toBe('A1:H4');
    // Widths from the data: the longest org name (16 characters) plus a margin; a title wraps
    // (never cut off) rather than widen a narrow column beyond a third of its length.
    expect(ws.getColumn(col('org')).width).toBe(18);
    expect(ws.getColumn(col('invoiceDate')).width).toBe(13);
    expect(header.getCell(col('invoiceDate')).alignment?.wrapText).toBe(true);
  });

  it('orders the sheets summaries, detail, Warnings, About', async () => {
    const wb = await xlsxOf({ summaries: [byOrg()], warnings: ['label "13/2025" is not a month', '=cmd'] });
    expect(wb.worksheets.map((w) => w.name)).toEqual(['By org', 'Invoices', 'Warnings', 'About']);

    const summary = wb.getWorksheet('By org')!;
    expect(summary.getRow(1).getCell(2).value).toBe('Total');
    expect(summary.getRow(2).getCell(2).value).toBe(1194.45);
    expect(summary.getRow(2).getCell(2).numFmt).toBe('#,##0.00');
    expect(summary.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });

    const warnings = wb.getWorksheet('Warnings')!;
    expect(warnings.getRow(1).getCell(1).value).toBe('Warning');
    expect(warnings.getRow(2).getCell(1).value).toBe('label "13/2025" is not a month');
    expect(warnings.getRow(3).getCell(1).value).toBe('=cmd');
    expect(warnings.rowCount).toBe(3);
  });

  it('has no Warnings sheet when there are none', async () => {
    const wb = await xlsxOf({ summaries: [] });
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Invoices', 'About']);
  });

  it('proves its source on the About sheet', async () => {
    const before = Date.now();
    const wb = await xlsxOf({ about: [['Aging basis', 'dueDate']], summaries: [byOrg()] }, [
      ['Mirror', 'ohs.sqlite'],
      ['Last sync: Invoice', '2025-06-30T02:00:00Z'],
    ]);
    const about = aboutOf(wb);
    expect([...about.keys()]).toEqual([
      'Item',
      'Report',
      'Title',
      'As of',
      'Generated at',
      'Verdict',
      'Mirror',
      'Last sync: Invoice',
      'Aging basis',
      'Rows (Invoices)',
      'Rows (By org)',
      'Detail SHA-256',
      'Sheets',
    ]);
    expect(about.get('Sheets')).toBe('By org, Invoices, About');
    expect(about.get('Detail SHA-256')).toMatch(/^[0-9a-f]{64} /);
    expect(about.get('Report')).toBe('unpaid-invoices');
    expect(about.get('Title')).toBe('Unpaid invoices');
    expect(about.get('As of')).toBe('2025-06-30');
    expect(Date.parse(about.get('Generated at') ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(about.get('Aging basis')).toBe('dueDate');
    expect(about.get('Rows (Invoices)')).toBe('3');
    expect(about.get('Rows (By org)')).toBe('2');
    expect(wb.getWorksheet('About')!.getRow(1).getCell(1).font?.bold).toBe(true);
  });

  it('makes sheet names Excel accepts: 31 characters, no \\ / ? * [ ] :, unique', async () => {
    const names = new SheetNames();
    expect(names.take('Summary: by org [2025]')).toBe('Summary_ by org _2025_');
    expect(names.take('A very long summary sheet name that Excel refuses')).toBe(
      'A very long summary sheet name ',
    );
    expect(names.take('about')).toBe('about');
    expect(names.take('About')).toBe('About (2)');
    expect(names.take("''")).toBe('Sheet');

    const wb = await xlsxOf({
      detail: { name: 'About' },
      summaries: [{ ...byOrg(), name: 'Warnings' }],
      warnings: ['w'],
    });
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Warnings', 'About', 'Warnings (2)', 'About (2)']);
  });

  it("finds where exceljs holds a sheet's XML, to wait for it (backpressure)", async () => {
    const sink = new Writable({ write: (_chunk, _enc, done) => done() });
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
      stream: sink,
      useStyles: true,
      useSharedStrings: false,
    });
    const ws = wb.addWorksheet('S');
    ws.addRow(['x']).commit();
    const backlog = sheetBacklog(ws);
    expect(backlog).toBeDefined();
    expect(typeof (backlog?.writableLength ?? backlog?._writableState?.length)).toBe('number');
    ws.commit();
    await wb.commit();
  });
});

describe('xlsx exceptions', () => {
  it('fills an exception cell red or amber itself (a reconciliation check not zero, a status), leaving the others and blank cells alone', async () => {
    const checks: Sheet = {
      name: 'Checks',
      columns: [
        { key: 'line', title: 'Line', type: 'string' },
        { key: 'check', title: 'Check', type: 'money', alert: { nonZero: 'red' } },
        {
          key: 'result',
          title: 'Result',
          type: 'string',
          alert: { red: ['different'], amber: ['not seen yet'] },
        },
      ],
      rows: [
        { line: 'Opening', check: null, result: 'matched' },
        { line: 'Check: lines', check: 0, result: 'not seen yet' },
        { line: 'Check: closing', check: -125, result: 'different' },
      ],
      totals: 'none',
    };
    const { files } = await writeReport(report({ summaries: [checks] }), {
      outDir: outDir(),
      name: 'ar-rollforward',
      asOf: '2025-06-30',
      title: 'A/R roll-forward',
      formats: ['xlsx'],
      csv: defaults.reports.csv,
    });
    const ws = (await readXlsx(files[0]!)).getWorksheet('Checks')!;
    const fillOf = (row: number, column: number) => {
      const f = ws.getRow(row).getCell(column).fill as ExcelJS.FillPattern | undefined;
      return f?.type === 'pattern' ? f.fgColor?.argb : undefined;
    };
    expect([fillOf(2, 2), fillOf(3, 2), fillOf(4, 2)]).toEqual([undefined, undefined, 'FFFFC7CE']);
    expect([fillOf(2, 3), fillOf(3, 3), fillOf(4, 3)]).toEqual([undefined, 'FFFFEB9C', 'FFFFC7CE']);
  });
});
