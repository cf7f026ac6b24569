import { describe, expect, it } from 'vitest';
import { type OperationName, operationNames, operations } from '../../src/schema/index.js';
import type { RunningSim, SimRecord } from '../../src/sim/index.js';
import { call, READ_TOKEN, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import {
  asList,
  asObj,
  errorOf,
  idsOf,
  num,
  pathOf,
  query,
  rawRequest,
  sortedIds,
} from '../helpers/sim-data.js';

/** The first record of a table that satisfies `pred`. */
function pick(rows: readonly SimRecord[], pred: (r: SimRecord) => boolean = () => true): SimRecord {
  const r = rows.find(pred);
  if (r === undefined) throw new Error('no record fits');
  return r;
}

/**
 * One call of each of the 15 operations at its exact method, path and version, each checked
 * against the sandbox's truth. Typed by OperationName so that a missing operation fails to compile.
 */
const exercise: Record<OperationName, (sim: RunningSim) => Promise<void>> = {
  queryHsVendor: async (sim) => {
    const got = await query(sim, 'queryHsVendor', { sortBy: 'id', sortDirection: 'asc', pageSize: 250 });
    expect(got).toEqual(sim.truth().HsVendor.slice(0, 250));
  },
  queryOrderItem: async (sim) => {
    const got = await query(sim, 'queryOrderItem', { sortBy: 'id', pageSize: 50 });
    expect(got).toEqual(sim.truth().OrderItem.slice(-50).reverse());
  },
  queryTenant: async (sim) => {
    const got = await query(sim, 'queryTenant', { sortBy: 'id', sortDirection: 'asc' });
    expect(got).toEqual(sim.truth().Tenant.slice(0, 250));
  },
  queryRole: async (sim) => {
    const got = await query(sim, 'queryRole', {});
    const truth = sim.truth().Role;
    expect(sortedIds(got)).toEqual(sortedIds(truth));
    for (const r of got) expect(r).toEqual(truth.find((t) => t.id === r.id));
  },
  updateApplicant: async (sim) => {
    const a = pick(sim.truth().Applicant);
    const res = await call(sim, 'PATCH', pathOf('updateApplicant', a.id), { priorAddressCity: 'Española' });
    expect(res.status).toBe(200);
    expect(asObj(res.body)).toMatchObject({ id: a.id, PersonId: a.PersonId, priorAddressCity: 'Española' });
    expect(sim.tables.Applicant.get(a.id)?.priorAddressCity).toBe('Española');
  },
  getApplicant: async (sim) => {
    const a = pick(sim.truth().Applicant, (r) => Array.isArray(r.info) && r.info.length > 0);
    const res = await call(sim, 'GET', pathOf('getApplicant', a.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(a);
  },
  createPayment: async (sim) => {
    const inv = pick(sim.truth().Invoice, (r) => num(r.balance) > 10);
    const before = num(inv.balance);
    const res = await call(sim, 'POST', pathOf('createPayment'), {
      InvoiceId: inv.id,
      amountToPay: 2.5,
      PersonId: 70001,
    });
    expect(res.status).toBe(200);
    const expected = Math.round((before - 2.5) * 100) / 100;
    expect(asObj(res.body)).toMatchObject({ InvoiceId: inv.id, amountToPay: 2.5, balance: expected });
    expect(sim.tables.Invoice.get(inv.id)?.balance).toBe(expected);
  },
  updatePerson: async (sim) => {
    const p = pick(sim.truth().Person);
    const res = await call(sim, 'PATCH', pathOf('updatePerson', p.id), {
      city: 'Coeur d’Alene',
      nameMiddle: 'Ñ',
    });
    expect(res.status).toBe(200);
    expect(asObj(res.body)).toMatchObject({
      id: p.id,
      nameFirst: p.nameFirst,
      city: 'Coeur d’Alene',
      nameMiddle: 'Ñ',
    });
    expect(sim.tables.Person.get(p.id)).toMatchObject({
      city: 'Coeur d’Alene',
      nameMiddle: 'Ñ',
      OrgId: p.OrgId,
    });
  },
  createPerson: async (sim) => {
    const org = pick(sim.truth().Org);
    const before = sim.tables.Person.maxId();
    const res = await call(sim, 'POST', pathOf('createPerson'), {
      nameFirst: 'Zoë',
      nameLast: "O'Brien",
      OrgId: org.id,
    });
    expect(res.status).toBe(200);
    const id = num(asObj(res.body).id);
    expect(id).toBeGreaterThan(Number(before));
    expect(sim.tables.Person.get(id)).toMatchObject({ nameFirst: 'Zoë', nameLast: "O'Brien", OrgId: org.id });
  },
  deletePerson: async (sim) => {
    const p = pick([...sim.truth().Person].reverse());
    const res = await call(sim, 'DELETE', pathOf('deletePerson', p.id));
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(sim.tables.Person.get(p.id)).toBeUndefined();
  },
  getInvoice: async (sim) => {
    const inv = pick(sim.truth().Invoice, (r) => 'dateDue' in r);
    expect(typeof inv.id).toBe('string');
    const res = await call(sim, 'GET', pathOf('getInvoice', inv.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(inv);
  },
  listOrgMonth: async (sim) => {
    const res = await call(sim, 'GET', pathOf('listOrgMonth'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sim.truth().OrgMonth);
  },
  listUser: async (sim) => {
    const res = await call(sim, 'GET', pathOf('listUser'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(sim.truth().User);
  },
  getStaff: async (sim) => {
    const s = pick(sim.truth().Staff);
    const res = await call(sim, 'GET', pathOf('getStaff', s.id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(s);
  },
  createOrg: async (sim) => {
    const before = Number(sim.tables.Org.maxId());
    const res = await call(sim, 'POST', pathOf('createOrg'), {
      name: 'Ångström & Co',
      zip: '87532',
      isHouse: false,
    });
    expect(res.status).toBe(200);
    const org = asObj(res.body);
    expect(org).toMatchObject({ name: 'Ångström & Co', zip: '87532', isHouse: false });
    expect(num(org.id)).toBeGreaterThan(before);
    expect(sim.tables.Org.get(num(org.id))).toMatchObject({ name: 'Ångström & Co', zip: '87532' });
  },
};

/** The same path under the other version segment. */
function otherVersion(path: string): string {
  return path.startsWith('/v2/') ? path.replace('/v2/', '/vLatest/') : path.replace('/vLatest/', '/v2/');
}

describe('the 15 operations', () => {
  const sim = withSim({ scale: 0.1 });

  it('declares exactly the 15 operations of the interface, with their versions', () => {
    expect(operationNames).toHaveLength(15);
    const table = operationNames.map((n) => `${operations[n].method} ${operations[n].path}`).sort();
    expect(table).toEqual(
      [
        'POST /vLatest/query/core/hsvendor',
        'POST /vLatest/query/core/orderitem',
        'POST /vLatest/query/core/tenant',
        'POST /v2/query/core/role',
        'PATCH /vLatest/action/core/applicant/{id}',
        'GET /v2/action/core/applicant/{id}',
        'POST /vLatest/action/core/payment',
        'PATCH /v2/action/core/person/{id}',
        'POST /vLatest/action/core/person',
        'DELETE /vLatest/action/core/person/{id}',
        'GET /v2/action/core/invoice/{id}',
        'GET /v2/action/core/orgmonth',
        'GET /v2/action/core/user',
        'GET /v2/action/core/staff/{id}',
        'POST /v2/action/core/org',
      ].sort(),
    );
  });

  for (const name of operationNames) {
    it(`${operations[name].method} ${operations[name].path} answers with the truth`, async () => {
      const s = sim();
      const before = s.stats.byOperation[name] ?? 0;
      await exercise[name](s);
      expect(s.stats.byOperation[name]).toBe(before + 1);
    });
  }

  it('serves no operation under the other version segment (404, or 405 where another method owns that path)', async () => {
    const s = sim();
    const truthBefore = s.truth();
    for (const name of operationNames) {
      const op = operations[name];
      const swapped = otherVersion(op.path);
      const owned = operationNames.some((n) => operations[n].path === swapped);
      const requestsBefore = s.stats.requests;
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : {};
      const res = await call(s, op.method, swapped.replace('{id}', '9001'), body);
      expect(res.status, `${op.method} ${swapped}`).toBe(owned ? 405 : 404);
      expect(errorOf(res.body).code).toBe(owned ? 'METHOD_NOT_ALLOWED' : 'NOT_FOUND');
      expect(s.stats.requests).toBe(requestsBefore);
    }
    expect(s.truth()).toEqual(truthBefore);
  });
});

describe('authentication and routing errors', () => {
  const sim = withSim({ scale: 0.1 });

  it('401 without a token or with a bad one, on reads, queries and writes; nothing is written', async () => {
    const s = sim();
    const staff = s.truth().Staff[0];
    const inv = s.truth().Invoice.find((r) => num(r.balance) > 5);
    expect(staff).toBeDefined();
    expect(inv).toBeDefined();
    const attempts: [string, string, unknown][] = [
      ['GET', pathOf('getStaff', staff?.id), undefined],
      ['POST', pathOf('queryRole'), {}],
      ['POST', pathOf('createPayment'), { InvoiceId: inv?.id, amountToPay: 1 }],
    ];
    for (const token of [null, 'wrong-token', '']) {
      for (const [method, path, body] of attempts) {
        const res = await call(s, method, path, body, token);
        expect(res.status, `${method} ${path} token=${token}`).toBe(401);
        expect(errorOf(res.body)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
      }
    }
    // A scheme other than Bearer is no credential either.
    const basic = await rawRequest(`${s.url}${pathOf('getStaff', staff?.id)}`, {
      headers: { authorization: `Basic ${WRITE_TOKEN}` },
    });
    expect(basic.status).toBe(401);
    expect(s.tables.Invoice.get(String(inv?.id))?.balance).toBe(inv?.balance);
    expect(s.stats.writesApplied).toEqual({});
  });

  it('the read-only token reads and queries with the same answers as the write token', async () => {
    const s = sim();
    const truth = s.truth();
    const roles = await query(s, 'queryRole', { sortBy: 'id', sortDirection: 'asc' }, READ_TOKEN);
    expect(roles).toEqual(truth.Role);
    const tenants = await query(s, 'queryTenant', { isHouse: 'true' }, READ_TOKEN);
    expect(sortedIds(tenants)).toEqual(sortedIds(truth.Tenant.filter((t) => t.isHouse === true)));
    const staff = truth.Staff[3];
    const got = await call(s, 'GET', pathOf('getStaff', staff?.id), undefined, READ_TOKEN);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(staff);
    const users = await call(s, 'GET', pathOf('listUser'), undefined, READ_TOKEN);
    expect(idsOf(asList(users.body))).toEqual(idsOf(truth.User));
  });

  it('403 for every write with the read-only token; the data is unchanged', async () => {
    const s = sim();
    const truth = s.truth();
    const person = truth.Person[0];
    const applicant = truth.Applicant[0];
    const inv = truth.Invoice.find((r) => num(r.balance) > 5);
    const org = truth.Org[0];
    const writes: [string, string, unknown][] = [
      ['POST', pathOf('createPayment'), { InvoiceId: inv?.id, amountToPay: 1 }],
      ['POST', pathOf('createPerson'), { nameFirst: 'A', nameLast: 'B', OrgId: org?.id }],
      ['PATCH', pathOf('updatePerson', person?.id), { city: 'Tampa' }],
      ['DELETE', pathOf('deletePerson', person?.id), undefined],
      ['PATCH', pathOf('updateApplicant', applicant?.id), { ssn: '000-00-0000' }],
      ['POST', pathOf('createOrg'), { name: 'X', zip: '1' }],
    ];
    for (const [method, path, body] of writes) {
      const res = await call(s, method, path, body, READ_TOKEN);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(errorOf(res.body)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    }
    expect(s.truth()).toEqual(truth);
    expect(s.stats.writesApplied).toEqual({});
  });

  it('405 with an Allow header for a wrong method on a known path', async () => {
    const s = sim();
    const cases: [string, string, string][] = [
      ['GET', pathOf('queryRole'), 'POST'],
      ['PUT', pathOf('queryOrderItem'), 'POST'],
      ['DELETE', pathOf('getStaff', 6001), 'GET'],
      ['POST', pathOf('listUser'), 'GET'],
      ['GET', pathOf('createPayment'), 'POST'],
      ['PATCH', pathOf('createOrg'), 'POST'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await call(s, method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(errorOf(res.body).message).toContain(method);
    }
    // Before DELETE and after PATCH, the person path answers per method.
    const person = s.truth().Person[5];
    const put = await call(s, 'PUT', pathOf('deletePerson', person?.id), {});
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE');
    expect(s.tables.Person.get(Number(person?.id))).toEqual(person);
  });

  it('404 for unknown paths', async () => {
    const s = sim();
    for (const path of [
      '/',
      '/vLatest/query/core/nothing',
      '/v3/query/core/role',
      '/v2/query/core/role/extra',
      '/v2/query/other/role',
      '/v2/action/core/staff',
      '/vLatest/action/core/person/1/extra',
    ]) {
      const res = await call(s, 'POST', path, {});
      expect(res.status, path).toBe(404);
      expect(errorOf(res.body)).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect(errorOf(res.body).message).toContain(path);
    }
  });

  it('404 for unknown ids on every operation with an id; nothing changes', async () => {
    const s = sim();
    const truth = s.truth();
    const unusedNumber = Number(s.tables.Person.maxId()) + 1000;
    const cases: [string, string, unknown][] = [
      ['GET', pathOf('getStaff', 1), undefined],
      ['GET', pathOf('getApplicant', 1), undefined],
      ['GET', pathOf('getInvoice', '1'), undefined],
      ['GET', pathOf('getInvoice', 'no-such-invoice'), undefined],
      ['PATCH', pathOf('updateApplicant', 1), { ssn: '1' }],
      ['PATCH', pathOf('updatePerson', unusedNumber), { city: 'Tampa' }],
      ['DELETE', pathOf('deletePerson', unusedNumber), undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(s, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(errorOf(res.body).code).toBe('NOT_FOUND');
    }
    // Ids that exist in one table are unknown in another.
    const staffId = truth.Staff[0]?.id;
    expect(truth.Applicant.some((a) => a.id === staffId)).toBe(false);
    expect((await call(s, 'GET', pathOf('getApplicant', staffId))).status).toBe(404);
    expect(s.truth()).toEqual(truth);
  });

  it('a path id that is not a whole number is a 400 on numeric ids', async () => {
    const s = sim();
    for (const id of ['abc', '12.5', '-3']) {
      const res = await call(s, 'GET', pathOf('getStaff', id));
      expect(res.status, id).toBe(400);
      expect(errorOf(res.body).message).toContain(id);
    }
  });
});

describe('the prefix option', () => {
  const sim = withSim({ scale: 0.1, prefix: '/api' });

  it('puts the prefix in the URL', () => {
    expect(sim().url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(sim().options.prefix).toBe('/api');
  });

  for (const name of operationNames) {
    it(`serves ${operations[name].method} /api${operations[name].path}`, async () => {
      await exercise[name](sim());
    });
  }

  it('serves nothing outside the prefix', async () => {
    const s = sim();
    const root = `http://127.0.0.1:${s.port}`;
    const truth = s.truth();
    for (const path of [pathOf('queryRole'), `/apiv2/query/core/role`, `/other${pathOf('queryRole')}`]) {
      const res = await fetch(`${root}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${WRITE_TOKEN}`, 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status, path).toBe(404);
      expect(errorOf(await res.json()).code).toBe('NOT_FOUND');
    }
    const del = await fetch(`${root}${pathOf('deletePerson', truth.Person[0]?.id)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${WRITE_TOKEN}` },
    });
    expect(del.status).toBe(404);
    expect(s.truth()).toEqual(truth);
    // The hooks live under the prefix too.
    expect((await fetch(`${root}/__sim/stats`)).status).toBe(404);
    const stats = await fetch(`${root}/api/__sim/stats`);
    expect(stats.status).toBe(200);
    expect(asObj(await stats.json()).requests).toBe(s.stats.requests);
  });
});
