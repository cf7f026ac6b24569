import { describe, expect, it } from 'vitest';
import { withSim } from '../helpers/sim.js';
import {
  type FilterItem,
  idsOf,
  type Json,
  mostCommon,
  query,
  refFilter,
  refSort,
  sortedIds,
} from '../helpers/sim-data.js';

/** Query operations 1 to 4: simple filters, advancedFilter, `return`, paging and sorting. */
describe('query operations', () => {
  // No page cap, so that whole result sets come back in one page and compare with the truth.
  const sim = withSim({ scale: 0.1, pageCap: 0 });
  const ALL = 100_000;
  // Nothing in this file writes: the live table serves as the truth without a copy.
  const items = (): readonly Json[] => sim().tables.OrderItem.all();

  describe('simple filters (field=value, equals)', () => {
    it('filters on a number field', async () => {
      const org = mostCommon(items(), 'OrgId');
      const got = await query(sim(), 'queryOrderItem', { OrgId: String(org), pageSize: ALL });
      const expected = items().filter((r) => r.OrgId === org);
      expect(expected.length).toBeGreaterThan(5);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
      for (const r of got) expect(r.OrgId).toBe(org);
    });

    it('filters on a string field without regard to case (default stringCase)', async () => {
      const got = await query(sim(), 'queryOrderItem', {
        c_currentStatusCodeName: 'mro review',
        pageSize: ALL,
      });
      const expected = items().filter((r) => r.c_currentStatusCodeName === 'MRO Review');
      expect(expected.length).toBeGreaterThan(0);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
    });

    it('filters on a boolean field with "true"/"false"', async () => {
      const truth = sim().truth().Tenant;
      for (const v of [true, false]) {
        const got = await query(sim(), 'queryTenant', { isInvoiced: String(v) });
        const expected = truth.filter((t) => t.isInvoiced === v);
        expect(expected.length).toBeGreaterThan(0);
        expect(sortedIds(got)).toEqual(sortedIds(expected));
      }
    });

    it('filters on names with an apostrophe or accents', async () => {
      const truth = sim().truth().Tenant;
      const names = [/'/, /[À-ž]/].map((re) => truth.find((t) => re.test(String(t.name)))?.name);
      for (const name of names) {
        expect(typeof name).toBe('string');
        const got = await query(sim(), 'queryTenant', { name: String(name).toLowerCase() });
        const expected = truth.filter((t) => String(t.name).toLowerCase() === String(name).toLowerCase());
        expect(got.length).toBeGreaterThan(0);
        expect(sortedIds(got)).toEqual(sortedIds(expected));
        for (const r of got) expect(r).toEqual(truth.find((t) => t.id === r.id));
      }
    });

    it('combines several simple filters with AND', async () => {
      const org = mostCommon(items(), 'OrgId');
      const product = mostCommon(
        items().filter((r) => r.OrgId === org),
        'ProductId',
      );
      const got = await query(sim(), 'queryOrderItem', {
        OrgId: String(org),
        ProductId: String(product),
        pageSize: ALL,
      });
      const expected = items().filter((r) => r.OrgId === org && r.ProductId === product);
      expect(expected.length).toBeGreaterThan(0);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
    });

    it('combines simple filters with advancedFilter by AND', async () => {
      const org = mostCommon(items(), 'OrgId');
      const or: FilterItem[] = [
        { columnField: 'ProductId', operatorValue: 'equals', value: '201' },
        { columnField: 'ProductId', operatorValue: 'equals', value: '206' },
        { columnField: 'orderedBy', operatorValue: 'isEmpty', value: '' },
      ];
      const got = await query(sim(), 'queryOrderItem', {
        OrgId: String(org),
        advancedFilter: { linkOperator: 'OR', items: or },
        pageSize: ALL,
      });
      const expected = refFilter(
        'OrderItem',
        items().filter((r) => r.OrgId === org),
        'OR',
        or,
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(items().filter((r) => r.OrgId === org).length);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
    });
  });

  describe('advancedFilter', () => {
    it('AND needs every item to hold', async () => {
      const filter: FilterItem[] = [
        { columnField: 'ProductId', operatorValue: 'equals', value: '206' },
        { columnField: 'CreationTimestamp', operatorValue: 'greaterThanOrEqualTo', value: '2025-06-01' },
        { columnField: 'isNotModifiable', operatorValue: 'isTrue', value: '' },
        { columnField: 'c_personNameLast', operatorValue: 'notEquals', value: 'smith' },
      ];
      const got = await query(sim(), 'queryOrderItem', {
        advancedFilter: { linkOperator: 'AND', items: filter },
        pageSize: ALL,
      });
      const expected = refFilter('OrderItem', items(), 'AND', filter);
      expect(expected.length).toBeGreaterThan(10);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
      for (const r of got) {
        expect(r.ProductId).toBe(206);
        expect(String(r.CreationTimestamp) >= '2025-06-01').toBe(true);
      }
    });

    it('OR needs at least one item to hold', async () => {
      const filter: FilterItem[] = [
        { columnField: 'c_currentStatusCodeId', operatorValue: 'equals', value: 'ORD' },
        { columnField: 'c_currentStatusCodeId', operatorValue: 'equals', value: 'SCH' },
        { columnField: 'Parent~OrderItemId', operatorValue: 'isNotEmpty', value: '' },
      ];
      const got = await query(sim(), 'queryOrderItem', {
        advancedFilter: { linkOperator: 'OR', items: filter },
        pageSize: ALL,
      });
      const expected = refFilter('OrderItem', items(), 'OR', filter);
      const parents = items().filter((r) => r['Parent~OrderItemId'] !== undefined).length;
      expect(expected.length).toBeGreaterThan(parents);
      expect(sortedIds(got)).toEqual(sortedIds(expected));
    });

    it('works on every query resource', async () => {
      const truth = sim().truth();
      const role = await query(sim(), 'queryRole', {
        advancedFilter: {
          linkOperator: 'OR',
          items: [{ columnField: 'name', operatorValue: 'contains', value: 'admin' }],
        },
      });
      expect(sortedIds(role)).toEqual(sortedIds(truth.Role.filter((r) => /admin/i.test(String(r.name)))));
      expect(role.length).toBe(2);
      const org = mostCommon(truth.HsVendor, 'OrgId');
      const vendors = await query(sim(), 'queryHsVendor', {
        advancedFilter: {
          linkOperator: 'AND',
          items: [{ columnField: 'OrgId', operatorValue: 'equals', value: String(org) }],
        },
      });
      expect(sortedIds(vendors)).toEqual(sortedIds(truth.HsVendor.filter((v) => v.OrgId === org)));
      const tenants = await query(sim(), 'queryTenant', {
        advancedFilter: {
          linkOperator: 'AND',
          items: [
            { columnField: 'isHouse', operatorValue: 'isFalse', value: '' },
            { columnField: 'isInvoiced', operatorValue: 'isTrue', value: '' },
          ],
        },
      });
      expect(sortedIds(tenants)).toEqual(
        sortedIds(truth.Tenant.filter((t) => t.isHouse === false && t.isInvoiced === true)),
      );
    });
  });

  describe('return and isAdditionalData', () => {
    it('return alone: only the named fields plus id', async () => {
      const truth = sim().truth().Tenant;
      const got = await query(sim(), 'queryTenant', { return: ['name', 'OrgId'] });
      expect(got).toHaveLength(truth.length);
      for (const r of got) {
        expect(Object.keys(r).sort()).toEqual(['OrgId', 'id', 'name']);
        const t = truth.find((x) => x.id === r.id);
        expect(r).toEqual({ id: t?.id, name: t?.name, OrgId: t?.OrgId });
      }
    });

    it('return with isAdditionalData false is the same as without it', async () => {
      const a = await query(sim(), 'queryRole', { return: ['name'], sortBy: 'id' });
      const b = await query(sim(), 'queryRole', { return: ['name'], isAdditionalData: false, sortBy: 'id' });
      expect(b).toEqual(a);
      expect(a).toEqual([...sim().truth().Role].reverse().map((r) => ({ id: r.id, name: r.name })));
    });

    it('return with isAdditionalData true: the default response plus the named fields', async () => {
      const org = mostCommon(items(), 'OrgId');
      const got = await query(sim(), 'queryOrderItem', {
        OrgId: String(org),
        return: ['c_org'],
        isAdditionalData: true,
        sortBy: 'id',
        sortDirection: 'asc',
      });
      expect(got).toEqual(items().filter((r) => r.OrgId === org));
    });

    it('return of fields absent from some records leaves them absent, keeps nulls', async () => {
      const got = await query(sim(), 'queryOrderItem', {
        return: ['Parent~OrderItemId', 'orderedBy'],
        pageSize: ALL,
      });
      const byId = new Map(items().map((r) => [r.id, r]));
      expect(got).toHaveLength(byId.size);
      let absent = 0;
      let nulls = 0;
      for (const r of got) {
        const t = byId.get(Number(r.id));
        const expected: Json = { id: t?.id };
        for (const f of ['Parent~OrderItemId', 'orderedBy'])
          if (t !== undefined && f in t) expected[f] = t[f];
        expect(r).toEqual(expected);
        if (!('orderedBy' in r)) absent++;
        else if (r.orderedBy === null) nulls++;
      }
      expect(absent).toBeGreaterThan(0);
      expect(nulls).toBeGreaterThan(0);
    });

    it('return [] gives ids only; no return gives whole records', async () => {
      const truth = sim().truth().Role;
      const ids = await query(sim(), 'queryRole', { return: [], sortBy: 'id', sortDirection: 'asc' });
      expect(ids).toEqual(truth.map((r) => ({ id: r.id })));
      const whole = await query(sim(), 'queryRole', {
        isAdditionalData: true,
        sortBy: 'id',
        sortDirection: 'asc',
      });
      expect(whole).toEqual(truth);
    });
  });

  describe('paging', () => {
    it('page and pageSize cut the ordered result', async () => {
      const asc = sortedIds(items());
      const pages: number[][] = [];
      for (let page = 1; page <= 4; page++) {
        const got = await query(sim(), 'queryOrderItem', {
          sortBy: 'id',
          sortDirection: 'asc',
          page,
          pageSize: 7,
        });
        pages.push(idsOf(got).map(Number));
      }
      expect(pages.flat()).toEqual(asc.slice(0, 28));
      const last = Math.ceil(asc.length / 7);
      const tail = await query(sim(), 'queryOrderItem', {
        sortBy: 'id',
        sortDirection: 'asc',
        page: last,
        pageSize: 7,
      });
      expect(idsOf(tail).map(Number)).toEqual(asc.slice((last - 1) * 7));
      const beyond = await query(sim(), 'queryOrderItem', { sortBy: 'id', page: last + 1, pageSize: 7 });
      expect(beyond).toEqual([]);
    });

    it('defaults to page 1 and pageSize 500', async () => {
      expect(items().length).toBeGreaterThan(500);
      const got = await query(sim(), 'queryOrderItem', { sortBy: 'id' });
      expect(idsOf(got).map(Number)).toEqual(sortedIds(items()).reverse().slice(0, 500));
      const page2 = await query(sim(), 'queryOrderItem', { sortBy: 'id', page: 2 });
      expect(idsOf(page2).map(Number)).toEqual(sortedIds(items()).reverse().slice(500, 1000));
    });

    it('pages of a filtered query partition the filtered result', async () => {
      const filter: FilterItem[] = [
        { columnField: 'ProductId', operatorValue: 'listContains', value: '203,205' },
      ];
      const expected = refSort(refFilter('OrderItem', items(), 'AND', filter), 'CreationTimestamp', 'desc');
      const seen: (number | string)[] = [];
      for (let page = 1; ; page++) {
        const got = await query(sim(), 'queryOrderItem', {
          advancedFilter: { linkOperator: 'AND', items: filter },
          sortBy: 'CreationTimestamp',
          page,
          pageSize: 100,
        });
        seen.push(...idsOf(got));
        if (got.length < 100) break;
      }
      expect(seen).toEqual(idsOf(expected));
    });
  });

  describe('sorting', () => {
    const orgItems = () => {
      const org = mostCommon(items(), 'OrgId');
      return { org, rows: items().filter((r) => r.OrgId === org) };
    };

    it('sortDirection defaults to desc', async () => {
      const { org, rows } = orgItems();
      const got = await query(sim(), 'queryOrderItem', { OrgId: String(org), sortBy: 'CreationTimestamp' });
      expect(idsOf(got)).toEqual(idsOf(refSort(rows, 'CreationTimestamp', 'desc')));
      const stamps = got.map((r) => String(r.CreationTimestamp));
      expect(stamps).toEqual([...stamps].sort().reverse());
    });

    it('asc and desc on a number field, ties by id', async () => {
      const { org, rows } = orgItems();
      for (const dir of ['asc', 'desc'] as const) {
        const got = await query(sim(), 'queryOrderItem', {
          OrgId: String(org),
          sortBy: 'CurrentStatusId',
          sortDirection: dir,
        });
        expect(idsOf(got)).toEqual(idsOf(refSort(rows, 'CurrentStatusId', dir)));
      }
    });

    it('null and absent values sort as the smallest', async () => {
      const { org, rows } = orgItems();
      const asc = await query(sim(), 'queryOrderItem', {
        OrgId: String(org),
        sortBy: 'orderedBy',
        sortDirection: 'asc',
      });
      expect(idsOf(asc)).toEqual(idsOf(refSort(rows, 'orderedBy', 'asc')));
      const empties = rows.filter((r) => r.orderedBy === null || r.orderedBy === undefined).length;
      expect(empties).toBeGreaterThan(0);
      expect(asc.slice(0, empties).every((r) => r.orderedBy === null || r.orderedBy === undefined)).toBe(
        true,
      );
      const desc = await query(sim(), 'queryOrderItem', { OrgId: String(org), sortBy: 'orderedBy' });
      expect(idsOf(desc)).toEqual(idsOf(refSort(rows, 'orderedBy', 'desc')));
      expect(desc.slice(-empties).every((r) => r.orderedBy === null || r.orderedBy === undefined)).toBe(true);
    });

    it('strings by code-unit order, booleans false before true', async () => {
      const truth = sim().truth().Tenant as Json[];
      const byName = await query(sim(), 'queryTenant', { sortBy: 'name', sortDirection: 'asc' });
      expect(idsOf(byName)).toEqual(idsOf(refSort(truth, 'name', 'asc')));
      const byHouse = await query(sim(), 'queryTenant', { sortBy: 'isHouse', sortDirection: 'asc' });
      expect(idsOf(byHouse)).toEqual(idsOf(refSort(truth, 'isHouse', 'asc')));
      expect(byHouse[0]?.isHouse).toBe(false);
      expect(byHouse.at(-1)?.isHouse).toBe(true);
    });

    it('sortBy id desc with an id range filter', async () => {
      const asc = sortedIds(items());
      const lo = asc[100] ?? 0;
      const hi = asc[160] ?? 0;
      const got = await query(sim(), 'queryOrderItem', {
        advancedFilter: {
          linkOperator: 'AND',
          items: [
            { columnField: 'id', operatorValue: 'greaterThan', value: String(lo) },
            { columnField: 'id', operatorValue: 'lessThanOrEqualTo', value: String(hi) },
          ],
        },
        sortBy: 'id',
      });
      expect(idsOf(got).map(Number)).toEqual(asc.slice(101, 161).reverse());
    });
  });
});
