import { describe, expect, it } from 'vitest';
import type { SimRecord } from '../../src/sim/index.js';
import { call, withSim } from '../helpers/sim.js';
import {
  asList,
  asObj,
  expect400,
  type FilterItem,
  idsOf,
  type Json,
  pathOf,
  query,
  refFilter,
  sortedIds,
} from '../helpers/sim-data.js';

/** A record without its computed `c_*` fields (what lean mode answers by default). */
function withoutComputed(r: SimRecord | Json): Json {
  return Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('c_')));
}

describe('gap: envelope of list responses', () => {
  describe("'array' (default)", () => {
    const sim = withSim({ scale: 0.1 });
    it('queries and lists answer a bare array; single records are not wrapped', async () => {
      const s = sim();
      const roles = await call(s, 'POST', pathOf('queryRole'), { sortBy: 'id', sortDirection: 'asc' });
      expect(roles.body).toEqual(s.truth().Role);
      const users = await call(s, 'GET', pathOf('listUser'));
      expect(Array.isArray(users.body)).toBe(true);
      expect(asList(users.body)).toHaveLength(s.truth().User.length);
      const staff = s.truth().Staff[0];
      expect((await call(s, 'GET', pathOf('getStaff', staff?.id))).body).toEqual(staff);
    });
  });

  describe("'object' with the default keys", () => {
    const sim = withSim({ scale: 0.1, envelope: 'object' });
    it('answers {data, total}: total counts every match, not the page', async () => {
      const s = sim();
      const res = await call(s, 'POST', pathOf('queryOrderItem'), {
        ProductId: '201',
        sortBy: 'id',
        sortDirection: 'asc',
        pageSize: 10,
      });
      const body = asObj(res.body);
      expect(Object.keys(body).sort()).toEqual(['data', 'total']);
      const matches = s.truth().OrderItem.filter((r) => r.ProductId === 201);
      expect(body.total).toBe(matches.length);
      expect(body.data).toEqual(matches.slice(0, 10));
      const om = asObj((await call(s, 'GET', pathOf('listOrgMonth'))).body);
      expect(om).toEqual({ data: s.truth().OrgMonth, total: s.truth().OrgMonth.length });
      const inv = s.truth().Invoice[0];
      expect((await call(s, 'GET', pathOf('getInvoice', inv?.id))).body).toEqual(inv);
    });
  });

  describe("'object' with envelopeKey and totalKey renamed", () => {
    const sim = withSim({ scale: 0.1, envelope: 'object', envelopeKey: 'items', totalKey: 'count' });
    it('answers {items, count}', async () => {
      const s = sim();
      const res = asObj(
        (await call(s, 'POST', pathOf('queryTenant'), { isHouse: 'true', sortBy: 'id' })).body,
      );
      expect(Object.keys(res).sort()).toEqual(['count', 'items']);
      const house = s.truth().Tenant.filter((t) => t.isHouse === true);
      expect(res.count).toBe(house.length);
      expect(res.items).toEqual([...house].reverse());
      const users = asObj((await call(s, 'GET', `${pathOf('listUser')}?fields=email`)).body);
      expect(users.count).toBe(s.truth().User.length);
      expect(users.items).toEqual(s.truth().User.map((u) => ({ id: u.id, email: u.email })));
      const empty = asObj((await call(s, 'POST', pathOf('queryRole'), { name: 'no such role' })).body);
      expect(empty).toEqual({ items: [], count: 0 });
    });
  });
});

describe('gap: maximum pageSize (pageCap)', () => {
  describe('default cap 250', () => {
    const sim = withSim({ scale: 0.1 });
    it('silently cuts pageSize 1000 to 250, and pages by the cut size', async () => {
      const s = sim();
      const asc = sortedIds(s.truth().OrderItem);
      const p1 = await query(s, 'queryOrderItem', { sortBy: 'id', sortDirection: 'asc', pageSize: 1000 });
      expect(idsOf(p1).map(Number)).toEqual(asc.slice(0, 250));
      const p2 = await query(s, 'queryOrderItem', {
        sortBy: 'id',
        sortDirection: 'asc',
        pageSize: 1000,
        page: 2,
      });
      expect(idsOf(p2).map(Number)).toEqual(asc.slice(250, 500));
      // The default pageSize (500) is over the cap too.
      const dflt = await query(s, 'queryOrderItem', { sortBy: 'id' });
      expect(idsOf(dflt).map(Number)).toEqual(asc.slice(-250).reverse());
      // Below the cap, pageSize is honoured.
      expect(await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 249 })).toHaveLength(249);
    });
  });

  describe('pageCap 0: no cap', () => {
    const sim = withSim({ scale: 0.1, pageCap: 0 });
    it('returns pageSize 1000 in full, and 500 by default', async () => {
      const s = sim();
      const asc = sortedIds(s.truth().OrderItem);
      const big = await query(s, 'queryOrderItem', { sortBy: 'id', sortDirection: 'asc', pageSize: 1000 });
      expect(idsOf(big).map(Number)).toEqual(asc.slice(0, 1000));
      expect(await query(s, 'queryOrderItem', {})).toHaveLength(500);
      expect(sortedIds(await query(s, 'queryOrderItem', { pageSize: 5000 }))).toEqual(asc);
    });
  });

  describe('pageCap 100 with an object envelope', () => {
    const sim = withSim({ scale: 0.1, pageCap: 100, envelope: 'object' });
    it('cuts the page, not the total', async () => {
      const s = sim();
      const body = asObj(
        (await call(s, 'POST', pathOf('queryOrderItem'), { pageSize: 300, sortBy: 'id' })).body,
      );
      expect(body.total).toBe(s.truth().OrderItem.length);
      expect(idsOf(asList(body.data)).map(Number)).toEqual(
        sortedIds(s.truth().OrderItem).reverse().slice(0, 100),
      );
    });
  });
});

describe('gap: order without sortBy (defaultOrder)', () => {
  describe("'hash' (default)", () => {
    const sim = withSim({ scale: 0.1, pageCap: 0 });
    it('is neither id order nor random: a stable permutation that pages consistently', async () => {
      const s = sim();
      const all = idsOf(await query(s, 'queryOrderItem', { pageSize: 5000 })).map(Number);
      const asc = sortedIds(s.truth().OrderItem);
      expect([...all].sort((a, b) => a - b)).toEqual(asc);
      expect(all).not.toEqual(asc);
      expect(all).not.toEqual([...asc].reverse());
      const again = idsOf(await query(s, 'queryOrderItem', { pageSize: 5000 })).map(Number);
      expect(again).toEqual(all);
      const pages: number[] = [];
      for (let page = 1; page <= 3; page++) {
        pages.push(...idsOf(await query(s, 'queryOrderItem', { page, pageSize: 100 })).map(Number));
      }
      expect(pages).toEqual(all.slice(0, 300));
      // A filtered query keeps the same relative order.
      const filtered = idsOf(await query(s, 'queryOrderItem', { ProductId: '205', pageSize: 5000 })).map(
        Number,
      );
      const want = new Set(
        s
          .truth()
          .OrderItem.filter((r) => r.ProductId === 205)
          .map((r) => Number(r.id)),
      );
      expect(filtered).toEqual(all.filter((id) => want.has(id)));
    });
  });

  describe("'id'", () => {
    const sim = withSim({ scale: 0.1, pageCap: 0, defaultOrder: 'id' });
    it('answers in ascending id order; sortBy still wins', async () => {
      const s = sim();
      const got = await query(s, 'queryOrderItem', { pageSize: 5000 });
      expect(idsOf(got).map(Number)).toEqual(sortedIds(s.truth().OrderItem));
      const p3 = await query(s, 'queryOrderItem', { page: 3, pageSize: 40 });
      expect(idsOf(p3).map(Number)).toEqual(sortedIds(s.truth().OrderItem).slice(80, 120));
      const byName = await query(s, 'queryRole', { sortBy: 'name', sortDirection: 'asc' });
      const names = byName.map((r) => String(r.name));
      expect(names).toEqual([...names].sort());
      const roles = await query(s, 'queryRole', {});
      expect(roles).toEqual(s.truth().Role);
    });
  });
});

describe('gap: name of the GET field-selection parameter (fieldsParam)', () => {
  describe("'fields' (default)", () => {
    const sim = withSim({ scale: 0.1 });
    it('selects fields plus id; isAdditionalData=true merges them with the default response', async () => {
      const s = sim();
      const staff = s.truth().Staff.find((r) => r.dateOfTermination === null);
      expect(staff).toBeDefined();
      const one = await call(s, 'GET', `${pathOf('getStaff', staff?.id)}?fields=salary,dateOfTermination`);
      expect(one.body).toEqual({ id: staff?.id, salary: staff?.salary, dateOfTermination: null });
      const merged = await call(
        s,
        'GET',
        `${pathOf('getStaff', staff?.id)}?fields=salary&isAdditionalData=true`,
      );
      expect(merged.body).toEqual(staff);
      const notMerged = await call(
        s,
        'GET',
        `${pathOf('getStaff', staff?.id)}?fields=salary&isAdditionalData=false`,
      );
      expect(notMerged.body).toEqual({ id: staff?.id, salary: staff?.salary });
      const whole = await call(s, 'GET', `${pathOf('getStaff', staff?.id)}?fields=`);
      expect(whole.body).toEqual(staff);
      const applicant = s.truth().Applicant.find((a) => Array.isArray(a.info) && a.info.length > 1);
      const info = await call(s, 'GET', `${pathOf('getApplicant', applicant?.id)}?fields=info,ssn`);
      expect(info.body).toEqual({ id: applicant?.id, info: applicant?.info, ssn: applicant?.ssn });
      const inv = s.truth().Invoice.find((r) => !('dropInvoice' in r));
      expect(inv).toBeDefined();
      const sparse = await call(s, 'GET', `${pathOf('getInvoice', inv?.id)}?fields=dropInvoice,balance`);
      expect(sparse.body).toEqual({ id: inv?.id, balance: inv?.balance });
    });

    it('on the list operations', async () => {
      const s = sim();
      const users = await call(s, 'GET', `${pathOf('listUser')}?fields=email,PersonId`);
      expect(users.body).toEqual(
        s.truth().User.map((u) => ({ id: u.id, email: u.email, PersonId: u.PersonId })),
      );
      const om = await call(s, 'GET', `${pathOf('listOrgMonth')}?fields=label&isAdditionalData=true`);
      expect(om.body).toEqual(s.truth().OrgMonth);
      const labels = await call(s, 'GET', `${pathOf('listOrgMonth')}?fields=OrgId,label`);
      expect(labels.body).toEqual(
        s.truth().OrgMonth.map((r) => ({ id: r.id, OrgId: r.OrgId, label: r.label })),
      );
    });
  });

  describe("renamed to 'select'", () => {
    const sim = withSim({ scale: 0.1, fieldsParam: 'select' });
    it('reads ?select= and ignores ?fields=', async () => {
      const s = sim();
      const staff = s.truth().Staff[2];
      expect((await call(s, 'GET', `${pathOf('getStaff', staff?.id)}?select=salary`)).body).toEqual({
        id: staff?.id,
        salary: staff?.salary,
      });
      expect((await call(s, 'GET', `${pathOf('getStaff', staff?.id)}?fields=salary`)).body).toEqual(staff);
      const users = await call(s, 'GET', `${pathOf('listUser')}?select=status`);
      expect(users.body).toEqual(s.truth().User.map((u) => ({ id: u.id, status: u.status })));
      await expect400(
        s,
        'GET',
        `${pathOf('getStaff', staff?.id)}?select=nope`,
        undefined,
        "select: unknown field 'nope'",
      );
    });
  });
});

describe('gap: answer of DELETE (deleteAnswer)', () => {
  describe("'204' (default)", () => {
    const sim = withSim({ scale: 0.1 });
    it('answers 204 with no body', async () => {
      const s = sim();
      const p = s.truth().Person[10];
      const res = await fetch(`${s.url}${pathOf('deletePerson', p?.id)}`, {
        method: 'DELETE',
        headers: { authorization: 'Bearer test-write-token' },
      });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(s.tables.Person.get(Number(p?.id))).toBeUndefined();
    });
  });

  describe("'200'", () => {
    const sim = withSim({ scale: 0.1, deleteAnswer: '200' });
    it('answers 200 with the deleted record', async () => {
      const s = sim();
      const p = s.truth().Person[10];
      const res = await call(s, 'DELETE', pathOf('deletePerson', p?.id));
      expect(res.status).toBe(200);
      expect(res.body).toEqual(p);
      expect(s.tables.Person.get(Number(p?.id))).toBeUndefined();
      expect((await call(s, 'DELETE', pathOf('deletePerson', p?.id))).status).toBe(404);
    });
  });
});

describe('gap: lean default responses', () => {
  describe('lean off (default)', () => {
    const sim = withSim({ scale: 0.1 });
    it('the default response carries the c_* fields', async () => {
      const s = sim();
      const got = await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 5 });
      expect(got).toEqual(s.truth().OrderItem.slice(-5).reverse());
      expect(Object.keys(got[0] ?? {})).toContain('c_org');
    });
  });

  describe('lean on', () => {
    const sim = withSim({ scale: 0.1, lean: true });
    it('queries omit c_* fields unless asked for with return', async () => {
      const s = sim();
      const truth = s.truth().OrderItem.slice(-20).reverse();
      const dflt = await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 20 });
      expect(dflt).toEqual(truth.map(withoutComputed));
      for (const r of dflt) expect(Object.keys(r).some((k) => k.startsWith('c_'))).toBe(false);
      const asked = await query(s, 'queryOrderItem', {
        sortBy: 'id',
        pageSize: 20,
        return: ['c_org', 'c_productName'],
      });
      expect(asked).toEqual(truth.map((r) => ({ id: r.id, c_org: r.c_org, c_productName: r.c_productName })));
      const merged = await query(s, 'queryOrderItem', {
        sortBy: 'id',
        pageSize: 20,
        return: ['c_currentStatusCodeName'],
        isAdditionalData: true,
      });
      expect(merged).toEqual(
        truth.map((r) => ({ ...withoutComputed(r), c_currentStatusCodeName: r.c_currentStatusCodeName })),
      );
    });

    it('GET and list operations too', async () => {
      const s = sim();
      const inv = s.truth().Invoice[0];
      expect(inv?.c_org).toEqual(expect.any(String));
      expect((await call(s, 'GET', pathOf('getInvoice', inv?.id))).body).toEqual(
        withoutComputed(inv ?? { id: 0 }),
      );
      expect((await call(s, 'GET', `${pathOf('getInvoice', inv?.id)}?fields=c_org`)).body).toEqual({
        id: inv?.id,
        c_org: inv?.c_org,
      });
      expect(
        (await call(s, 'GET', `${pathOf('getInvoice', inv?.id)}?fields=c_org&isAdditionalData=true`)).body,
      ).toEqual(inv);
      // Records without c_* fields are unchanged.
      expect((await call(s, 'GET', pathOf('listUser'))).body).toEqual(s.truth().User);
    });
  });
});

describe('gap: case of the string operators (stringCase)', () => {
  describe("'sensitive'", () => {
    const sim = withSim({ scale: 0.1, pageCap: 0, stringCase: 'sensitive' });
    const cases: FilterItem[] = [
      { columnField: 'c_currentStatusCodeName', operatorValue: 'equals', value: 'completed' },
      { columnField: 'c_currentStatusCodeName', operatorValue: 'equals', value: 'Completed' },
      { columnField: 'c_productName', operatorValue: 'contains', value: 'drug' },
      { columnField: 'c_productName', operatorValue: 'contains', value: 'Drug' },
      { columnField: 'c_productName', operatorValue: 'startsWith', value: 'dot' },
      { columnField: 'c_productName', operatorValue: 'startsWith', value: 'DOT' },
      { columnField: 'c_productName', operatorValue: 'endsWith', value: 'test' },
      { columnField: 'c_productName', operatorValue: 'endsWith', value: 'Test' },
      { columnField: 'c_currentStatusCodeId', operatorValue: 'listContains', value: 'cmp,can' },
      { columnField: 'c_currentStatusCodeId', operatorValue: 'listContains', value: 'CMP,can' },
      { columnField: 'orderedBy', operatorValue: 'notEquals', value: 'online order' },
      { columnField: 'orderedBy', operatorValue: 'notEquals', value: 'Online order' },
    ];
    for (const c of cases) {
      it(`${c.operatorValue} "${c.value}" matches by exact case`, async () => {
        const s = sim();
        const rows = s.truth().OrderItem;
        const got = await query(s, 'queryOrderItem', {
          advancedFilter: { linkOperator: 'AND', items: [c] },
          pageSize: 100_000,
        });
        const sensitive = refFilter('OrderItem', rows, 'AND', [c], true);
        const insensitive = refFilter('OrderItem', rows, 'AND', [c], false);
        // Each pair has one case where the two rules differ.
        expect(sortedIds(got)).toEqual(sortedIds(sensitive));
        if (/^[a-z]/.test(c.value) || c.value === 'cmp,can')
          expect(sensitive.length).not.toBe(insensitive.length);
      });
    }

    it('simple filters follow the same rule', async () => {
      const s = sim();
      expect(
        await query(s, 'queryTenant', { name: String(s.truth().Tenant[0]?.name).toUpperCase() }),
      ).toEqual([]);
      const exact = await query(s, 'queryTenant', { name: String(s.truth().Tenant[0]?.name) });
      expect(exact.map((t) => t.name)).toContain(s.truth().Tenant[0]?.name);
    });
  });
});

describe('gap: unknown fields in action bodies (strictBodies)', () => {
  describe('strict (default)', () => {
    const sim = withSim({ scale: 0.1 });
    it('rejects unknown fields, at the top and nested; nothing is written', async () => {
      const s = sim();
      const org = s.truth().Org[0];
      const count = s.tables.Person.size;
      await expect400(
        s,
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: org?.id, shoeSize: 9 },
        'shoeSize: unknown field',
      );
      await expect400(
        s,
        'POST',
        pathOf('createPerson'),
        { nameFirst: 'A', nameLast: 'B', OrgId: org?.id, staff: [{ salary: 1, bonus: 2 }] },
        'staff[0].bonus: unknown field',
      );
      expect(s.tables.Person.size).toBe(count);
    });
  });

  describe('lenient (strictBodies false)', () => {
    const sim = withSim({ scale: 0.1, strictBodies: false });
    it('accepts unknown fields and applies the known ones; types are still checked', async () => {
      const s = sim();
      const org = s.truth().Org[0];
      const res = await call(s, 'POST', pathOf('createPerson'), {
        nameFirst: 'Renée',
        nameLast: "D'Angelo",
        OrgId: org?.id,
        shoeSize: 9,
        constructor: 'not a field either',
        staff: [{ salary: 52000, SalaryPeriodId: 5, bonus: 2 }],
      });
      expect(res.status).toBe(200);
      const person = asObj(res.body);
      expect(s.tables.Person.get(Number(person.id))).toMatchObject({
        nameFirst: 'Renée',
        nameLast: "D'Angelo",
        OrgId: org?.id,
      });
      const staffId = asList(person.staff)[0]?.id;
      const staff = await call(s, 'GET', pathOf('getStaff', Number(staffId)));
      expect(staff.body).toMatchObject({
        id: staffId,
        PersonId: person.id,
        salary: 52000,
        SalaryPeriodId: 5,
      });
      await expect400(
        s,
        'POST',
        pathOf('createPerson'),
        { nameFirst: 7, nameLast: 'B', OrgId: org?.id },
        'nameFirst: expected a string',
      );
      await expect400(
        s,
        'POST',
        pathOf('createOrg'),
        { name: '', zip: '1', extra: true },
        'name: must be at least 1',
      );
    });
  });
});
