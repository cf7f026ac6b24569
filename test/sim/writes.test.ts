import { describe, expect, it } from 'vitest';
import type { RunningSim, SimRecord } from '../../src/sim/index.js';
import { call, withSim } from '../helpers/sim.js';
import { asList, asObj, expect400, num, pathOf, query, sortedIds } from '../helpers/sim-data.js';

const cents = (n: number) => Math.round(n * 100) / 100;

function invoiceWithBalance(sim: RunningSim, min: number): SimRecord {
  const inv = sim.truth().Invoice.find((r) => num(r.balance) > min);
  if (inv === undefined) throw new Error('no such invoice');
  return inv;
}

async function getInvoice(sim: RunningSim, id: string | number) {
  const res = await call(sim, 'GET', pathOf('getInvoice', id));
  expect(res.status).toBe(200);
  return asObj(res.body);
}

describe('payment (POST /vLatest/action/core/payment)', () => {
  const sim = withSim({ scale: 0.1 });

  it('lowers the invoice balance, visible through GET invoice; an overpayment leaves a credit', async () => {
    const s = sim();
    const inv = invoiceWithBalance(s, 50);
    const before = await getInvoice(s, inv.id);
    expect(before).toEqual(inv);
    const b0 = num(before.balance);

    const res = await call(s, 'POST', pathOf('createPayment'), {
      InvoiceId: inv.id,
      amountToPay: 12.34,
      PersonId: 70001,
    });
    expect(res.status).toBe(200);
    const payment = asObj(res.body);
    expect(payment).toEqual({
      id: expect.any(Number),
      InvoiceId: inv.id,
      amountToPay: 12.34,
      PersonId: 70001,
      balance: cents(b0 - 12.34),
    });
    expect(await getInvoice(s, inv.id)).toEqual({ ...inv, balance: cents(b0 - 12.34) });

    const rest = cents(b0 - 12.34);
    const second = await call(s, 'POST', pathOf('createPayment'), {
      InvoiceId: inv.id,
      amountToPay: cents(rest + 10),
    });
    expect(second.status).toBe(200);
    expect(num(asObj(second.body).id)).toBeGreaterThan(num(payment.id));
    expect(asObj(second.body).balance).toBe(-10);
    expect((await getInvoice(s, inv.id)).balance).toBe(-10);
    expect(s.truth().Payment.filter((p) => p.InvoiceId === inv.id)).toHaveLength(2);
    expect(s.stats.writesApplied.createPayment).toBe(2);
  });

  it('rejects an unknown invoice, a non-positive amount and an empty InvoiceId (400); nothing is paid', async () => {
    const s = sim();
    const inv = invoiceWithBalance(s, 50);
    const payments = s.tables.Payment.size;
    const path = pathOf('createPayment');
    await expect400(
      s,
      'POST',
      path,
      { InvoiceId: '1', amountToPay: 5 },
      'InvoiceId: invoice 1 does not exist',
    );
    await expect400(s, 'POST', path, { InvoiceId: `${String(inv.id)}x`, amountToPay: 5 }, 'does not exist');
    await expect400(
      s,
      'POST',
      path,
      { InvoiceId: inv.id, amountToPay: 0 },
      'amountToPay: must be greater than 0',
    );
    await expect400(
      s,
      'POST',
      path,
      { InvoiceId: inv.id, amountToPay: -5 },
      'amountToPay: must be greater than 0',
    );
    await expect400(
      s,
      'POST',
      path,
      { InvoiceId: inv.id, amountToPay: '5' },
      'amountToPay: expected a number',
    );
    await expect400(
      s,
      'POST',
      path,
      { InvoiceId: '', amountToPay: 5 },
      'InvoiceId: must be at least 1 character(s)',
    );
    await expect400(s, 'POST', path, { amountToPay: 5 }, 'InvoiceId: required');
    await expect400(s, 'POST', path, { InvoiceId: inv.id, amountToPay: 5, tip: 1 }, 'tip: unknown field');
    expect(s.tables.Payment.size).toBe(payments);
    expect((await getInvoice(s, inv.id)).balance).toBe(inv.balance);
  });
});

describe('person create, update and delete', () => {
  const sim = withSim({ scale: 0.1 });

  /** Creates a person with one applicant, one staff and one user record; returns the answer. */
  async function createFamily(s: RunningSim): Promise<SimRecord & { id: number }> {
    const org = s.truth().Org[4];
    const res = await call(s, 'POST', pathOf('createPerson'), {
      nameFirst: 'Zoë',
      nameLast: 'Núñez',
      OrgId: org?.id,
      email: 'zoe.nunez@example.com',
      dateOfBirth: '1990-02-03',
      alias: [{ AliasTypeId: 1, nameFirst: 'Zoe', nameLast: 'Nunez' }],
      tagJoin: [{ parentEntity: 'person', TagId: 7 }],
      applicant: [
        {
          ssn: '123-45-6789',
          priorAddressCity: 'Española',
          info: [
            {
              ProductId: 201,
              isSubmitted: 0,
              infoItem: [{ AttributeId: 'attr-3', valueText: 'Pre-employment' }],
            },
          ],
        },
      ],
      staff: [{ dateOfHire: '2024-01-15', salary: 4200.5, SalaryPeriodId: 3, jobTitle: 'Driver' }],
      user: [
        {
          email: 'zoe@users.example',
          RoleId: 1,
          isInvited: true,
          UserOverride: [{ EntityId: 3, get: 'all' }],
        },
      ],
    });
    expect(res.status).toBe(200);
    const body = asObj(res.body);
    return { ...body, id: num(body.id) };
  }

  it('creates the person with linked Applicant, Staff and User records, visible through their reads', async () => {
    const s = sim();
    const maxPerson = Number(s.tables.Person.maxId());
    const person = await createFamily(s);
    expect(person.id).toBeGreaterThan(maxPerson);
    expect(person).toMatchObject({ nameFirst: 'Zoë', nameLast: 'Núñez', email: 'zoe.nunez@example.com' });
    // Every nested record comes back with an id, alias and tagJoin included.
    for (const key of ['alias', 'tagJoin', 'applicant', 'staff', 'user']) {
      expect(asList(person[key]), key).toHaveLength(1);
      expect(asList(person[key])[0]?.id, key).toEqual(expect.any(Number));
    }
    expect(s.tables.Person.get(person.id)).toMatchObject({
      nameFirst: 'Zoë',
      alias: [{ AliasTypeId: 1, nameFirst: 'Zoe', PersonId: person.id }],
      tagJoin: [{ parentEntity: 'person', TagId: 7 }],
    });

    const applicantId = num(asList(person.applicant)[0]?.id);
    const applicant = asObj((await call(s, 'GET', pathOf('getApplicant', applicantId))).body);
    expect(applicant).toMatchObject({
      id: applicantId,
      PersonId: person.id,
      ssn: '123-45-6789',
      priorAddressCity: 'Española',
    });
    const info = asList(applicant.info);
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ ProductId: 201, PersonId: person.id });
    expect(asList(info[0]?.infoItem)[0]).toMatchObject({ AttributeId: 'attr-3', InfoId: info[0]?.id });

    const staffId = num(asList(person.staff)[0]?.id);
    const staff = await call(s, 'GET', pathOf('getStaff', staffId));
    expect(staff.body).toEqual({
      id: staffId,
      PersonId: person.id,
      dateOfHire: '2024-01-15',
      salary: 4200.5,
      SalaryPeriodId: 3,
      jobTitle: 'Driver',
    });

    const userId = num(asList(person.user)[0]?.id);
    const users = asList((await call(s, 'GET', pathOf('listUser'))).body);
    const user = users.find((u) => u.id === userId);
    expect(user).toMatchObject({
      PersonId: person.id,
      email: 'zoe@users.example',
      nameFirst: 'Zoë',
      nameLast: 'Núñez',
      nameFirstLast: 'Zoë Núñez',
      isInvited: true,
      isSuspended: false,
      status: 'invited',
      RoleId: 1,
    });
    expect(users).toEqual(s.truth().User);
  });

  it('rejects a person without names or with an unknown org; nothing is created', async () => {
    const s = sim();
    const size = s.tables.Person.size;
    const org = s.truth().Org[0];
    await expect400(
      s,
      'POST',
      pathOf('createPerson'),
      { nameFirst: 'A', OrgId: org?.id },
      'nameLast: required',
    );
    await expect400(
      s,
      'POST',
      pathOf('createPerson'),
      { nameFirst: 'A', nameLast: 'B', OrgId: 999 },
      'org 999 does not exist',
    );
    expect(s.tables.Person.size).toBe(size);
  });

  it('PATCH changes the given fields and adds nested records', async () => {
    const s = sim();
    const p = s.truth().Person[20];
    if (p === undefined) throw new Error('no person');
    const res = await call(s, 'PATCH', pathOf('updatePerson', p.id), {
      city: 'Coeur d’Alene',
      state: 'ID',
      phone: null,
      staff: [{ dateOfHire: '2025-03-01', salary: 61000, SalaryPeriodId: 5 }],
    });
    expect(res.status).toBe(200);
    const body = asObj(res.body);
    expect(body).toMatchObject({
      id: p.id,
      nameFirst: p.nameFirst,
      OrgId: p.OrgId,
      city: 'Coeur d’Alene',
      phone: null,
    });
    const { staff: _staff, ...scalars } = body;
    expect(scalars).toEqual({ ...p, city: 'Coeur d’Alene', state: 'ID', phone: null });
    expect(s.tables.Person.get(p.id)).toMatchObject({ city: 'Coeur d’Alene', state: 'ID', phone: null });
    const staffId = num(asList(body.staff)[0]?.id);
    const staff = await call(s, 'GET', pathOf('getStaff', staffId));
    expect(staff.body).toEqual({
      id: staffId,
      PersonId: p.id,
      dateOfHire: '2025-03-01',
      salary: 61000,
      SalaryPeriodId: 5,
    });
    // An empty PATCH changes nothing.
    const same = s.tables.Person.get(p.id);
    const empty = await call(s, 'PATCH', pathOf('updatePerson', p.id), {});
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(JSON.parse(JSON.stringify(same)));
  });

  it('DELETE removes the person and its applicant and staff records; users are unlinked; then 404', async () => {
    const s = sim();
    const person = await createFamily(s);
    const applicantId = num(asList(person.applicant)[0]?.id);
    const staffId = num(asList(person.staff)[0]?.id);
    const userId = num(asList(person.user)[0]?.id);
    // A seeded staff record of another person is untouched.
    const other = s.truth().Staff.find((r) => r.PersonId !== person.id);

    const del = await call(s, 'DELETE', pathOf('deletePerson', person.id));
    expect(del.status).toBe(204);
    expect(del.body).toBeUndefined();
    expect(s.tables.Person.get(person.id)).toBeUndefined();
    expect((await call(s, 'GET', pathOf('getApplicant', applicantId))).status).toBe(404);
    expect((await call(s, 'GET', pathOf('getStaff', staffId))).status).toBe(404);
    const users = asList((await call(s, 'GET', pathOf('listUser'))).body);
    expect(users.find((u) => u.id === userId)).toMatchObject({ PersonId: null, email: 'zoe@users.example' });
    expect((await call(s, 'GET', pathOf('getStaff', other?.id))).body).toEqual(other);

    const again = await call(s, 'DELETE', pathOf('deletePerson', person.id));
    expect(again.status).toBe(404);
    expect((await call(s, 'PATCH', pathOf('updatePerson', person.id), { city: 'Tampa' })).status).toBe(404);
    expect(s.stats.writesApplied.deletePerson).toBe(1);
  });

  it('ids of deleted records are never given again', async () => {
    const s = sim();
    const org = s.truth().Org[1];
    const body = {
      nameFirst: 'Noël',
      nameLast: 'Peña',
      OrgId: org?.id,
      applicant: [{ ssn: '111-22-3333' }],
      staff: [{ salary: 30 }],
    };
    const first = asObj((await call(s, 'POST', pathOf('createPerson'), body)).body);
    expect((await call(s, 'DELETE', pathOf('deletePerson', num(first.id)))).status).toBe(204);
    const second = asObj((await call(s, 'POST', pathOf('createPerson'), body)).body);
    expect(num(second.id)).toBeGreaterThan(num(first.id));
    for (const key of ['applicant', 'staff']) {
      expect(num(asList(second[key])[0]?.id), key).toBeGreaterThan(num(asList(first[key])[0]?.id));
    }
    // The first person's staff id answers 404, not the second person's record.
    expect((await call(s, 'GET', pathOf('getStaff', num(asList(first.staff)[0]?.id)))).status).toBe(404);
  });

  it('DELETE of a seeded person removes exactly its applicants and staff', async () => {
    const s = sim();
    const truth = s.truth();
    const p = truth.Person.find(
      (x) => truth.Applicant.some((a) => a.PersonId === x.id) && truth.Staff.some((r) => r.PersonId === x.id),
    );
    if (p === undefined) throw new Error('no person with applicant and staff');
    expect((await call(s, 'DELETE', pathOf('deletePerson', p.id))).status).toBe(204);
    const after = s.truth();
    expect(after.Applicant).toEqual(truth.Applicant.filter((a) => a.PersonId !== p.id));
    expect(after.Staff).toEqual(truth.Staff.filter((r) => r.PersonId !== p.id));
    expect(after.User).toEqual(truth.User.map((u) => (u.PersonId === p.id ? { ...u, PersonId: null } : u)));
    expect(after.Person).toEqual(truth.Person.filter((x) => x.id !== p.id));
  });
});

describe('applicant PATCH (PATCH /vLatest/action/core/applicant/{id})', () => {
  const sim = withSim({ scale: 0.1 });

  it('changes the given fields and adds info[] with infoItem[], visible through GET applicant', async () => {
    const s = sim();
    const a = s.truth().Applicant.find((r) => Array.isArray(r.info) && r.info.length >= 1);
    if (a === undefined) throw new Error('no applicant with info');
    const oldInfo = asList(a.info);
    const res = await call(s, 'PATCH', pathOf('updateApplicant', a.id), {
      priorAddressCity: 'Denver',
      priorAddressYearEnd: '2021',
      info: [
        {
          descrip: 'Random selection',
          ProductId: 203,
          OrderItemId: 500001,
          isSubmitted: 1,
          infoItem: [
            { AttributeId: 'attr-9', valueText: 'Random', FeatureSetId: 4 },
            { AttributeId: 'attr-10', valueNumber: 2.5 },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    const got = asObj((await call(s, 'GET', pathOf('getApplicant', a.id))).body);
    expect(got).toEqual(JSON.parse(JSON.stringify(s.tables.Applicant.get(a.id))));
    const { info, ...scalars } = got;
    const { info: _old, ...oldScalars } = a;
    expect(scalars).toEqual({ ...oldScalars, priorAddressCity: 'Denver', priorAddressYearEnd: '2021' });
    const list = asList(info);
    expect(list).toHaveLength(oldInfo.length + 1);
    expect(list.slice(0, oldInfo.length)).toEqual(oldInfo);
    const added = list.at(-1);
    // Kept as the Applicant read declares an info record: the request's own `descrip` and
    // `OrderItemId` are no part of it.
    expect(added).toEqual({
      id: expect.any(Number),
      ProductId: 203,
      isSubmitted: 1,
      PersonId: a.PersonId,
      infoItem: expect.any(Array),
    });
    const items = asList(added?.infoItem);
    expect(items).toEqual([
      {
        id: expect.any(Number),
        InfoId: added?.id,
        AttributeId: 'attr-9',
        valueText: 'Random',
        FeatureSetId: 4,
      },
      { id: expect.any(Number), InfoId: added?.id, AttributeId: 'attr-10', valueNumber: 2.5 },
    ]);
    expect(items[0]?.id).not.toBe(items[1]?.id);
  });

  it('rejects an unknown applicant (404) and a bad body (400)', async () => {
    const s = sim();
    const a = s.truth().Applicant[1];
    expect((await call(s, 'PATCH', pathOf('updateApplicant', 1), { ssn: '1' })).status).toBe(404);
    await expect400(s, 'PATCH', pathOf('updateApplicant', a?.id), { info: {} }, 'info: expected an array');
    expect(s.tables.Applicant.get(Number(a?.id))).toEqual(a);
  });
});

describe('org create (POST /v2/action/core/org)', () => {
  const sim = withSim({ scale: 0.1 });

  it('rejects an empty or missing name or zip (400); nothing is created', async () => {
    const s = sim();
    const size = s.tables.Org.size;
    const path = pathOf('createOrg');
    await expect400(s, 'POST', path, { name: '', zip: '75201' }, 'name: must be at least 1 character(s)');
    await expect400(s, 'POST', path, { name: 'Acme', zip: '' }, 'zip: must be at least 1 character(s)');
    await expect400(s, 'POST', path, { zip: '75201' }, 'name: required');
    await expect400(s, 'POST', path, { name: 'Acme' }, 'zip: required');
    await expect400(s, 'POST', path, { name: 'Acme', zip: 75201 }, 'zip: expected a string');
    expect(s.tables.Org.size).toBe(size);
  });

  it('creates the org and its hsVendor[] records, visible through the hsvendor query', async () => {
    const s = sim();
    const maxOrg = Number(s.tables.Org.maxId());
    const res = await call(s, 'POST', pathOf('createOrg'), {
      name: "L'Étoile Transport",
      zip: '1',
      city: 'Española',
      rpMinDrug: 50,
      hsVendor: [{ descrip: 'Clínica Norte', doesDna: true, lat: 35.99, lng: -106.08 }, { walkinDrug: true }],
      location: [{ mondayOpen: '08:00', twentyFourHour: false }],
    });
    expect(res.status).toBe(200);
    const org = asObj(res.body);
    const orgId = num(org.id);
    expect(orgId).toBeGreaterThan(maxOrg);
    expect(org).toMatchObject({ name: "L'Étoile Transport", zip: '1', city: 'Española', rpMinDrug: 50 });
    const vendors = asList(org.hsVendor);
    expect(vendors).toHaveLength(2);

    const got = await query(s, 'queryHsVendor', { OrgId: String(orgId) });
    expect(sortedIds(got)).toEqual(sortedIds(vendors));
    const byId = new Map(got.map((v) => [v.id, v]));
    expect(byId.get(vendors[0]?.id)).toEqual({
      id: vendors[0]?.id,
      name: 'Clínica Norte',
      OrgId: orgId,
      descrip: 'Clínica Norte',
      doesDna: true,
      lat: 35.99,
      lng: -106.08,
    });
    expect(byId.get(vendors[1]?.id)).toEqual({
      id: vendors[1]?.id,
      name: "L'Étoile Transport",
      OrgId: orgId,
      walkinDrug: true,
    });
    // And by name, with the query's own filters.
    const named = await query(s, 'queryHsVendor', {
      advancedFilter: {
        linkOperator: 'AND',
        items: [{ columnField: 'name', operatorValue: 'startsWith', value: 'clínica' }],
      },
      return: ['OrgId'],
    });
    expect(named).toEqual([{ id: vendors[0]?.id, OrgId: orgId }]);
    expect(s.tables.Org.get(orgId)).toMatchObject({
      name: "L'Étoile Transport",
      location: [{ mondayOpen: '08:00' }],
    });
  });
});
