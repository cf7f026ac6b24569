import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CsvRenderer,
  RenderOptionsError,
  RenderValueError,
  type Row,
  writeReport,
  XlsxRenderer,
} from '../../src/render/index.js';
import { reportSummary } from '../../src/render/report-summary.js';
import { defaults } from '../helpers/defaults.js';
import { everyType, everyTypeRows, outDir, readXlsx, report } from './fixtures.js';

const opts = (dir: string) =>
  ({
    outDir: dir,
    name: 'unpaid-invoices',
    asOf: '2025-06-30',
    title: 'Unpaid invoices',
    csv: defaults.reports.csv,
  }) as const;

function manyRows(n: number, failAt?: number): Iterable<Row> {
  return (function* () {
    for (let i = 1; i <= n; i++) {
      if (i === failAt) throw new Error('the source failed');
      yield { orgId: i, org: `Org ${i}`, invoiceDate: '2025-06-30', balance: i * 100, open: i % 2 === 0 };
    }
  })();
}

describe('writeReport', () => {
  it('feeds both formats in one pass over rows that can be read only once', async () => {
    let passes = 0;
    const once: Iterable<Row> = {
      [Symbol.iterator]() {
        passes++;
        if (passes > 1) throw new Error('rows read twice');
        return everyTypeRows[Symbol.iterator]();
      },
    };
    const dir = outDir();
    const out = await writeReport(report({ detail: { rows: once } }), {
      ...opts(dir),
      formats: ['xlsx', 'csv'],
    });
    expect(passes).toBe(1);
    expect(out.rows).toBe(3);
    expect(out.files).toEqual([
      join(dir, 'unpaid-invoices-2025-06-30.xlsx'),
      join(dir, 'unpaid-invoices-2025-06-30.csv'),
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      'unpaid-invoices-2025-06-30.csv',
      'unpaid-invoices-2025-06-30.xlsx',
    ]);
    expect(readFileSync(out.files[1]!, 'utf8').split('\r\n')).toHaveLength(5);
    expect((await readXlsx(out.files[0]!)).worksheets[0]!.rowCount).toBe(4);
  });

  it('takes an async source, creates the directory and returns the warnings', async () => {
    async function* rows(): AsyncGenerator<Row> {
      for (const r of everyTypeRows) {
        await new Promise((resolve) => setImmediate(resolve));
        yield r;
      }
    }
    const dir = join(outDir(), 'nested', 'out');
    const out = await writeReport(report({ detail: { rows: rows() }, warnings: ['w'] }), {
      ...opts(dir),
      formats: ['csv', 'xlsx'],
    });
    expect(out.rows).toBe(3);
    expect(out.warnings).toEqual(['w']);
    expect(out.files.map((f) => f.slice(-4))).toEqual(['.csv', 'xlsx']);
  });

  it('leaves no file when the rows fail mid-stream, and an earlier report untouched', async () => {
    const dir = outDir();
    const earlier = join(dir, 'unpaid-invoices-2025-06-30.csv');
    writeFileSync(earlier, 'the earlier report\r\n');
    await expect(
      writeReport(report({ detail: { rows: manyRows(20_000, 15_000) } }), {
        ...opts(dir),
        formats: ['xlsx', 'csv'],
      }),
    ).rejects.toThrow('the source failed');
    expect(readdirSync(dir)).toEqual(['unpaid-invoices-2025-06-30.csv']);
    expect(readFileSync(earlier, 'utf8')).toBe('the earlier report\r\n');
  });

  it('leaves no file when the tail fails', async () => {
    const dir = outDir();
    const result = report();
    result.summaries = () => {
      throw new Error('summary failed');
    };
    await expect(writeReport(result, { ...opts(dir), formats: ['xlsx', 'csv'] })).rejects.toThrow(
      'summary failed',
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('rejects a value that does not fit its column, naming sheet, row and column', async () => {
    const dir = outDir();
    const rows: Row[] = [...everyTypeRows.slice(0, 2), { orgId: 9, balance: '12.50' }];
    for (const formats of [['xlsx'], ['csv']] as const) {
      const failure = writeReport(report({ detail: { rows } }), { ...opts(dir), formats: [...formats] });
      await expect(failure).rejects.toBeInstanceOf(RenderValueError);
      await expect(failure).rejects.toMatchObject({
        code: 'RENDER_INVALID_VALUE',
        message: `sheet 'Invoices', row 3, column 'balance' (money): expected whole cents, got "12.50"`,
      });
    }
    const bad: [string, Row][] = [
      ['invoiceDate', { invoiceDate: '2025-02-30' }],
      ['invoiceDate', { invoiceDate: '30/06/2025' }],
      ['createdAt', { createdAt: 'yesterday' }],
      ['balance', { balance: 12.5 }],
      ['orgId', { orgId: 1.5 }],
      ['ageHours', { ageHours: Number.NaN }],
      ['open', { open: 'yes' }],
    ];
    for (const [key, row] of bad)
      await expect(
        writeReport(report({ detail: { rows: [row] } }), { ...opts(dir), formats: ['csv'] }),
      ).rejects.toThrow(`column '${key}'`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('checks its options', async () => {
    const dir = outDir();
    const bad = [
      { ...opts(dir), formats: [] },
      { ...opts(dir), formats: ['pdf' as 'csv'] },
      { ...opts(dir), name: '../escape', formats: ['csv' as const] },
      { ...opts(dir), asOf: 'today', formats: ['csv' as const] },
    ];
    for (const o of bad) await expect(writeReport(report(), o)).rejects.toBeInstanceOf(RenderOptionsError);
  });

  it('waits for the output (backpressure) so a synchronous source cannot pile rows up in memory', async () => {
    const dir = outDir();
    const layout = { name: 'Invoices', columns: everyType };
    for (const renderer of [
      new XlsxRenderer(join(dir, 'a.xlsx'), layout),
      new CsvRenderer(join(dir, 'a.csv'), layout, defaults.reports.csv),
    ]) {
      let waits = 0;
      for (const row of manyRows(30_000)) {
        const wait = renderer.write(row);
        if (wait !== undefined) {
          waits++;
          await wait;
        }
      }
      await renderer.finish({
        summaries: [],
        warnings: [],
        about: [],
        summary: reportSummary({ name: 'a', title: 'A', asOf: '2025-06-30' }, undefined, 30_000, 0),
      });
      // The xlsx writer looks at exceljs's internal stream; if exceljs changed, it would only yield.
      expect(waits, renderer.format).toBeGreaterThan(0);
    }
    expect((await readXlsx(join(dir, 'a.xlsx'))).worksheets[0]!.rowCount).toBe(30_001);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8').split('\r\n')).toHaveLength(30_002);
  });
});
