import { describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import { ReportParamError } from '../../src/reports/core/errors.js';
import { reportNamed } from '../../src/reports/index.js';
import { engines } from '../helpers/engines.js';
import {
  aboutValue,
  params,
  policy,
  runReport,
  softDelete,
  syncState,
  tempMirrors,
  upsert,
} from './fixture.js';

const unpaidInvoices = reportNamed('unpaid-invoices');

/**
 * Unpaid invoices (docs/reports.md, Unpaid invoices): a worked example (as of 2025-06-30, one
 * org, its invoices and expected figures written out below), its variants and the edge cases.
 */

interface Inv {
  id: string;
  dateDue?: string | null;
  date?: string | null;
  balance: number;
  lateFee?: number | null;
  OrgId?: number;
  c_org?: string;
  month?: number;
  year?: number;
  dropInvoice?: string;
}

async function invoices(m: Mirror, list: Inv[]): Promise<void> {
  await upsert(
    m,
    'Invoice',
    list.map((i) => ({ OrgId: 1, c_org: 'Acme Haulage', date: '2025-03-01', month: 3, year: 2025, ...i })),
  );
}

/** The worked example's invoices I1..I6. */
const example: Inv[] = [
  { id: '240001', dateDue: '2025-06-30', balance: 100 },
  { id: '240002', dateDue: '2025-06-29', balance: 50 },
  { id: '240003', dateDue: '2025-05-31', balance: 25.5 },
  { id: '240004', dateDue: '2025-05-30', balance: 200 },
  { id: '240005', dateDue: '2025-04-01', balance: 10 },
  { id: '240006', dateDue: '2025-03-31', balance: 300, lateFee: 15 },
];

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  describe('unpaid invoices: the worked example', () => {
    it('ages I1..I6 into their buckets and sums them per org in cents', async () => {
      const m = await mirror();
      await invoices(m, example);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      // Sorted by org, days past due descending.
      expect(ran.detail.map((r) => [r.invoiceId, r.daysPastDue, r.bucket, r.balance, r.totalDue])).toEqual([
        ['240006', 91, '91+', 30000, 30000],
        ['240005', 90, '61-90', 1000, 1000],
        ['240004', 31, '31-60', 20000, 20000],
        ['240003', 30, '1-30', 2550, 2550],
        ['240002', 1, '1-30', 5000, 5000],
        ['240001', 0, 'Current', 10000, 10000],
      ]);
      expect(ran.detail[0]).toMatchObject({
        orgId: 1,
        org: 'Acme Haulage',
        invoiceDate: '2025-03-01',
        dueDate: '2025-03-31',
        billingPeriod: '2025-03',
        lateFee: 1500,
        flags: null,
        status: 'open',
      });
      const byOrg = await ran.summary('By org');
      expect(byOrg).toHaveLength(2);
      expect(byOrg[0]).toMatchObject({
        orgId: 1,
        org: 'Acme Haulage',
        current: 10000,
        d1_30: 7550,
        d31_60: 20000,
        d61_90: 1000,
        d91Plus: 30000,
        credits: 0,
        total: 68550,
        lateFees: 1500,
        openInvoices: 6,
        oldestDaysPastDue: 91,
      });
      expect(byOrg[0]?.over60Share as number).toBeCloseTo(0.4522, 4);
      expect(byOrg[1]).toMatchObject({ org: 'Total', total: 68550, d91Plus: 30000 });
      const buckets = await ran.summary('Buckets');
      expect(buckets.map((b) => [b.bucket, b.amount, b.invoices])).toEqual([
        ['Current', 10000, 1],
        ['1-30', 7550, 2],
        ['31-60', 20000, 1],
        ['61-90', 1000, 1],
        ['91+', 30000, 1],
        ['Credits', 0, 0],
        ['Total', 68550, 6],
      ]);
      expect(buckets[4]?.share as number).toBeCloseTo(300 / 685.5, 10);
      expect(buckets[6]?.share).toBe(1);
    });

    it('with lateFeeInBalance = false the late fee is added and bucketed: 91+ 315.00, total 700.50', async () => {
      const m = await mirror();
      await invoices(m, example);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30', { lateFeeInBalance: false }));
      expect(ran.detail[0]).toMatchObject({
        invoiceId: '240006',
        balance: 30000,
        lateFee: 1500,
        totalDue: 31500,
      });
      const [org] = await ran.summary('By org');
      expect(org).toMatchObject({ d91Plus: 31500, total: 70050 });
      expect(org?.over60Share as number).toBeCloseTo(325 / 700.5, 10);
      expect(aboutValue(ran, 'Late fees')).toContain('totalDue = balance + lateFee');
    });

    it('adding I7 at -40.00 gives Credits -40.00 and a total of 645.50', async () => {
      const m = await mirror();
      await invoices(m, [...example, { id: '240007', dateDue: '2025-01-31', balance: -40 }]);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      const i7 = ran.detail.find((r) => r.invoiceId === '240007');
      expect(i7).toMatchObject({ bucket: 'Credits', daysPastDue: 150, totalDue: -4000 });
      const [org] = await ran.summary('By org');
      expect(org).toMatchObject({ credits: -4000, total: 64550, openInvoices: 7, oldestDaysPastDue: 91 });
      const buckets = await ran.summary('Buckets');
      expect(buckets.find((b) => b.bucket === 'Credits')).toMatchObject({ amount: -4000, invoices: 1 });
      // Shares are of the balances owed (685.50), credits apart: unchanged by the credit.
      expect(org?.over60Share as number).toBeCloseTo(310 / 685.5, 10);
      expect(buckets.find((b) => b.bucket === 'Credits')?.share).toBeNull();
      expect(buckets.find((b) => b.bucket === '91+')?.share as number).toBeCloseTo(300 / 685.5, 10);
    });

    it('% over 60 days stays at or under 100% with credits (of the balances owed, credits apart)', async () => {
      const m = await mirror();
      // All that is owed is over 60 days; a credit nets the total down to 60.00.
      await invoices(m, [
        { id: '240001', dateDue: '2025-03-31', balance: 100 },
        { id: '240002', dateDue: '2025-06-30', balance: -40 },
      ]);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      const [org, total] = await ran.summary('By org');
      expect(org).toMatchObject({ total: 6000, credits: -4000, over60Share: 1 });
      expect(total).toMatchObject({ total: 6000, over60Share: 1 });
      const buckets = await ran.summary('Buckets');
      for (const b of buckets) if (typeof b.share === 'number') expect(b.share).toBeLessThanOrEqual(1);
      expect(buckets.find((b) => b.bucket === '91+')?.share).toBe(1);
      expect(buckets.find((b) => b.bucket === 'Total')?.share).toBeNull();
    });
  });

  describe('unpaid invoices: edge cases', () => {
    it('includes invoices dated up to the as-of date with a balance of at least half a cent', async () => {
      const m = await mirror();
      await invoices(m, [
        { id: '1', dateDue: '2025-07-31', balance: 10, date: '2025-06-30' },
        { id: '2', dateDue: '2025-07-31', balance: 10, date: '2025-07-01' },
        { id: '3', dateDue: '2025-06-01', balance: 0 },
        { id: '4', dateDue: '2025-06-01', balance: 0.004 },
        { id: '5', dateDue: '2025-06-01', balance: 0.005 },
        { id: '6', dateDue: '2025-06-01', balance: 99 },
      ]);
      await softDelete(m, 'invoice', '6');
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      expect(ran.detail.map((r) => [r.invoiceId, r.balance, r.daysPastDue])).toEqual([
        ['5', 1, 29],
        ['1', 1000, -31],
      ]);
      expect(aboutValue(ran, 'Dated after the as-of date (excluded)')).toBe('1');
    });

    it('ages an invoice without a due date from its date, flags a due date before the date, reads US dates', async () => {
      const m = await mirror();
      await invoices(m, [
        { id: '1', dateDue: null, date: '2025-06-10', balance: 5 },
        { id: '2', dateDue: '2025-05-01', date: '2025-06-01', balance: 5 },
        {
          id: '3',
          dateDue: '06/15/2025',
          date: '05/16/2025',
          balance: 5,
          lateFee: null,
        },
        { id: '4', dateDue: 'soon', date: '2025-06-20', balance: 5 },
        { id: '5', date: 'someday', balance: 5 },
      ]);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      const by = (id: string) => ran.detail.find((r) => r.invoiceId === id);
      expect(by('1')).toMatchObject({ dueDate: '2025-06-10', daysPastDue: 20, flags: 'NO_DUE_DATE' });
      expect(by('2')).toMatchObject({ daysPastDue: 60, bucket: '31-60', flags: 'DATA_CHECK' });
      expect(by('3')).toMatchObject({
        invoiceDate: '2025-05-16',
        dueDate: '2025-06-15',
        daysPastDue: 15,
        lateFee: 0,
        status: 'open',
      });
      expect(by('4')).toMatchObject({ daysPastDue: 10, flags: 'BAD_DUE_DATE' });
      expect(by('5')).toBeUndefined();
      expect(ran.warnings).toEqual([
        // The fixture's balances were synced on 2025-07-01, after the as-of date.
        expect.stringMatching(
          /^BALANCES NEWER THAN THE AS-OF DATE: the balances were read at 2025-07-01T02:00:00Z/,
        ),
        '1 invoice(s) with an unreadable date, not aged: 5 ("someday")',
        '1 invoice(s) without a due date, aged as due on their date: 1',
        '1 invoice(s) with an unreadable due date, aged as due on their date: 4 ("soon")',
        '1 invoice(s) due before their date (DATA_CHECK): 2 (due 2025-05-01 before its date 2025-06-01)',
      ]);
    });

    it('month and year never drive aging; agingBasis invoiceDate ages from the date', async () => {
      const m = await mirror();
      await invoices(m, [
        { id: '1', date: '2025-05-01', dateDue: '2025-05-31', balance: 1, month: 1, year: 2020 },
      ]);
      const due = await runReport(unpaidInvoices, m, params('2025-06-30'));
      expect(due.detail[0]).toMatchObject({ daysPastDue: 30, bucket: '1-30', billingPeriod: '2020-01' });
      const dated = await runReport(unpaidInvoices, m, params('2025-06-30', { agingBasis: 'invoiceDate' }));
      expect(dated.detail[0]).toMatchObject({ daysPastDue: 60, bucket: '31-60' });
    });

    it('configurable periods name the buckets and summary columns', async () => {
      const m = await mirror();
      await invoices(m, example);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30', { periodDays: 45, periods: 2 }));
      expect(ran.detail.map((r) => r.bucket)).toEqual(['91+', '46-90', '1-45', '1-45', '1-45', 'Current']);
      const sheet = ran.summaries.find((s) => s.name === 'By org');
      expect(sheet?.columns.map((c) => c.key).slice(2, 7)).toEqual([
        'current',
        'd1_45',
        'd46_90',
        'd91Plus',
        'credits',
      ]);
    });

    it('orders orgs by total or by name, sorts detail by org name, and filters orgIds with children', async () => {
      const m = await mirror();
      await invoices(m, [
        { id: '1', OrgId: 1, c_org: 'Beta', dateDue: '2025-06-01', balance: 10 },
        { id: '2', OrgId: 2, c_org: 'alpha', dateDue: '2025-06-01', balance: 5 },
        { id: '3', OrgId: 3, c_org: 'Gamma', dateDue: '2025-06-01', balance: 50 },
        { id: '4', OrgId: 2, c_org: 'alpha', dateDue: '2025-05-01', balance: 4 },
      ]);
      await policy(m, [{ org_id: 3, parent_org_id: 1 }]);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      expect(ran.detail.map((r) => r.invoiceId)).toEqual(['4', '2', '1', '3']);
      expect((await ran.summary('By org')).map((r) => r.org)).toEqual(['Gamma', 'Beta', 'alpha', 'Total']);
      const byName = await runReport(unpaidInvoices, m, params('2025-06-30', { summarySort: 'name' }));
      expect((await byName.summary('By org')).map((r) => r.org)).toEqual(['alpha', 'Beta', 'Gamma', 'Total']);
      const one = await runReport(unpaidInvoices, m, params('2025-06-30', {}, { orgIds: [1] }));
      expect(one.detail.map((r) => r.invoiceId)).toEqual(['1']);
      const family = await runReport(
        unpaidInvoices,
        m,
        params('2025-06-30', { includeChildren: true }, { orgIds: [1] }),
      );
      expect(family.detail.map((r) => r.invoiceId)).toEqual(['1', '3']);
    });

    it('rejects bad options naming them', async () => {
      const m = await mirror();
      await expect(
        unpaidInvoices.run({ db: m.db, params: params('2025-06-30', { periodDays: 0 }) }),
      ).rejects.toThrow(ReportParamError);
      await expect(
        unpaidInvoices.run({ db: m.db, params: params('2025-06-30', { agingBasis: 'due' }) }),
      ).rejects.toMatchObject({ code: 'REPORT_PARAM_INVALID', param: 'options.agingBasis' });
      await expect(
        unpaidInvoices.run({ db: m.db, params: params('2025-06-30', { lateFeeInBalance: 'maybe' }) }),
      ).rejects.toMatchObject({ param: 'options.lateFeeInBalance' });
    });

    it('states its limitation and source on the About sheet', async () => {
      const m = await mirror();
      await syncState(m, 'invoice', '2025-07-01T02:00:00.000Z');
      await invoices(m, example);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      expect(aboutValue(ran, 'Limitation')).toContain('as-of date changes the aging, not the amounts');
      expect(aboutValue(ran, 'Last sync of invoice')).toContain('2025-07-01T02:00:00.000Z');
      expect(aboutValue(ran, 'Open invoices')).toBe('6');
    });
  });

  describe('unpaid invoices: what a controller asks', () => {
    it('a cancelled invoice (dropInvoice filled) leaves every bucket and total, listed as VOID', async () => {
      const m = await mirror();
      await invoices(m, [
        ...example,
        { id: '240007', dateDue: '2025-03-01', balance: 999.99, dropInvoice: 'https://x/void.pdf' },
        // An explicit no is not a cancellation.
        { id: '240008', dateDue: '2025-06-30', balance: 1, dropInvoice: 'false' },
      ]);
      const ran = await runReport(unpaidInvoices, m, params('2025-06-30'));
      // In the detail (and so the CSV) with status cancelled, after the org's open invoices
      //, so a BI tool reconciles "Total with cancelled".
      expect(ran.detail.at(-1)).toMatchObject({ invoiceId: '240007', status: 'cancelled', bucket: 'VOID' });
      expect(ran.detail.filter((r) => r.status === 'cancelled')).toHaveLength(1);
      expect(ran.detail.find((r) => r.invoiceId === '240008')).toMatchObject({ bucket: 'Current' });
      const byOrg = await ran.summary('By org');
      // The worked example's 685.50 plus the 1.00 of 240008: the 999.99 is owed by nobody.
      expect(byOrg.at(-1)).toMatchObject({ org: 'Total', total: 68650, d91Plus: 30000, openInvoices: 7 });
      expect(await ran.summary('VOID')).toEqual([
        expect.objectContaining({ invoiceId: '240007', bucket: 'VOID', flags: 'VOID', balance: 99999 }),
      ]);
      const buckets = await ran.summary('Buckets');
      expect(buckets.slice(-3)).toEqual([
        { bucket: 'Total', amount: 68650, share: 1, invoices: 7 },
        { bucket: 'VOID (cancelled, not owed)', amount: 99999, share: null, invoices: 1 },
        { bucket: 'Total with cancelled', amount: 168649, share: null, invoices: 8 },
      ]);
      expect(ran.warnings.some((w) => w.startsWith('1 cancelled invoice(s)'))).toBe(true);
      expect(aboutValue(ran, 'Cancelled invoices')).toContain('dropInvoice = cancelled');
      // A service that fills the field with something else: the reading is an option.
      const ignored = await runReport(unpaidInvoices, m, params('2025-06-30', { dropInvoice: 'ignore' }));
      expect(ignored.detail.find((r) => r.invoiceId === '240007')).toMatchObject({
        bucket: '91+',
        status: 'open',
      });
    });

    it('titles the days column after the aging basis', async () => {
      const m = await mirror();
      await invoices(m, example);
      const dated = await unpaidInvoices.run({
        db: m.db,
        params: params('2025-06-30', { agingBasis: 'invoiceDate' }),
      });
      expect(dated.detail.columns.find((c) => c.key === 'daysPastDue')?.title).toBe(
        'Days since invoice date',
      );
      const due = await unpaidInvoices.run({ db: m.db, params: params('2025-06-30') });
      expect(due.detail.columns.find((c) => c.key === 'daysPastDue')?.title).toBe('Days past due');
    });

    it('warns of a future as-of date, an as-of before every invoice, and an unreadable balance', async () => {
      const m = await mirror();
      await invoices(m, [
        { id: '1', date: '2025-03-01', dateDue: '2025-03-31', balance: 10 },
        { id: '2', date: '2025-03-01', dateDue: '2025-03-31', balance: 'lots' as unknown as number },
        {
          id: '3',
          date: '2025-03-01',
          dateDue: '2025-03-31',
          balance: 5,
          lateFee: 'some' as unknown as number,
        },
        { id: '4', date: '2025-03-01', dateDue: '2025-03-31', balance: null as unknown as number },
      ]);
      const early = await runReport(unpaidInvoices, m, params('2025-01-31'));
      expect(early.detail).toHaveLength(0);
      expect(early.warnings).toContain(
        'No data for this as-of: the as-of date 2025-01-31 is before every invoice (2 dated after it)',
      );
      // A balance unreadable or null never disappears silently, and is never read as paid.
      const unknown = early.warnings.filter((w) =>
        w.startsWith(
          '2 invoice(s) with an unreadable balance (balance unknown: null, absent or not a number): held apart, in no bucket and no total, never counted as paid or credited: ',
        ),
      );
      expect(unknown).toHaveLength(1);
      expect(unknown[0]?.split(': ').at(-1)?.split(', ').sort()).toEqual(['2 ("lots")', '4']);
      const future = await runReport(unpaidInvoices, m, params('2999-12-31'));
      expect(future.warnings.some((w) => w.startsWith('The as-of date 2999-12-31 is in the future'))).toBe(
        true,
      );
      expect(future.detail.find((r) => r.invoiceId === '3')).toMatchObject({
        lateFee: 0,
        flags: 'BAD_LATE_FEE',
      });
      expect(aboutValue(future, 'Unreadable date (excluded)')).toBe('0');
      expect(aboutValue(future, 'Balance unknown: null or unreadable (held apart, never paid)')).toBe('2');
    });
  });
});
