import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import { writeReport } from '../../src/render/index.js';
import type { ReportDefinition, ReportParams } from '../../src/reports/index.js';
import { reportNamed } from '../../src/reports/index.js';
import { defaults } from '../helpers/defaults.js';
import { engines } from '../helpers/engines.js';
import { history, params, policy, tempMirrors, upsert } from './fixture.js';

const compliance = reportNamed('compliance');
const unpaidInvoices = reportNamed('unpaid-invoices');
const orderAgeing = reportNamed('order-ageing');

/**
 * The workbooks as a person sees them: each opens on a summary; every sheet prints
 * landscape when wide, one page wide, header row repeated, a footer with page X of Y; the
 * exception statuses are red / amber; no text cell holds a stored apostrophe. Read back with
 * exceljs from the files the renderers wrote.
 */
const dir = mkdtempSync(join(tmpdir(), 'ohs-workbook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function workbook(def: ReportDefinition, m: Mirror, p: ReportParams): Promise<ExcelJS.Workbook> {
  const result = await def.run({ db: m.db, params: p });
  const { files } = await writeReport(result, {
    outDir: dir,
    name: def.name,
    asOf: p.time.asOf.dateText,
    title: def.title,
    formats: ['xlsx'],
    csv: defaults.reports.csv,
  });
  expect(statSync(files[0] as string).mode & 0o777).toBe(0o600);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(files[0] as string);
  return wb;
}

/**
 * Conditional-formatting texts of a sheet: the formulae of its rules, the codes matched exactly;
 * each code's qualified form ("BEHIND (assumed rate)", amber) has a rule of its own, checked here.
 */
function alertTexts(ws: ExcelJS.Worksheet): string[] {
  const cfs = (ws as unknown as { conditionalFormattings?: { rules: { formulae?: string[] }[] }[] })
    .conditionalFormattings;
  const all = (cfs ?? []).flatMap((cf) => cf.rules.flatMap((r) => r.formulae ?? []));
  const exact = all.filter((f) => !f.startsWith('LEFT('));
  for (const code of exact.filter((f) => f.startsWith('"')))
    expect(all.some((f) => f.startsWith('LEFT(') && f.endsWith(`=${code.slice(0, -1)} ("`))).toBe(true);
  return exact;
}

function checkPrint(wb: ExcelJS.Workbook, report: string, asOf: string): void {
  for (const ws of wb.worksheets) {
    const where = `${report} / ${ws.name}`;
    expect(ws.pageSetup.fitToPage, where).toBe(true);
    expect(ws.pageSetup.fitToWidth, where).toBe(1);
    expect(ws.pageSetup.fitToHeight, where).toBe(0);
    expect(ws.pageSetup.printTitlesRow, where).toBe('1:1');
    expect(ws.headerFooter.oddFooter, where).toContain('&P of &N');
    expect(ws.headerFooter.oddFooter, where).toContain(`As of ${asOf}`);
    expect(ws.headerFooter.oddFooter, where).toContain(report);
    if (ws.columnCount > 6) expect(ws.pageSetup.orientation, where).toBe('landscape');
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === 'string')
          expect(cell.value.startsWith("'"), `${where}!${cell.address}`).toBe(false);
      }),
    );
  }
}

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  describe('the workbooks as a person sees them', () => {
    it('compliance opens on YTD by org, prints fitted with a footer, NOT_MET / BEHIND / AT_RISK red', async () => {
      const m = await mirror();
      await policy(m, [{ org_id: 1, agency: 'FMCSA', dot_registration_number: 'US1' }]);
      await upsert(m, 'Invoice', [{ id: 'n1', OrgId: 1, c_org: '+1 Logistics', balance: 0 }]);
      await upsert(
        m,
        'OrgMonth',
        [1, 2, 3].map((month) => ({
          id: month,
          OrgId: 1,
          label: `2025-0${month}`,
          countEligibleRandomPool: 20,
        })),
      );
      const wb = await workbook(compliance, m, params('2025-03-31'));
      // The one-page list of problems first.
      expect(wb.worksheets[0]?.name).toBe('Problems');
      expect(wb.worksheets.map((w) => w.name)).toEqual([
        'Problems',
        'YTD by org',
        'MIS random by employer',
        'Catch-up',
        'Trend',
        'Compliance',
        'About',
      ]);
      checkPrint(wb, 'compliance', '2025-03-31');
      const detail = wb.getWorksheet('Compliance') as ExcelJS.Worksheet;
      expect(alertTexts(detail)).toEqual(expect.arrayContaining(['"NOT_MET"', '"BEHIND"', '"AT_RISK"']));
      expect(detail.autoFilter).toBeDefined();
      // The org name is stored as it is: no apostrophe shows in front of "+1 Logistics".
      expect((wb.getWorksheet('YTD by org') as ExcelJS.Worksheet).getRow(2).getCell(2).value).toBe(
        '+1 Logistics',
      );
      // The totals row is bold; the summary has an autofilter.
      const ytd = wb.getWorksheet('YTD by org') as ExcelJS.Worksheet;
      expect(ytd.getRow(3).getCell(2).value).toBe('Total DOT');
      expect(ytd.getRow(3).getCell(2).font?.bold).toBe(true);
      expect(ytd.autoFilter).toBeDefined();
      const about = wb.getWorksheet('About') as ExcelJS.Worksheet;
      expect(about.getRow(2).getCell(2).alignment?.wrapText).toBe(true);
    });

    it('unpaid invoices opens on By org; 91+ red, 61-90 amber', async () => {
      const m = await mirror();
      await upsert(m, 'Invoice', [
        {
          id: '1',
          OrgId: 1,
          c_org: '@Home Health Services',
          date: '2025-01-01',
          dateDue: '2025-03-01',
          balance: 10,
        },
        {
          id: '2',
          OrgId: 1,
          c_org: '@Home Health Services',
          date: '2025-01-01',
          dateDue: '2025-04-15',
          balance: 5,
        },
      ]);
      const wb = await workbook(unpaidInvoices, m, params('2025-06-30'));
      expect(wb.worksheets[0]?.name).toBe('By org');
      checkPrint(wb, 'unpaid-invoices', '2025-06-30');
      expect(alertTexts(wb.getWorksheet('Unpaid invoices') as ExcelJS.Worksheet)).toEqual([
        '"91+"',
        '"61-90"',
        '"cancelled"',
      ]);
      expect(alertTexts(wb.getWorksheet('By org') as ExcelJS.Worksheet)).toEqual(['0', '0']);
    });

    it('order ageing opens on By org; STUCK red, WARN amber', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [
        {
          id: 1,
          OrgId: 1,
          c_org: '=Acme',
          c_productName: 'DOT Urine Drug Test',
          c_currentStatusCodeName: 'Ordered',
          CurrentStatusId: 101,
          CreationTimestamp: '2025-06-01T00:00:00Z',
        },
      ]);
      await history(m, [
        { orderitem_id: 1, status_id: 101, status_name: 'Ordered', first_seen_at: '2025-06-01T01:00:00Z' },
      ]);
      const wb = await workbook(orderAgeing, m, params('2025-06-10'));
      expect(wb.worksheets.map((w) => w.name)).toEqual(['By org', 'By status', 'Order ageing', 'About']);
      checkPrint(wb, 'order-ageing', '2025-06-10');
      expect(alertTexts(wb.getWorksheet('Order ageing') as ExcelJS.Worksheet)).toEqual([
        '"STUCK"',
        '"WARN"',
        '"30d+"',
      ]);
      const about = wb.getWorksheet('About') as ExcelJS.Worksheet;
      const lines = new Map<string, string>();
      about.eachRow((row) => lines.set(String(row.getCell(1).value), String(row.getCell(2).value)));
      expect(lines.get('Sheets')).toBe('By org, By status, Order ageing, About');
      // The fingerprint is of the detail sheet as stored: anyone can check it from the file.
      const [hash, how] = (lines.get('Detail SHA-256') ?? '').split(' (');
      expect(how).toBe('the detail sheet as stored: unzip -p FILE xl/worksheets/sheet1.xml | sha256sum)');
      const part = execFileSync('unzip', [
        '-p',
        join(dir, 'order-ageing-2025-06-10.xlsx'),
        'xl/worksheets/sheet1.xml',
      ]);
      expect(hash).toBe(createHash('sha256').update(part).digest('hex'));
    });
  });
});
