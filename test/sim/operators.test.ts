import { describe, expect, it } from 'vitest';
import { operators } from '../../src/sim/index.js';
import { withSim } from '../helpers/sim.js';
import {
  type FilterItem,
  type Json,
  OPERATORS,
  type Op,
  type QueryOp,
  type QueryResource,
  query,
  refFilter,
  sortedIds,
} from '../helpers/sim-data.js';

const queryOf: Record<QueryResource, QueryOp> = {
  HsVendor: 'queryHsVendor',
  OrderItem: 'queryOrderItem',
  Tenant: 'queryTenant',
  Role: 'queryRole',
};

interface Case {
  resource: QueryResource;
  op: Op;
  field: string;
  /** The operand, or a function that picks one from the truth. */
  value: string | ((rows: readonly Json[]) => string);
  /** The expected result is empty (the case checks that nothing matches). */
  none?: true;
  /** The expected result is every record (the case checks that nothing is lost). */
  all?: true;
}

/** The n-th smallest value of a field, as text. */
const nth =
  (field: string, frac: number) =>
  (rows: readonly Json[]): string => {
    const values = rows
      .map((r) => r[field])
      .filter((v) => v !== null && v !== undefined)
      .sort((a, b) =>
        typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1,
      );
    return String(values[Math.floor(values.length * frac)]);
  };

const cases: Case[] = [
  // contains / startsWith / endsWith: string fields, case-insensitive by default.
  { resource: 'OrderItem', op: 'contains', field: 'c_productName', value: 'DRUG' },
  { resource: 'OrderItem', op: 'contains', field: 'c_personNameLast', value: "o'" },
  { resource: 'OrderItem', op: 'contains', field: 'c_personNameFirst', value: 'É' },
  { resource: 'OrderItem', op: 'contains', field: 'orderedBy', value: '' },
  { resource: 'Role', op: 'contains', field: 'name', value: '/' },
  { resource: 'OrderItem', op: 'startsWith', field: 'c_productName', value: 'dot ' },
  { resource: 'OrderItem', op: 'startsWith', field: 'orderedBy', value: 'ONLINE' },
  { resource: 'HsVendor', op: 'startsWith', field: 'name', value: 'quest' },
  { resource: 'OrderItem', op: 'endsWith', field: 'c_productName', value: ' TEST' },
  { resource: 'OrderItem', op: 'endsWith', field: 'c_personNameLast', value: 'EZ' },
  { resource: 'OrderItem', op: 'endsWith', field: 'c_org', value: 'zzz-no-such-suffix', none: true },
  // equals: numbers as numbers, booleans as "true"/"false", strings by text.
  { resource: 'OrderItem', op: 'equals', field: 'ProductId', value: '203' },
  { resource: 'OrderItem', op: 'equals', field: 'ProductId', value: '203.0' },
  { resource: 'OrderItem', op: 'equals', field: 'CurrentStatusId', value: ' 104 ' },
  { resource: 'OrderItem', op: 'equals', field: 'c_currentStatusCodeName', value: 'completed' },
  { resource: 'OrderItem', op: 'equals', field: 'isNotModifiable', value: 'false' },
  { resource: 'OrderItem', op: 'equals', field: 'Parent~OrderItemId', value: nth('Parent~OrderItemId', 0.5) },
  { resource: 'OrderItem', op: 'equals', field: 'orderedBy', value: 'online ORDER' },
  { resource: 'OrderItem', op: 'equals', field: 'orderedBy', value: '', none: true },
  { resource: 'Tenant', op: 'equals', field: 'isHouse', value: 'true' },
  // notEquals: also matches null and absent.
  { resource: 'OrderItem', op: 'notEquals', field: 'orderedBy', value: 'Online Order' },
  { resource: 'OrderItem', op: 'notEquals', field: 'ProductId', value: '201' },
  {
    resource: 'OrderItem',
    op: 'notEquals',
    field: 'Parent~OrderItemId',
    value: nth('Parent~OrderItemId', 0.5),
  },
  { resource: 'OrderItem', op: 'notEquals', field: 'isNotModifiable', value: 'true' },
  { resource: 'OrderItem', op: 'notEquals', field: 'c_currentStatusCodeName', value: 'COMPLETED' },
  // Ordering: numbers numerically, strings by code-unit order; null/absent never match.
  { resource: 'OrderItem', op: 'greaterThan', field: 'id', value: '99999', all: true },
  { resource: 'OrderItem', op: 'greaterThan', field: 'ProductId', value: '205' },
  { resource: 'OrderItem', op: 'greaterThan', field: 'CreationTimestamp', value: '2026-05-01' },
  { resource: 'OrderItem', op: 'greaterThan', field: 'orderedBy', value: 'M' },
  { resource: 'OrderItem', op: 'greaterThan', field: 'Parent~OrderItemId', value: '0' },
  { resource: 'OrderItem', op: 'greaterThanOrEqualTo', field: 'ProductId', value: '205' },
  {
    resource: 'OrderItem',
    op: 'greaterThanOrEqualTo',
    field: 'CreationTimestamp',
    value: nth('CreationTimestamp', 0.9),
  },
  { resource: 'Tenant', op: 'greaterThanOrEqualTo', field: 'name', value: 'M' },
  { resource: 'OrderItem', op: 'lessThan', field: 'ProductId', value: '203' },
  { resource: 'OrderItem', op: 'lessThan', field: 'id', value: nth('id', 0.3) },
  {
    resource: 'OrderItem',
    op: 'lessThan',
    field: 'Parent~OrderItemId',
    value: nth('Parent~OrderItemId', 0.5),
  },
  { resource: 'OrderItem', op: 'lessThan', field: 'c_personNameLast', value: 'Müller' },
  {
    resource: 'OrderItem',
    op: 'lessThanOrEqualTo',
    field: 'CreationTimestamp',
    value: nth('CreationTimestamp', 0.1),
  },
  { resource: 'OrderItem', op: 'lessThanOrEqualTo', field: 'ProductId', value: '201' },
  { resource: 'OrderItem', op: 'lessThanOrEqualTo', field: 'orderedBy', value: '~' },
  // isEmpty / isNotEmpty: null, absent or "".
  { resource: 'OrderItem', op: 'isEmpty', field: 'orderedBy', value: '' },
  { resource: 'OrderItem', op: 'isEmpty', field: 'Parent~OrderItemId', value: '' },
  { resource: 'OrderItem', op: 'isEmpty', field: 'c_org', value: 'ignored', none: true },
  { resource: 'OrderItem', op: 'isNotEmpty', field: 'orderedBy', value: '' },
  { resource: 'OrderItem', op: 'isNotEmpty', field: 'Passport~OrderItemId', value: '' },
  { resource: 'OrderItem', op: 'isNotEmpty', field: 'isNotModifiable', value: '', all: true },
  // isTrue / isFalse: boolean fields.
  { resource: 'Tenant', op: 'isTrue', field: 'isHouse', value: '' },
  { resource: 'OrderItem', op: 'isTrue', field: 'isNotModifiable', value: 'whatever' },
  { resource: 'Tenant', op: 'isFalse', field: 'isInvoiced', value: '' },
  { resource: 'OrderItem', op: 'isFalse', field: 'isNotModifiable', value: '' },
  // listContains: the field equals one of the comma-separated items.
  { resource: 'OrderItem', op: 'listContains', field: 'ProductId', value: '201, 203,209' },
  { resource: 'OrderItem', op: 'listContains', field: 'c_currentStatusCodeId', value: 'ord,sch, mro' },
  { resource: 'OrderItem', op: 'listContains', field: 'orderedBy', value: 'Online order' },
  { resource: 'Role', op: 'listContains', field: 'name', value: 'der,MRO,billing' },
  { resource: 'OrderItem', op: 'listContains', field: 'CurrentStatusId', value: '106' },
];

describe('filter operators against an independent filter over the truth', () => {
  const sim = withSim({ scale: 0.1, pageCap: 0 });

  it('the sandbox knows exactly the 14 operators of the interface, and every one is tested here', () => {
    expect([...operators].sort()).toEqual([...OPERATORS].sort());
    expect(new Set(cases.map((c) => c.op))).toEqual(new Set(OPERATORS));
  });

  for (const c of cases) {
    const shown = typeof c.value === 'string' ? JSON.stringify(c.value) : '(from the data)';
    it(`${c.op} on ${c.resource}.${c.field} ${shown}`, async () => {
      // Nothing in this file writes: the live table serves as the truth without a copy.
      const rows: readonly Json[] = sim().tables[c.resource].all();
      const value = typeof c.value === 'string' ? c.value : c.value(rows);
      const item: FilterItem = { columnField: c.field, operatorValue: c.op, value };
      const got = await query(sim(), queryOf[c.resource], {
        advancedFilter: { linkOperator: 'AND', items: [item] },
        pageSize: 100_000,
      });
      const expected = refFilter(c.resource, rows, 'AND', [item]);
      // Unless the case says so, a case that keeps nothing or everything would not test much.
      if (c.none === true) expect(expected).toEqual([]);
      else if (c.all === true) expect(expected).toHaveLength(rows.length);
      else {
        expect(expected.length).toBeGreaterThan(0);
        expect(expected.length).toBeLessThan(rows.length);
      }
      expect(sortedIds(got)).toEqual(sortedIds(expected));
      // The records come back whole and unchanged.
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const r of got.slice(0, 20)) expect(r).toEqual(byId.get(Number(r.id)));
    });
  }

  it('null and absent: only notEquals and isEmpty match them', async () => {
    const rows: readonly Json[] = sim().tables.OrderItem.all();
    const nulls = new Set(rows.filter((r) => r.orderedBy === null).map((r) => Number(r.id)));
    const absent = new Set(rows.filter((r) => !('orderedBy' in r)).map((r) => Number(r.id)));
    expect(nulls.size).toBeGreaterThan(0);
    expect(absent.size).toBeGreaterThan(0);
    const run = async (op: Op, value: string) =>
      sortedIds(
        await query(sim(), 'queryOrderItem', {
          advancedFilter: {
            linkOperator: 'AND',
            items: [{ columnField: 'orderedBy', operatorValue: op, value }],
          },
          pageSize: 100_000,
        }),
      );
    const hits = (ids: number[]) => ({
      nulls: ids.filter((id) => nulls.has(id)).length,
      absent: ids.filter((id) => absent.has(id)).length,
    });
    expect(hits(await run('notEquals', 'Online order'))).toEqual({ nulls: nulls.size, absent: absent.size });
    expect(hits(await run('isEmpty', ''))).toEqual({ nulls: nulls.size, absent: absent.size });
    for (const [op, value] of [
      ['equals', 'Online order'],
      ['contains', ''],
      ['startsWith', ''],
      ['endsWith', ''],
      ['greaterThan', ''],
      ['lessThan', '\uffff'],
      ['listContains', 'Online order,'],
      ['isNotEmpty', ''],
    ] as const) {
      expect(hits(await run(op, value)), op).toEqual({ nulls: 0, absent: 0 });
    }
  });

  it('number fields compare as numbers, string fields as text', async () => {
    const rows: readonly Json[] = sim().tables.OrderItem.all();
    // "99999" > "500001" as text, but 500001 > 99999 as numbers: every item has a larger id.
    const all = await query(sim(), 'queryOrderItem', {
      advancedFilter: {
        linkOperator: 'AND',
        items: [{ columnField: 'id', operatorValue: 'greaterThan', value: '99999' }],
      },
      pageSize: 100_000,
    });
    expect(all).toHaveLength(rows.length);
    // "2026-06" > "2026-06-14..." is false as text: ISO timestamps compare as times.
    const late = await query(sim(), 'queryOrderItem', {
      advancedFilter: {
        linkOperator: 'AND',
        items: [
          { columnField: 'CreationTimestamp', operatorValue: 'greaterThanOrEqualTo', value: '2026-06' },
        ],
      },
      pageSize: 100_000,
    });
    const expected = rows.filter((r) => String(r.CreationTimestamp) >= '2026-06');
    expect(expected.length).toBeGreaterThan(0);
    expect(sortedIds(late)).toEqual(sortedIds(expected));
    for (const r of late) expect(String(r.CreationTimestamp).startsWith('2026-06')).toBe(true);
  });
});
