import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import type { Row } from '../../src/render/types.js';
import { reportNamed } from '../../src/reports/index.js';
import { engines } from '../helpers/engines.js';
import {
  aboutValue,
  history,
  params,
  rowsOf,
  runReport,
  softDelete,
  syncState,
  tempMirrors,
  upsert,
} from './fixture.js';

const orderAgeing = reportNamed('order-ageing');

/**
 * Order ageing (docs/reports.md, Order ageing): worked examples O1..O5 (as of 2025-06-10T12:00Z,
 * written out below), their summary, the edge cases.
 */
const AS_OF = '2025-06-10T12:00:00Z';
const at = (options: Record<string, unknown> = {}, more = {}) =>
  params('2025-06-10', options, { asOfTimestamp: AS_OF, ...more });

const status = {
  Ordered: 101,
  Scheduled: 102,
  Collected: 103,
  'At Lab': 104,
  'MRO Review': 105,
  Completed: 106,
  Cancelled: 107,
  Expired: 108,
} as const;
type Name = keyof typeof status;

function item(id: number, name: Name | string, created: string, more: Record<string, unknown> = {}) {
  const statusId = (status as Record<string, number>)[name] ?? 199;
  return {
    id,
    OrgId: 1,
    c_org: 'Acme Haulage',
    c_productName: 'DOT Urine Drug Screen',
    c_personNameFirst: 'Pat',
    c_personNameLast: `Driver${id}`,
    c_currentStatusCodeName: name,
    CurrentStatusId: statusId,
    CreationTimestamp: created,
    isNotModifiable: ['Completed', 'Cancelled', 'Expired'].includes(name),
    ...more,
  };
}

const seen = (orderitem_id: number, name: Name, first_seen_at: string) => ({
  orderitem_id,
  status_id: status[name],
  status_name: name,
  first_seen_at,
});

/** The worked examples O1..O5, with the history a sync polling every few hours would have kept. */
async function examples(m: Mirror): Promise<void> {
  await upsert(m, 'OrderItem', [
    item(1, 'Ordered', '2025-06-09T12:00:00Z'),
    item(2, 'At Lab', '2025-06-05T12:00:00Z'),
    item(3, 'MRO Review', '2025-06-01T12:00:00Z'),
    item(4, 'Collected', '2025-05-20T12:00:00Z'),
    item(5, 'Cancelled', '2025-06-02T12:00:00Z'),
  ]);
  await history(m, [
    seen(1, 'Ordered', '2025-06-09T14:00:00.000Z'),
    seen(2, 'Ordered', '2025-06-05T13:00:00.000Z'),
    seen(2, 'Collected', '2025-06-06T09:00:00.000Z'),
    seen(2, 'At Lab', '2025-06-07T12:00:00.000Z'),
    seen(3, 'Ordered', '2025-06-01T12:30:00.000Z'),
    seen(3, 'At Lab', '2025-06-03T08:00:00.000Z'),
    seen(3, 'MRO Review', '2025-06-08T12:00:00.000Z'),
    // O4's history starts long after its creation: the mirror began watching it on 06-09.
    seen(4, 'Collected', '2025-06-09T00:00:00.000Z'),
    seen(5, 'Ordered', '2025-06-02T13:00:00.000Z'),
    seen(5, 'Cancelled', '2025-06-03T13:00:00.000Z'),
  ]);
}

const pick = (r: Row) => [
  r.orderItemId,
  r.stage,
  r.ageHours,
  r.ageBucket,
  r.timeInStatusHours,
  r.statusBucket,
  r.sinceIsLowerBound,
  r.flag,
];

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  describe('order ageing: the worked examples', () => {
    it('O1..O4 get their ages, buckets and flags; O5 (cancelled) is left out; sorted WARN, OK', async () => {
      const m = await mirror();
      await examples(m);
      const ran = await runReport(orderAgeing, m, at());
      // O4: in COLLECTED at least 36 h (a lower bound, a measured time): WARN on its own, and an
      // age past the earlier stages' stuck thresholds raises a lower bound no higher than WARN.
      expect(ran.detail.map(pick)).toEqual([
        [2, 'AT_LAB', 120, '3-7d', 72, '3-7d', false, 'WARN'],
        [4, 'COLLECTED', 504, '14-30d', 36, '1-2d', true, 'WARN'],
        [1, 'ORDERED', 24, '1-2d', 24, '1-2d', false, 'WARN'],
        [3, 'MRO', 216, '7-14d', 48, '2-3d', false, 'OK'],
      ]);
      expect(ran.detail.map((r) => [r.orderItemId, r.flagBasis])).toEqual([
        [2, 'history'],
        [4, 'lower bound'],
        [1, 'creation'],
        [3, 'history'],
      ]);
      expect(ran.detail[0]).toMatchObject({
        orgId: 1,
        org: 'Acme Haulage',
        product: 'DOT Urine Drug Screen',
        person: 'Pat Driver2',
        status: 'At Lab',
        createdAt: '2025-06-05T12:00:00Z',
        statusSince: '2025-06-07T12:00:00Z',
        dataFlags: null,
      });
      // O1: history starts within one poll interval of creation, so "since creation".
      expect(ran.detail[2]).toMatchObject({ statusSince: '2025-06-09T12:00:00Z', sinceIsLowerBound: false });
      // O4: history starts 06-09 00:00 as Collected, long after creation: at least 36 h.
      expect(ran.detail[1]).toMatchObject({
        statusSince: '2025-06-09T00:00:00Z',
        sinceIsLowerBound: true,
        flagBasisText: 'in this status at least since the mirror first saw it',
      });
    });

    it('per-status summary: one each of ORDERED, COLLECTED, AT_LAB, MRO; WARN 3, STUCK 0', async () => {
      const m = await mirror();
      await examples(m);
      const ran = await runReport(orderAgeing, m, at());
      const byStatus = await ran.summary('By status');
      expect(byStatus.map((r) => [r.status, r.stage, r.count, r.warn, r.stuck])).toEqual([
        ['Ordered', 'ORDERED', 1, 1, 0],
        ['Collected', 'COLLECTED', 1, 1, 0],
        ['At Lab', 'AT_LAB', 1, 1, 0],
        ['MRO Review', 'MRO', 1, 0, 0],
        ['Total', null, 4, 3, 0],
      ]);
      expect(byStatus[4]).toMatchObject({
        lt1d: 0,
        d1_2: 2,
        d2_3: 1,
        d3_7: 1,
        // The workbook reads ages in days: 168 h, 504 h, 42 h, 72 h.
        medianAgeDays: 7,
        maxAgeDays: 21,
        medianTimeInStatusDays: 1.75,
        maxTimeInStatusDays: 3,
      });
      const byOrg = await ran.summary('By org');
      expect(byOrg).toEqual([
        {
          orgId: 1,
          org: 'Acme Haulage',
          count: 4,
          ordered: 1,
          collected: 1,
          atLab: 1,
          mro: 1,
          onHold: 0,
          other: 0,
          warn: 3,
          stuck: 0,
          oldestAgeDays: 21,
        },
        {
          orgId: null,
          org: 'Total',
          count: 4,
          ordered: 1,
          collected: 1,
          atLab: 1,
          mro: 1,
          onHold: 0,
          other: 0,
          warn: 3,
          stuck: 0,
          oldestAgeDays: 21,
        },
      ]);
    });

    it('includeTerminal adds O5, unflagged and last', async () => {
      const m = await mirror();
      await examples(m);
      const ran = await runReport(orderAgeing, m, at({ includeTerminal: true }));
      expect(ran.detail.map((r) => r.orderItemId)).toEqual([2, 4, 1, 3, 5]);
      expect(ran.detail[4]).toMatchObject({
        stage: 'CANCELLED',
        flag: null,
        timeInStatusHours: 167,
        ageHours: 192,
      });
      const byOrg = await ran.summary('By org');
      expect(byOrg[0]).toMatchObject({ count: 5, cancelled: 1, complete: 0 });
    });
  });

  describe('order ageing: edge cases', () => {
    it('STUCK beats WARN, then time in status, age and id order the rows', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [
        item(10, 'Collected', '2025-06-07T12:00:00Z'),
        item(11, 'Collected', '2025-06-07T12:00:00Z'),
        item(12, 'Collected', '2025-06-06T12:00:00Z'),
        item(13, 'Ordered', '2025-06-10T11:00:00Z'),
      ]);
      // 10 and 11 collected 50 h before the as-of (stuck at 48), 12 as well but older.
      await history(m, [
        seen(10, 'Ordered', '2025-06-07T12:00:00Z'),
        seen(10, 'Collected', '2025-06-08T10:00:00Z'),
        seen(11, 'Ordered', '2025-06-07T12:00:00Z'),
        seen(11, 'Collected', '2025-06-08T10:00:00Z'),
        seen(12, 'Ordered', '2025-06-06T12:00:00Z'),
        seen(12, 'Collected', '2025-06-08T10:00:00Z'),
        seen(13, 'Ordered', '2025-06-10T11:00:00Z'),
      ]);
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail.map((r) => [r.orderItemId, r.flag, r.timeInStatusHours])).toEqual([
        [12, 'STUCK', 50],
        [10, 'STUCK', 50],
        [11, 'STUCK', 50],
        [13, 'OK', 1],
      ]);
    });

    it('unmapped statuses count as OTHER with a warning; statusStage and thresholds configure them', async () => {
      const m = await mirror();
      await upsert(
        m,
        'OrderItem',
        [
          item(20, 'On Hold', '2025-06-01T12:00:00Z'),
          item(21, 'Lab Rejected', '2025-06-01T12:00:00Z', { isNotModifiable: true }),
        ],
        '2025-06-05T00:00:00.000Z',
      );
      await history(m, [
        { orderitem_id: 20, status_id: 199, status_name: 'On Hold', first_seen_at: '2025-06-01T12:00:00Z' },
      ]);
      const ran = await runReport(orderAgeing, m, at());
      // Unmapped and not modifiable: terminal, so left out. On Hold is a stage of its own (issue
      // 22), with the OTHER thresholds (72 / 168).
      expect(ran.detail.map((r) => [r.orderItemId, r.stage, r.flag, r.timeInStatusHours])).toEqual([
        [20, 'ON_HOLD', 'STUCK', 216],
      ]);
      expect(ran.warnings.filter((w) => w.includes('counted as OTHER'))).toEqual([]);
      const mapped = await runReport(
        orderAgeing,
        m,
        at({
          statusStage: { 'on hold': 'MRO', 'Lab Rejected': { stage: 'AT_LAB', terminal: false } },
          thresholds: { MRO: { warn: 100, stuck: 300 } },
        }),
      );
      expect(mapped.detail.map((r) => [r.orderItemId, r.stage, r.flag])).toEqual([
        [21, 'AT_LAB', 'STUCK'],
        [20, 'MRO', 'WARN'],
      ]);
      expect(mapped.warnings).toEqual([
        '1 item(s) have no status history of their current status (NO_HISTORY): time in status counts from their last sync, a lower bound',
      ]);
    });

    it('an item created after the as-of instant is not in the report (it did not exist then)', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [
        item(30, 'Ordered', '2025-06-11T12:00:00Z'),
        item(31, 'Ordered', '2025-06-10T06:00:00Z'),
      ]);
      await history(m, [
        seen(30, 'Ordered', '2025-06-11T12:30:00Z'),
        seen(31, 'Ordered', '2025-06-10T06:30:00Z'),
      ]);
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail.map((r) => r.orderItemId)).toEqual([31]);
      expect(ran.warnings[0]).toBe('1 item(s) created after the as-of instant are not in the report: 30');
      expect(aboutValue(ran, 'Created after the as-of instant (left out)')).toBe('1');
      // An as-of date before the data: nothing, rather than every item at age 0.
      const early = await runReport(orderAgeing, m, params('2025-01-31'));
      expect(early.detail).toHaveLength(0);
      expect(early.warnings[0]).toBe('No data for this as-of: no order item in the report');
    });

    it('reads history written by the adapter at each poll, and a move back starts a new row', async () => {
      const m = await mirror();
      const polls: [string, Name][] = [
        ['2025-06-08T00:00:00.000Z', 'Ordered'],
        ['2025-06-08T06:00:00.000Z', 'Collected'],
        ['2025-06-08T12:00:00.000Z', 'Ordered'],
        ['2025-06-09T00:00:00.000Z', 'Ordered'],
      ];
      for (const [now, name] of polls) {
        const record = item(40, name, '2025-06-07T23:00:00Z');
        await m.write(async (w) => {
          await w.upsert('OrderItem', [record], { now });
          await w.recordStatus([record], now);
        });
      }
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail[0]).toMatchObject({
        status: 'Ordered',
        statusSince: '2025-06-08T12:00:00Z',
        sinceIsLowerBound: false,
        timeInStatusHours: 48,
        flag: 'WARN',
      });
    });

    it('without history of the current status, the last sync is a lower bound', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [item(50, 'At Lab', '2025-06-01T00:00:00Z')], '2025-06-09T12:00:00.000Z');
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail[0]).toMatchObject({
        statusSince: '2025-06-09T12:00:00Z',
        sinceIsLowerBound: true,
        timeInStatusHours: 24,
        dataFlags: 'NO_HISTORY',
        // 24 h is only a lower bound; 9.5 days since creation pass AT_LAB's warn age: at least WARN
        // (a lower bound is raised no higher than WARN by the age).
        flag: 'WARN',
        flagBasis: 'unknown since',
      });
    });

    it('filters by stages, product and orgIds; leaves soft-deleted items out', async () => {
      const m = await mirror();
      await examples(m);
      await upsert(m, 'OrderItem', [
        item(6, 'Ordered', '2025-06-10T00:00:00Z', {
          OrgId: 2,
          c_org: 'Beta',
          c_productName: 'Breath Alcohol Test',
        }),
        item(7, 'Ordered', '2025-06-10T00:00:00Z'),
      ]);
      await softDelete(m, 'orderitem', 7);
      const ids = async (options: Record<string, unknown>, more = {}) =>
        (await runReport(orderAgeing, m, at(options, more))).detail.map((r) => r.orderItemId);
      expect(await ids({})).toEqual([2, 4, 1, 3, 6]);
      expect(await ids({ stages: ['AT_LAB', 'mro'] })).toEqual([2, 3]);
      expect(await ids({ stages: 'CANCELLED' })).toEqual([5]);
      expect(await ids({ product: 'alcohol' })).toEqual([6]);
      expect(await ids({}, { orgIds: [2] })).toEqual([6]);
      await expect(orderAgeing.run({ db: m.db, params: at({ stages: ['LOST'] }) })).rejects.toMatchObject({
        code: 'REPORT_PARAM_INVALID',
        param: 'options.stages.0',
      });
      await expect(
        orderAgeing.run({ db: m.db, params: at({ pollIntervalHours: -1 }) }),
      ).rejects.toMatchObject({
        param: 'options.pollIntervalHours',
      });
    });

    it('sorts a large detail through temporary files in bounded memory, and removes them', async () => {
      const m = await mirror();
      const items = [];
      const rows = [];
      for (let i = 1; i <= 57; i++) {
        const created = new Date(Date.parse('2025-06-01T00:00:00Z') + i * 3_600_000 * 3.7).toISOString();
        const names: Name[] = ['Ordered', 'Collected', 'At Lab', 'MRO Review'];
        const name = names[i % 4] as Name;
        items.push(item(1000 + i, name, created, { OrgId: (i % 3) + 1, c_org: `Org ${(i % 3) + 1}` }));
        rows.push(seen(1000 + i, name, new Date(Date.parse(created) + (i % 5) * 7_200_000).toISOString()));
      }
      await upsert(m, 'OrderItem', items);
      await history(m, rows);
      const before = readdirSync(tmpdir()).filter((f) => f.startsWith('ohs-sort-')).length;
      const inMemory = await runReport(orderAgeing, m, at());
      const spilled = await runReport(orderAgeing, m, at({ sortChunkRows: 5 }));
      expect(spilled.detail).toEqual(inMemory.detail);
      expect(inMemory.detail).toHaveLength(57);
      expect(await spilled.summary('By status')).toEqual(await inMemory.summary('By status'));
      expect(readdirSync(tmpdir()).filter((f) => f.startsWith('ohs-sort-')).length).toBe(before);
      // The detail order: flag rank, then time in status descending.
      const rank = { STUCK: 0, WARN: 1, OK: 2 } as Record<string, number>;
      for (let i = 1; i < spilled.detail.length; i++) {
        const a = spilled.detail[i - 1] as Row;
        const b = spilled.detail[i] as Row;
        const byFlag = (rank[String(a.flag)] ?? 3) - (rank[String(b.flag)] ?? 3);
        expect(
          byFlag < 0 || (byFlag === 0 && (a.timeInStatusHours as number) >= (b.timeInStatusHours as number)),
        ).toBe(true);
      }
      // The detail can be read again (each reading queries anew and refills the summaries).
      expect(await rowsOf(spilled.result.detail)).toEqual(spilled.detail);
      expect(aboutValue(spilled, 'Detail rows')).toBe('57');
    });

    it('passes a formula-like org name through untouched and names the sources on About', async () => {
      const m = await mirror();
      const evil = '=HYPERLINK("http://x","y")';
      await syncState(m, 'orderitem', '2025-06-10T06:00:00.000Z');
      await upsert(m, 'OrderItem', [
        item(60, 'Ordered', '2025-06-10T00:00:00Z', { c_org: evil, c_personNameFirst: '+1 555' }),
      ]);
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail[0]).toMatchObject({ org: evil, person: '+1 555 Driver60' });
      expect(aboutValue(ran, 'Last sync of orderitem')).toContain('2025-06-10T06:00:00.000Z');
      expect(aboutValue(ran, 'As-of instant')).toBe('2025-06-10T12:00:00Z: as given (--as-of-time)');
      expect(aboutValue(ran, 'Status stages')).toContain('MRO Review → MRO');
    });

    it('the as-of instant defaults to the end of the as-of day in the reporting time zone', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [item(70, 'Ordered', '2025-06-10T00:00:00Z')]);
      const utc = await runReport(orderAgeing, m, params('2025-06-10'));
      expect(utc.detail[0]?.ageHours).toBe(24);
      const ny = await runReport(orderAgeing, m, params('2025-06-10', {}, { timezone: 'America/New_York' }));
      expect(ny.detail[0]?.ageHours).toBe(28);
      expect(aboutValue(ny, 'As-of instant')).toBe(
        '2025-06-11T04:00:00Z: the end of 2025-06-10 (America/New_York)',
      );
    });
  });

  describe('order ageing: what an operations lead asks', () => {
    it('O6: an item ordered 18 months ago, first seen by a first sync, is in ORDERED since creation: STUCK', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [
        item(6, 'Ordered', '2024-12-01T12:00:00Z'),
        item(7, 'Collected', '2025-05-20T12:00:00Z'),
        item(11, 'At Lab', '2025-06-08T10:00:00Z'),
        item(12, 'MRO Review', '2025-06-07T04:00:00Z'),
        item(13, 'Ordered', '2025-06-01T12:00:00Z'),
        item(14, 'Collected', '2025-06-10T00:00:00Z'),
      ]);
      await history(m, [
        seen(6, 'Ordered', '2025-06-09T00:00:00.000Z'),
        seen(7, 'Collected', '2025-06-10T06:00:00.000Z'),
        seen(11, 'At Lab', '2025-06-10T10:00:00.000Z'),
        seen(12, 'MRO Review', '2025-06-10T11:00:00.000Z'),
        // 13 went back from Collected to Ordered: its history knows since when.
        seen(13, 'Ordered', '2025-06-01T12:30:00.000Z'),
        seen(13, 'Collected', '2025-06-05T12:00:00.000Z'),
        seen(13, 'Ordered', '2025-06-09T12:00:00.000Z'),
        seen(14, 'Collected', '2025-06-10T11:00:00.000Z'),
      ]);
      // Polled every 6 hours: a history starting later than that after creation is a lower bound.
      const ran = await runReport(orderAgeing, m, at({ pollIntervalHours: 6 }));
      const row = (id: number) => ran.detail.find((r) => r.orderItemId === id);
      // The first stage: its time in status is known from creation, whatever the history says.
      expect(row(6)).toMatchObject({
        ageHours: 4584,
        ageBucket: '30d+',
        statusSince: '2024-12-01T12:00:00Z',
        timeInStatusHours: 4584,
        sinceIsLowerBound: false,
        flag: 'STUCK',
        flagBasis: 'creation',
        flagBasisText: 'in this status since the order was created',
      });
      expect(row(13)).toMatchObject({ timeInStatusHours: 24, flag: 'WARN', flagBasis: 'history' });
      // Later stages with a time in status that is only a lower bound: the age raises it to WARN
      // at the stage's warn age, no higher. 7: 21 days old in COLLECTED; 11: 50 h old in AT_LAB
      // (warn 48 h); 12: 80 h old in MRO (warn 72 h).
      expect(row(7)).toMatchObject({ timeInStatusHours: 6, flag: 'WARN', flagBasis: 'unknown since' });
      expect(row(11)).toMatchObject({ timeInStatusHours: 2, flag: 'WARN', flagBasis: 'unknown since' });
      expect(row(12)).toMatchObject({ timeInStatusHours: 1, flag: 'WARN', flagBasis: 'unknown since' });
      // 12 h old, under COLLECTED's warn 24 h: OK, its basis still says the time is a lower bound.
      expect(row(14)).toMatchObject({ timeInStatusHours: 1, flag: 'OK', flagBasis: 'lower bound' });
      expect(aboutValue(ran, 'Flag basis')).toContain('unknown since');
      expect(
        aboutValue(ran, 'Flag raised by the age since creation (time in status unknown or a lower bound)'),
      ).toBe('3');
    });

    it("no open item past its stage's warn age is OK, whatever its history; ORDERED counts from creation", async () => {
      const m = await mirror();
      const names: Name[] = ['Ordered', 'Collected', 'At Lab', 'MRO Review'];
      const warn = { Ordered: 24, Collected: 24, 'At Lab': 48, 'MRO Review': 72 } as Record<Name, number>;
      const asOfMs = Date.parse(AS_OF);
      const items = [];
      const rows = [];
      let id = 100;
      // Every stage, ages from 1 h to 40 days, history from a change, from a first sighting
      // minutes ago, or none at all.
      for (const name of names)
        for (const ageH of [1, 20, 24, 30, 47, 48, 60, 71, 72, 100, 200, 300, 1000])
          for (const kind of ['change', 'first sync', 'none']) {
            id++;
            const created = new Date(asOfMs - ageH * 3_600_000).toISOString();
            items.push({ ...item(id, name, created), __age: ageH });
            if (kind === 'change') {
              rows.push(seen(id, 'Ordered', created));
              if (name !== 'Ordered')
                rows.push(seen(id, name, new Date(asOfMs - (ageH / 2) * 3_600_000).toISOString()));
            } else if (kind === 'first sync')
              rows.push(seen(id, name, new Date(asOfMs - 600_000).toISOString()));
          }
      await upsert(
        m,
        'OrderItem',
        items.map(({ __age, ...i }) => i),
        new Date(asOfMs - 600_000).toISOString(),
      );
      await history(m, rows);
      const ran = await runReport(orderAgeing, m, at());
      expect(ran.detail).toHaveLength(items.length);
      const ageOf = new Map(items.map((i) => [i.id, i.__age]));
      let unknownPastWarn = 0;
      for (const r of ran.detail) {
        const name = r.status as Name;
        const age = ageOf.get(Number(r.orderItemId)) ?? 0;
        // A time in status known from history or creation decides (O3: 48 h in
        // MRO is OK at any age under 30 days); one that is unknown or only a lower bound cannot
        // show OK past the stage's warn age.
        const known = r.flagBasis === 'history' || r.flagBasis === 'creation';
        const decisive = known ? Number(r.timeInStatusHours) : age;
        if (decisive >= warn[name] || age >= 720)
          expect([r.orderItemId, r.flag]).not.toEqual([r.orderItemId, 'OK']);
        if (!known && age >= warn[name]) unknownPastWarn++;
        if (name === 'Ordered')
          expect(r).toMatchObject({
            flagBasis: 'creation',
            sinceIsLowerBound: false,
            timeInStatusHours: r.ageHours,
          });
      }
      // Both kinds of unknown (first seen minutes ago, no history at all) in the three later stages.
      expect(unknownPastWarn).toBeGreaterThan(40);
    });

    it('a live report is as of the moment it runs, and that instant asked again gives the same rows', async () => {
      const m = await mirror();
      const now = Date.now();
      const today = new Date(now).toISOString().slice(0, 10);
      await syncState(m, 'orderitem', new Date(now - 3_600_000).toISOString());
      const created = new Date(now - 23.6 * 3_600_000).toISOString();
      await upsert(
        m,
        'OrderItem',
        [item(8, 'Ordered', created), item(9, 'At Lab', new Date(now - 30 * 3_600_000).toISOString())],
        new Date(now - 3_600_000).toISOString(),
      );
      await history(m, [
        seen(8, 'Ordered', new Date(now - 3_600_000).toISOString()),
        seen(9, 'At Lab', new Date(now - 3_600_000).toISOString()),
      ]);
      const live = await runReport(orderAgeing, m, params(today));
      const stated = String(aboutValue(live, 'As-of instant'));
      expect(stated).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z: the moment the report ran \(the mirror as it was then\)/,
      );
      const instant = stated.slice(0, 20);
      // Not the start of the last sync an hour ago: the moment of the run (whole seconds, rounded up).
      expect(Date.parse(instant)).toBeGreaterThanOrEqual(Math.floor(now / 1000) * 1000);
      expect(live.detail[0]).toMatchObject({ orderItemId: 8, flag: 'OK', flagBasis: 'creation' });
      expect(live.detail[0]?.ageHours).toBeGreaterThanOrEqual(23.6);
      const again = await runReport(
        orderAgeing,
        m,
        params(
          today,
          {},
          { asOfTimestamp: instant, mirrorAsOf: new Date(Date.parse(instant)).toISOString() },
        ),
      );
      expect(again.detail).toEqual(live.detail);
    });

    it('a background check is aged on the generic thresholds, not the drug-test ones; a configured family has its own', async () => {
      const m = await mirror();
      await upsert(m, 'OrderItem', [
        item(9, 'Ordered', '2025-06-01T12:00:00Z', { c_productName: 'County Criminal Background Check' }),
        item(10, 'Ordered', '2025-06-01T12:00:00Z', { c_productName: 'Hair Follicle 5-Panel' }),
      ]);
      await history(m, [
        seen(9, 'Ordered', '2025-06-01T13:00:00.000Z'),
        seen(10, 'Ordered', '2025-06-01T13:00:00.000Z'),
      ]);
      const ran = await runReport(orderAgeing, m, at());
      // Every open order is aged: of no family, on the generic thresholds (ORDERED 24
      // / 72 h), so 8.5 days in ORDERED is STUCK there too.
      expect(ran.detail.map((r) => [r.orderItemId, r.family, r.flag])).toEqual([
        [9, 'generic', 'STUCK'],
        [10, 'drug', 'STUCK'],
      ]);
      expect(ran.warnings).toContain(
        '1 item(s) of products in no product family are aged on the generic thresholds (family generic; configure options.families for their own): County Criminal Background Check 1',
      );
      const families = {
        background: { match: ['background'], thresholds: { ORDERED: { warn: 168, stuck: 336 } } },
      };
      const configured = await runReport(orderAgeing, m, at({ families }));
      expect(configured.detail.map((r) => [r.orderItemId, r.family, r.flag])).toEqual([
        [10, 'drug', 'STUCK'],
        [9, 'background', 'WARN'],
      ]);
      expect(aboutValue(configured, 'Thresholds (warn/stuck hours) by product family')).toContain(
        'background (products containing background): ORDERED 168/336',
      );
    });
  });
});
