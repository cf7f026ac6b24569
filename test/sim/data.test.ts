import { describe, expect, it } from 'vitest';
import type { ResourceName } from '../../src/schema/index.js';
import type { SimRecord } from '../../src/sim/index.js';
import { call, TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { asList, asObj, num, pathOf, query, sortedIds } from '../helpers/sim-data.js';

const DAY = 86_400_000;

/** Counts of each resource. */
function sizes(truth: Record<ResourceName, SimRecord[]>): Record<string, number> {
  return Object.fromEntries(Object.entries(truth).map(([k, v]) => [k, v.length]));
}

describe('determinism', () => {
  const a = withSim({ scale: 0.2, seed: 7 });
  const b = withSim({ scale: 0.2, seed: 7 });
  const c = withSim({ scale: 0.2, seed: 8 });
  const d = withSim({ scale: 0.2, seed: 7, anchorDate: '2025-01-31' });

  it('the same seed and anchorDate give the same data, and the same answers', async () => {
    // Compared as JSON text: a deep toEqual of two whole data sets is slow.
    const ta = JSON.stringify(a().truth());
    expect(ta.length).toBeGreaterThan(1_000_000);
    expect(JSON.stringify(b().truth())).toBe(ta);
    const body = { ProductId: '204', pageSize: 100 };
    const fromA = await query(a(), 'queryOrderItem', body);
    expect(fromA.length).toBeGreaterThan(50);
    expect(await query(b(), 'queryOrderItem', body)).toEqual(fromA);
    expect((await call(b(), 'GET', pathOf('listUser'))).body).toEqual(
      (await call(a(), 'GET', pathOf('listUser'))).body,
    );
  });

  it('another seed gives other data of the same shape', () => {
    const ta = a().truth();
    const tc = c().truth();
    expect(sizes(tc)).toMatchObject({ Org: 200, OrderItem: 6000, Invoice: 600, Person: 1600 });
    expect(tc.OrderItem).not.toEqual(ta.OrderItem);
    expect(tc.Person.map((p) => p.nameLast)).not.toEqual(ta.Person.map((p) => p.nameLast));
    expect(tc.Org.map((o) => o.name)).not.toEqual(ta.Org.map((o) => o.name));
  });

  it('the anchorDate is the end of the two years of history', () => {
    for (const [sim, anchor] of [
      [a(), TEST_ANCHOR],
      [d(), '2025-01-31'],
    ] as const) {
      const end = Date.parse(`${anchor}T00:00:00Z`);
      const stamps = sim.truth().OrderItem.map((r) => Date.parse(String(r.CreationTimestamp)));
      expect(Math.max(...stamps)).toBeLessThanOrEqual(end);
      expect(Math.max(...stamps)).toBeGreaterThan(end - 5 * DAY);
      expect(Math.min(...stamps)).toBeGreaterThanOrEqual(end - 730 * DAY);
      expect(Math.min(...stamps)).toBeLessThan(end - 720 * DAY);
    }
    expect(d().truth().OrderItem).not.toEqual(a().truth().OrderItem);
  });
});

describe('a realistic data set at scale 1', () => {
  const sim = withSim({ scale: 1 });
  const tenth = withSim({ scale: 0.1 });
  // Nothing below writes or mutates: one copy of the truth serves every test.
  let cached: Record<ResourceName, SimRecord[]> | undefined;
  const truth = () => {
    cached ??= sim().truth();
    return cached;
  };

  it('has about 1,000 orgs, 30,000 order items and 3,000 invoices; the service reports the same totals', async () => {
    const s = sim();
    const t = truth();
    expect(sizes(t)).toMatchObject({ Org: 1000, OrderItem: 30_000, Invoice: 3000, Role: 12, Payment: 0 });
    expect(t.Person.length).toBeGreaterThan(5000);
    expect(t.User.length).toBeGreaterThan(2000);
    expect(t.Tenant.length).toBeGreaterThan(700);
    s.configure({ envelope: 'object' });
    try {
      for (const [op, count] of [
        ['queryOrderItem', 30_000],
        ['queryTenant', t.Tenant.length],
        ['queryHsVendor', t.HsVendor.length],
        ['queryRole', 12],
      ] as const) {
        const res = asObj((await call(s, 'POST', pathOf(op), { pageSize: 1 })).body);
        expect(res.total, op).toBe(count);
      }
      const om = asObj((await call(s, 'GET', `${pathOf('listOrgMonth')}?fields=OrgId`)).body);
      expect(om.total).toBe(t.OrgMonth.length);
    } finally {
      s.configure({ envelope: 'array' });
    }
  });

  it('has up to 24 OrgMonth rows per org, ending with the anchor month, most orgs all 24', () => {
    const t = truth();
    const perOrg = new Map<number, SimRecord[]>();
    for (const r of t.OrgMonth) {
      const list = perOrg.get(num(r.OrgId)) ?? [];
      list.push(r);
      perOrg.set(num(r.OrgId), list);
    }
    expect(perOrg.size).toBe(1000);
    const counts = [...perOrg.values()].map((l) => l.length);
    expect(Math.max(...counts)).toBe(24);
    const mean = counts.reduce((x, y) => x + y, 0) / counts.length;
    expect(mean).toBeGreaterThan(20);
    expect(mean).toBeLessThanOrEqual(24);
    expect(counts.filter((n) => n >= 23).length).toBeGreaterThan(700);
    // Labels: mostly YYYY-MM, within the 24 months that end with the anchor's month.
    const iso = t.OrgMonth.map((r) => String(r.label)).filter((l) => /^\d{4}-\d{2}$/.test(l));
    expect(iso.length / t.OrgMonth.length).toBeGreaterThan(0.9);
    expect(iso.length).toBeLessThan(t.OrgMonth.length); // a few odd labels
    expect([...new Set(iso)].sort()).toHaveLength(24);
    expect(iso.every((l) => l >= '2024-07' && l <= '2026-06')).toBe(true);
    for (const r of t.OrgMonth.slice(0, 500)) {
      expect(num(r.countEligibleRandomPool)).toBeLessThanOrEqual(num(r.countEligibleAll));
      expect(num(r.countPickedDrug)).toBeGreaterThanOrEqual(0);
    }
  });

  it('has 8 order item statuses, all in use, with consistent codes and names', () => {
    const s = sim();
    expect(s.statuses).toHaveLength(8);
    expect(new Set(s.statuses.map((x) => x.id)).size).toBe(8);
    const used = new Set<number>();
    const wrong: unknown[] = [];
    for (const r of truth().OrderItem) {
      const st = s.statuses.find((x) => x.id === r.CurrentStatusId);
      used.add(num(r.CurrentStatusId));
      if (
        st === undefined ||
        r.c_currentStatusCodeId !== st.code ||
        r.c_currentStatusCodeName !== st.name ||
        r.isNotModifiable !== st.terminal
      ) {
        wrong.push(r);
      }
    }
    expect(wrong).toEqual([]);
    expect(used.size).toBe(8);
  });

  /** Resources whose ids rise with gaps. */
  const idResources = [
    'Org',
    'OrderItem',
    'Invoice',
    'User',
    'Staff',
    'Applicant',
    'HsVendor',
    'OrgMonth',
  ] as const;

  it('has rising ids with gaps', () => {
    const t = truth();
    for (const name of idResources) {
      const ids = t[name].map((r) => Number(r.id));
      expect(ids, name).toEqual([...ids].sort((x, y) => x - y));
      expect(new Set(ids).size, name).toBe(ids.length);
      const span = (ids.at(-1) ?? 0) - (ids[0] ?? 0) + 1;
      expect(span, name).toBeGreaterThan(ids.length * 1.05);
    }
    expect(t.Invoice.every((r) => typeof r.id === 'string' && /^\d+$/.test(r.id))).toBe(true);
    // At most 12 apart (docs/sandbox.md), so probing upward with a window of 50 finds every id.
    for (const name of idResources) {
      const ids = t[name].map((r) => Number(r.id));
      const widest = Math.max(...ids.slice(1).map((id, i) => id - (ids[i] ?? id)));
      expect(widest, name).toBeGreaterThan(1);
      expect(widest, name).toBeLessThanOrEqual(12);
    }
    // Order item ids rise with time.
    const stamps = t.OrderItem.map((r) => String(r.CreationTimestamp));
    expect(stamps).toEqual([...stamps].sort());
  });

  it('has optional fields sometimes null and sometimes absent', () => {
    const t = truth();
    const shape = (rows: readonly SimRecord[], field: string) => ({
      absent: rows.filter((r) => !(field in r)).length,
      null: rows.filter((r) => field in r && r[field] === null).length,
      set: rows.filter((r) => r[field] !== null && r[field] !== undefined).length,
    });
    for (const [rows, field] of [
      [t.OrderItem, 'orderedBy'],
      [t.Staff, 'dateOfTermination'],
    ] as const) {
      const s = shape(rows, field);
      expect(s.absent, field).toBeGreaterThan(0);
      expect(s.null, field).toBeGreaterThan(0);
      expect(s.set, field).toBeGreaterThan(0);
    }
    expect(shape(t.User, 'PersonId').null).toBeGreaterThan(0);
    expect(shape(t.User, 'phone').absent).toBeGreaterThan(0);
    expect(shape(t.Invoice, 'lateFee').null).toBeGreaterThan(0);
    expect(shape(t.Invoice, 'dateDue').absent).toBeGreaterThan(0);
    expect(shape(t.OrderItem, 'Parent~OrderItemId').absent).toBeGreaterThan(20_000);
    expect(shape(t.OrgMonth, 'dropRandomPick').null).toBeGreaterThan(0);
  });

  it('has the documented oddities: odd labels, credits, invoices without due date, odd org names', () => {
    const t = truth();
    const labels = t.OrgMonth.map((r) => String(r.label));
    expect(labels.some((l) => /^\d{2}\/\d{4}$/.test(l))).toBe(true);
    expect(labels.some((l) => /^\d{4}-\d$/.test(l))).toBe(true);
    expect(labels.some((l) => !/\d/.test(l))).toBe(true);
    const balances = t.Invoice.map((r) => num(r.balance));
    expect(balances.filter((b) => b < 0).length).toBeGreaterThan(0);
    expect(balances.filter((b) => b === 0).length).toBeGreaterThan(1000);
    expect(balances.filter((b) => b > 0).length).toBeGreaterThan(300);
    expect(t.Invoice.filter((r) => !('dateDue' in r)).length).toBeGreaterThan(0);
    const names = t.Org.map((o) => String(o.name));
    expect(names.some((n) => n.startsWith('@'))).toBe(true);
    expect(names.some((n) => n.startsWith('+'))).toBe(true);
    expect(names.some((n) => (n.codePointAt(0) ?? 0) > 0x7f)).toBe(true);
  });

  it('uses ISO 8601 dates and timestamps, and keeps fields the interface does not name', async () => {
    const s = sim();
    const t = truth();
    const date = /^\d{4}-\d{2}-\d{2}$/;
    const stamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
    const bad = [
      ...t.OrderItem.filter((r) => !stamp.test(String(r.CreationTimestamp))),
      ...t.Invoice.filter(
        (r) => !date.test(String(r.date)) || ('dateDue' in r && !date.test(String(r.dateDue))),
      ),
      ...t.Staff.filter((r) => !date.test(String(r.dateOfHire))),
      ...t.Applicant.filter((r) => !date.test(String(r.applicationDate))),
      ...t.User.filter((r) => r.lastLoginAt !== null && !stamp.test(String(r.lastLoginAt))),
    ];
    expect(bad).toEqual([]);
    const items = await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 50 });
    expect(items.every((r) => typeof r.c_productCategory === 'string')).toBe(true);
    expect(items.some((r) => typeof r.labAccessionNumber === 'string')).toBe(true);
    const inv = asObj((await call(s, 'GET', pathOf('getInvoice', t.Invoice[0]?.id))).body);
    expect(inv.amount).toEqual(expect.any(Number));
    const vendors = await query(s, 'queryHsVendor', { pageSize: 5 });
    expect(vendors.every((v) => typeof v.cityState === 'string')).toBe(true);
  });

  it('has names with accents and apostrophes, intact through HTTP', async () => {
    const s = sim();
    const t = truth();
    const accents = /[À-ɏ]/;
    const names = t.Person.map((p) => `${String(p.nameFirst)} ${String(p.nameLast)}`);
    expect(names.filter((n) => accents.test(n)).length).toBeGreaterThan(500);
    expect(names.filter((n) => n.includes("'")).length).toBeGreaterThan(200);
    expect(t.Org.some((o) => o.name === "Peña & O'Brien Hauling, Inc.")).toBe(true);

    const users = asList((await call(s, 'GET', `${pathOf('listUser')}?fields=nameFirstLast`)).body);
    expect(users).toEqual(t.User.map((u) => ({ id: u.id, nameFirstLast: u.nameFirstLast })));
    expect(users.some((u) => accents.test(String(u.nameFirstLast)))).toBe(true);
    expect(users.some((u) => String(u.nameFirstLast).includes("'"))).toBe(true);

    const got = await query(s, 'queryOrderItem', {
      advancedFilter: {
        linkOperator: 'AND',
        items: [
          { columnField: 'c_personNameLast', operatorValue: 'contains', value: "'" },
          { columnField: 'c_personNameFirst', operatorValue: 'equals', value: 'josé' },
        ],
      },
      pageSize: 250,
    });
    const expected = t.OrderItem.filter(
      (r) => String(r.c_personNameLast).includes("'") && r.c_personNameFirst === 'José',
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(250);
    expect(sortedIds(got)).toEqual(sortedIds(expected));
    for (const r of got) expect(r.c_personNameFirst).toBe('José');
  });

  it('scale 0.1 is about a tenth of it', () => {
    const full = sizes(truth());
    const small = sizes(tenth().truth());
    for (const name of [
      'Org',
      'OrderItem',
      'Invoice',
      'Person',
      'User',
      'Staff',
      'Applicant',
      'HsVendor',
      'Tenant',
      'OrgMonth',
    ]) {
      const ratio = (small[name] ?? 0) / (full[name] ?? 1);
      expect(ratio, name).toBeGreaterThan(0.08);
      expect(ratio, name).toBeLessThan(0.12);
    }
    expect(small.Role).toBe(12);
    expect(small).toMatchObject({ Org: 100, OrderItem: 3000, Invoice: 300 });
  });
});
