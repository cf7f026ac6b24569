import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import { writeReport } from '../../src/render/index.js';
import type { ReportDefinition, ReportParams } from '../../src/reports/index.js';
import { reportByName, reports } from '../../src/reports/index.js';
import { defaults } from '../helpers/defaults.js';
import { engines } from '../helpers/engines.js';
import { history, params, syncState, tempMirrors, upsert } from './fixture.js';

/**
 * The reports through the renderers (src/render writeReport): the CSV is headed by docs/reports.md's
 * column keys in order, holds the detail rows; the xlsx has the detail, the summaries, Warnings
 * and About, with typed cells. A formula-like org name reaches the files neutralised.
 */
const EVIL = '=HYPERLINK("http://x","y")';

const csvKeys: Record<ReportDefinition['name'], string> = {
  compliance:
    'orgId, org, year, month, pool, exposure, drugRate, drugPicked, drugCompleted, drugPickedYtd, drugCompletedYtd, drugExpectedToDate, drugAnnualTarget, drugStatus, alcoholRate, alcoholPicked, alcoholCompleted, alcoholPickedYtd, alcoholCompletedYtd, alcoholExpectedToDate, alcoholAnnualTarget, alcoholStatus, rateSource, flags',
  'unpaid-invoices':
    'orgId, org, invoiceId, invoiceDate, dueDate, billingPeriod, daysPastDue, bucket, balance, lateFee, totalDue, flags',
  'order-ageing':
    'orderItemId, orgId, org, product, person, status, stage, createdAt, ageHours, ageBucket, statusSince, sinceIsLowerBound, timeInStatusHours, statusBucket, flag',
  'catch-up':
    'orgId, org, year, throughMonth, testType, verdict, perPeriod, needed, annualTarget, completedYtd, pending, selection, periodsLeft, pacePerPeriod, paceTests, paceRate, avgPool, rate, rateSource, assumedRate, reason',
  'ar-rollforward':
    'invoiceId, orgId, org, invoiceDate, opening, new, increases, decreases, decreasesApplied, decreasesElsewhere, cancellations, restorations, removed, closing',
  'accounts-at-risk':
    'orgId, org, kinds, kindCount, complianceStatus, complianceBasis, drugStatus, alcoholStatus, openBalance, balance91Plus, oldestDaysPastDue, openOrders, onHold, stuck, lastDrugAlcoholOrder, daysSinceLastOrder',
  changes: 'severity, area, kind, orgId, org, subject, before, after, count, evidenceBefore, evidenceAfter',
};

const outDirs: string[] = [];
afterAll(async () => {
  for (const d of outDirs) await rm(d, { recursive: true, force: true });
});

async function write(def: ReportDefinition, m: Mirror, p: ReportParams) {
  const dir = await mkdtemp(join(tmpdir(), 'ohs-report-files-'));
  outDirs.push(dir);
  const result = await def.run({ db: m.db, params: p });
  const out = await writeReport(result, {
    outDir: dir,
    name: def.name,
    asOf: p.time.asOf.dateText,
    title: def.title,
    formats: ['xlsx', 'csv'],
    csv: defaults.reports.csv,
  });
  const text = readFileSync(join(dir, `${def.name}-${p.time.asOf.dateText}.csv`), 'utf8');
  // UTF-8 with a BOM, so that Excel reads accented names right.
  expect(text.charCodeAt(0)).toBe(0xfeff);
  const csv = text.slice(1).split('\r\n');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(join(dir, `${def.name}-${p.time.asOf.dateText}.xlsx`));
  return { out, csv, wb };
}

/** The cells of a CSV line whose only quoted field is the neutralised org name. */
function cells(line: string | undefined): string[] {
  return (line ?? '').replace(`"'=HYPERLINK(""http://x"",""y"")"`, 'ORG').split(',');
}

function noFormulas(wb: ExcelJS.Workbook): void {
  for (const sheet of wb.worksheets)
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        expect(cell.type, `${sheet.name}!${cell.address}`).not.toBe(ExcelJS.ValueType.Formula);
      }),
    );
}

describe('the report registry', () => {
  it('lists the reports by name, each with its CSV keys first and in order', () => {
    expect(reports.map((r) => r.name)).toEqual([
      'compliance',
      'unpaid-invoices',
      'order-ageing',
      'catch-up',
      'ar-rollforward',
      'accounts-at-risk',
      'changes',
    ]);
    expect(reportByName('order-ageing')?.title).toBe('Order status ageing');
    expect(reportByName('nope')).toBeUndefined();
  });
});

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  describe('reports written by writeReport', () => {
    it('unpaid-invoices: the CSV of the worked example and its xlsx', async () => {
      const m = await mirror();
      await syncState(m, 'invoice', '2025-07-01T02:00:00.000Z');
      await upsert(m, 'Invoice', [
        {
          id: '240006',
          OrgId: 1,
          c_org: EVIL,
          date: '2025-03-01',
          dateDue: '2025-03-31',
          balance: 300,
          lateFee: 15,
          month: 3,
          year: 2025,
        },
        {
          id: '240003',
          OrgId: 1,
          c_org: EVIL,
          date: '2025-03-01',
          dateDue: '2025-05-31',
          balance: 25.5,
          month: 3,
          year: 2025,
        },
        { id: '240007', OrgId: 1, c_org: EVIL, date: '2025-03-01', balance: -40 },
      ]);
      const { out, csv, wb } = await write(
        reportByName('unpaid-invoices') as ReportDefinition,
        m,
        params('2025-06-30'),
      );
      expect(out.rows).toBe(3);
      const keys = csvKeys['unpaid-invoices'].split(', ');
      expect(csv[0]?.split(',').slice(0, keys.length)).toEqual(keys);
      expect(csv.slice(1, 4)).toEqual([
        `1,"'=HYPERLINK(""http://x"",""y"")",240007,2025-03-01,2025-03-01,,121,Credits,-40.00,0.00,-40.00,NO_DUE_DATE,open`,
        `1,"'=HYPERLINK(""http://x"",""y"")",240006,2025-03-01,2025-03-31,2025-03,91,91+,300.00,15.00,300.00,,open`,
        `1,"'=HYPERLINK(""http://x"",""y"")",240003,2025-03-01,2025-05-31,2025-03,30,1-30,25.50,0.00,25.50,,open`,
      ]);
      // The workbook opens on the summary; the detail follows it.
      expect(wb.worksheets.map((w) => w.name)).toEqual([
        'By org',
        'Buckets',
        'Trend',
        'Unpaid invoices',
        'Warnings',
        'About',
      ]);
      const detail = wb.getWorksheet('Unpaid invoices') as ExcelJS.Worksheet;
      expect(detail.getRow(1).getCell(9).value).toBe('Balance');
      // A typed text cell is never a formula: the name is stored as it is, no apostrophe.
      expect(detail.getRow(3).getCell(2).value).toBe(EVIL);
      // The org's subtotal, then the grand total, bold (xlsx only).
      expect(detail.getRow(5).getCell(2).value).toBe(`Subtotal ${EVIL}`);
      expect(detail.getRow(5).getCell(9).value).toBe(285.5);
      expect(detail.getRow(6).getCell(2).value).toBe('Total');
      expect(detail.getRow(6).font?.bold ?? detail.getRow(6).getCell(9).font?.bold).toBe(true);
      expect(detail.getRow(3).getCell(9).value).toBe(300);
      expect(detail.getRow(3).getCell(4).value).toEqual(new Date(Date.UTC(2025, 2, 1)));
      const byOrg = wb.getWorksheet('By org') as ExcelJS.Worksheet;
      expect(byOrg.getRow(3).getCell(2).value).toBe('Total');
      expect(byOrg.getRow(3).getCell(9).value).toBe(285.5);
      expect(byOrg.getRow(3).getCell(10).value).toBe(15);
      const about = wb.getWorksheet('About') as ExcelJS.Worksheet;
      const lines = new Map<string, string>();
      about.eachRow((row) => lines.set(String(row.getCell(1).value), String(row.getCell(2).value)));
      expect(lines.get('Last sync of invoice')).toContain('2025-07-01T02:00:00.000Z');
      expect(lines.get('Limitation')).toContain('changes the aging, not the amounts');
      noFormulas(wb);
    });

    it('compliance: the CSV of example 1 and its xlsx', async () => {
      const m = await mirror();
      await upsert(m, 'Invoice', [{ id: 'n', OrgId: 1, c_org: EVIL, balance: 0 }]);
      await upsert(
        m,
        'OrgMonth',
        [1, 2, 3, 4, 5, 6].map((month) => ({
          id: month,
          OrgId: 1,
          label: `2025-0${month}`,
          countEligibleRandomPool: 20,
          countPickedDrug: 1,
          countPickedDrugResult: month === 6 ? 0 : 1,
          countPickedAlcohol: month === 3 ? 1 : 0,
          countPickedAlcoholResult: month === 3 ? 1 : 0,
        })),
      );
      const { out, csv, wb } = await write(
        reportByName('compliance') as ReportDefinition,
        m,
        params('2025-06-30'),
      );
      expect(out.rows).toBe(6);
      const keys = csvKeys.compliance.split(', ');
      expect(csv[0]?.split(',').slice(0, keys.length)).toEqual(keys);
      expect(cells(csv[6]).slice(2, keys.length)).toEqual(
        '2025,6,20,120,50.0,1,0,6,5,5.00,10,ON_TRACK (assumed rate),10.0,0,0,1,1,1.00,2,ON_TRACK (assumed rate),default:FMCSA,PICKS_NOT_COMPLETED;NO_POLICY'.split(
          ',',
        ),
      );
      expect(csv[6]).toContain(`"'=HYPERLINK(""http://x"",""y"")"`);
      expect(wb.worksheets.map((w) => w.name)).toEqual([
        'Problems',
        'YTD by org',
        'Catch-up',
        'Trend',
        'Compliance',
        'Warnings',
        'About',
      ]);
      // The catch-up plan of example 1: drug 5 completed and 1 pending of 10, so 4 needed, 1 a
      // month for the 6 left (column 8: the regular draw beside it), and 6 picks in 6 months reach
      // 10 by December; alcohol 1 of 2.
      const plan = wb.getWorksheet('Catch-up') as ExcelJS.Worksheet;
      const line = (n: number) => [5, 6, 7, 9].map((c) => plan.getRow(n).getCell(c).value);
      expect([line(2), line(3)]).toEqual([
        ['drug', 'ON_PACE (assumed rate)', 1, 4],
        ['alcohol', 'ON_PACE (assumed rate)', 1, 1],
      ]);
      const ytd = wb.getWorksheet('YTD by org') as ExcelJS.Worksheet;
      expect(ytd.getRow(2).getCell(2).value).toBe(EVIL);
      noFormulas(wb);
    });

    it('order-ageing: the CSV of O1..O4 and its xlsx', async () => {
      const m = await mirror();
      const base = {
        OrgId: 1,
        c_org: EVIL,
        c_productName: 'DOT Urine',
        c_personNameFirst: 'Pat',
        c_personNameLast: 'Lee',
      };
      await upsert(m, 'OrderItem', [
        {
          ...base,
          id: 1,
          c_currentStatusCodeName: 'Ordered',
          CurrentStatusId: 101,
          CreationTimestamp: '2025-06-09T12:00:00Z',
        },
        {
          ...base,
          id: 4,
          c_currentStatusCodeName: 'Collected',
          CurrentStatusId: 103,
          CreationTimestamp: '2025-05-20T12:00:00Z',
        },
      ]);
      await history(m, [
        {
          orderitem_id: 1,
          status_id: 101,
          status_name: 'Ordered',
          first_seen_at: '2025-06-09T13:00:00.000Z',
        },
        {
          orderitem_id: 4,
          status_id: 103,
          status_name: 'Collected',
          first_seen_at: '2025-06-09T00:00:00.000Z',
        },
      ]);
      const p = params('2025-06-10', {}, { asOfTimestamp: '2025-06-10T12:00:00Z' });
      const { out, csv, wb } = await write(reportByName('order-ageing') as ReportDefinition, m, p);
      expect(out.rows).toBe(2);
      const keys = csvKeys['order-ageing'].split(', ');
      expect(csv[0]?.split(',').slice(0, keys.length)).toEqual(keys);
      expect(csv[1]).toBe(
        `4,1,"'=HYPERLINK(""http://x"",""y"")",DOT Urine,Pat Lee,Collected,COLLECTED,2025-05-20T12:00:00Z,504.0,14-30d,2025-06-09T00:00:00Z,true,36.0,1-2d,WARN,lower bound,in this status at least since the mirror first saw it,drug,,,,21.0,1.5,`,
      );
      expect(cells(csv[2]).slice(5, 15).join(',')).toBe(
        'Ordered,ORDERED,2025-06-09T12:00:00Z,24.0,1-2d,2025-06-09T12:00:00Z,false,24.0,1-2d,WARN',
      );
      expect(wb.worksheets.map((w) => w.name)).toEqual(['By org', 'By status', 'Order ageing', 'About']);
      const detail = wb.getWorksheet('Order ageing') as ExcelJS.Worksheet;
      expect(detail.getRow(2).getCell(9).value).toBe(504);
      expect(detail.getRow(2).getCell(12).value).toBe(true);
      expect(detail.getRow(2).getCell(11).value).toEqual(new Date('2025-06-09T00:00:00Z'));
      noFormulas(wb);
    });
  });
});
