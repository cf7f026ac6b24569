import { describe, expect, it } from 'vitest';
import {
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  OhsClient,
  UnauthorizedError,
} from '../../src/api/index.js';
import { and, where } from '../../src/schema/index.js';
import type { SimRecord } from '../../src/sim/index.js';
import { clientFor, clientOptions, idsOf } from '../helpers/client.js';
import { READ_TOKEN, withSim } from '../helpers/sim.js';

const sim = withSim({ scale: 0.05, pageCap: 0 });

describe('typed client: every operation of the interface', () => {
  it('queries each query resource and gets exactly the records the filter selects', async () => {
    const client = clientFor(sim());
    try {
      const truth = sim().truth();
      const roles = await client.queryRole({ sortBy: 'id', sortDirection: 'asc', pageSize: 100 });
      expect(roles.records).toEqual(truth.Role);
      const tenants = await client.queryTenant({ filters: { isHouse: 'true' }, pageSize: 1000 });
      expect(idsOf(tenants.records)).toEqual(idsOf(truth.Tenant.filter((t) => t.isHouse === true)));
      const orgId = truth.HsVendor[0]?.OrgId as number;
      const vendors = await client.queryHsVendor({
        advancedFilter: and(where('OrgId', 'equals', orgId)),
        pageSize: 1000,
      });
      expect(idsOf(vendors.records)).toEqual(idsOf(truth.HsVendor.filter((v) => v.OrgId === orgId)));
      const items = await client.queryOrderItem({
        advancedFilter: and(where('isNotModifiable', 'isFalse'), where('c_productName', 'contains', 'drug')),
        return: ['OrgId'],
        pageSize: 5000,
      });
      const expected = truth.OrderItem.filter(
        (r) => r.isNotModifiable === false && String(r.c_productName).toLowerCase().includes('drug'),
      );
      expect(idsOf(items.records)).toEqual(idsOf(expected));
      expect(Object.keys(items.records[0] ?? {}).sort()).toEqual(['OrgId', 'id']);
    } finally {
      await client.close();
    }
  });

  it('reads Applicant, Invoice and Staff by id with every declared field, and lists OrgMonth and User', async () => {
    const client = clientFor(sim());
    try {
      const truth = sim().truth();
      const applicant = truth.Applicant[3];
      const invoice = truth.Invoice[7];
      const staff = truth.Staff[2];
      expect(await client.getApplicant(applicant?.id as number, 'all')).toEqual(applicant);
      // Read by id, a record carries the fields its resource declares alone: not the sandbox's
      // undeclared `amount`, which a list or a query would carry.
      const { amount, ...declared } = invoice as SimRecord;
      expect(amount).toEqual(expect.any(Number));
      expect(await client.getInvoice(invoice?.id as string, 'all')).toEqual(declared);
      expect(await client.getInvoice(invoice?.id as string)).toEqual(declared);
      expect(await client.getStaff(staff?.id as number, 'all')).toEqual(staff);
      const slim = await client.getInvoice(invoice?.id as string, { fields: ['balance'] });
      expect(slim).toEqual({ id: invoice?.id, balance: invoice?.balance });
      expect((await client.listOrgMonth('all')).records).toEqual(truth.OrgMonth);
      expect((await client.listUser()).records).toEqual(truth.User);
    } finally {
      await client.close();
    }
  });

  it('creates a payment that lowers the balance, and a person, org; updates and deletes', async () => {
    const client = clientFor(sim());
    try {
      const invoice = sim()
        .truth()
        .Invoice.find((i) => Number(i.balance) > 10);
      const before = Number(invoice?.balance);
      const payment = await client.createPayment({
        InvoiceId: String(invoice?.id),
        amountToPay: 10.5,
        PersonId: 70001,
      });
      expect(payment.id).toEqual(expect.any(Number));
      const after = await client.getInvoice(String(invoice?.id));
      expect(after.balance).toBeCloseTo(before - 10.5, 2);

      const orgId = sim().truth().Org[0]?.id as number;
      const person = await client.createPerson({
        nameFirst: 'Zoë',
        nameLast: "O'Brien",
        OrgId: orgId,
        staff: [{ salary: 52000, SalaryPeriodId: 5, dateOfHire: '2026-01-05' }],
        applicant: [{ aliasNameFirst: 'Zo' }],
      });
      const personId = person.id as number;
      const staffId = person.staff?.[0]?.id;
      expect(await client.getStaff(staffId as number)).toMatchObject({ PersonId: personId, salary: 52000 });
      const applicantId = person.applicant?.[0]?.id as number;
      const patched = await client.updateApplicant(applicantId, { priorAddressCity: 'Española' });
      expect(patched.priorAddressCity).toBe('Española');
      expect((await client.getApplicant(applicantId)).priorAddressCity).toBe('Española');
      const renamed = await client.updatePerson(personId, { city: 'Coeur d’Alene' });
      expect(renamed.city).toBe('Coeur d’Alene');
      expect(await client.deletePerson(personId)).toBeUndefined(); // 204
      await expect(client.getApplicant(applicantId)).rejects.toBeInstanceOf(NotFoundError);

      const org = await client.createOrg({
        name: 'Núñez Freight',
        zip: '75201',
        hsVendor: [{ descrip: 'Núñez Clinic' }],
      });
      const vendors = await client.queryHsVendor({ filters: { OrgId: String(org.id) } });
      expect(vendors.records.map((v) => v.name)).toEqual(['Núñez Clinic']);
    } finally {
      await client.close();
    }
  });

  it('accepts DELETE answered 200 with the deleted record', async () => {
    sim().configure({ deleteAnswer: '200' });
    const client = clientFor(sim());
    try {
      const victim = sim().truth().Person[5];
      const deleted = await client.deletePerson(victim?.id as number);
      expect(deleted?.id).toBe(victim?.id);
    } finally {
      sim().configure({ deleteAnswer: '204' });
      await client.close();
    }
  });

  it('maps statuses to error classes with stable codes, the service text withheld', async () => {
    const client = clientFor(sim());
    try {
      const bad = await client
        .queryOrderItem({
          advancedFilter: { linkOperator: 'AND', items: [where('nope' as 'id', 'equals', 1)] },
        })
        .catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(InvalidRequestError);
      expect((bad as InvalidRequestError).code).toBe('INVALID_REQUEST');
      expect((bad as InvalidRequestError).status).toBe(400);
      // The service's text withheld: its status, its code and the request's fields it names kept.
      expect((bad as InvalidRequestError).message).toMatch(
        /^refused: status 400, service code INVALID_REQUEST, names .*\bnope; its text withheld/,
      );
      expect((bad as InvalidRequestError).message).toContain('POST /vLatest/query/core/orderitem');
      expect((bad as InvalidRequestError).detail).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
      expect((bad as InvalidRequestError).detail).toHaveProperty('fields', expect.arrayContaining(['nope']));
      expect((bad as InvalidRequestError).serviceText).toContain("unknown field 'nope'");

      const missing = await client.getStaff(1).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
      expect((missing as NotFoundError).code).toBe('NOT_FOUND');
      const badPayment = await client
        .createPayment({ InvoiceId: '', amountToPay: 5 })
        .catch((e: unknown) => e);
      expect((badPayment as InvalidRequestError).code).toBe('INVALID_REQUEST');
    } finally {
      await client.close();
    }
    const reader = clientFor(sim(), { token: READ_TOKEN });
    try {
      const denied = await reader.createOrg({ name: 'X', zip: '1' }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(ForbiddenError);
      expect((denied as ForbiddenError).code).toBe('FORBIDDEN');
      expect((await reader.queryRole({ pageSize: 1 })).records).toHaveLength(1);
    } finally {
      await reader.close();
    }
  });

  it('stops on 401 with one clear error, and later calls fail at once without a request', async () => {
    const client = new OhsClient(clientOptions({ baseUrl: sim().url, token: 'expired', retryBaseMs: 1 }));
    try {
      const err = await client.queryRole().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnauthorizedError);
      expect((err as UnauthorizedError).code).toBe('UNAUTHORIZED');
      expect((err as UnauthorizedError).message).toMatch(/refused the token \(401\).*OHS_TOKEN/);
      expect((err as UnauthorizedError).message).not.toContain('expired:');
      const sent = client.metrics().requests;
      await expect(client.listUser()).rejects.toBeInstanceOf(UnauthorizedError);
      expect(client.metrics().requests).toBe(sent);
    } finally {
      await client.close();
    }
  });
});
