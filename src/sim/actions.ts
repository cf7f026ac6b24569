import { type ObjectSpec, records, requests } from '../schema/index.js';
import { badRequest, notFound } from './http-error.js';
import type { SimOptions } from './options.js';
import type { SimRecord, SimTables } from './store.js';
import { validateBody } from './validate.js';

/**
 * The write operations of the sandbox. The interface leaves their responses open; the sandbox's
 * reading (docs/sandbox.md):
 * - payment: needs `InvoiceId` of an existing invoice and `amountToPay` > 0; lowers the balance
 *   (an overpayment leaves a credit, so a payment made twice shows); answers the Payment with its
 *   new `id` and the invoice's `balance` after it.
 * - person create: needs `nameFirst`, `nameLast` and the `OrgId` of a known org; nested `applicant[]`,
 *   `staff[]` and `user[]` become Applicant, Staff and User records linked by PersonId, the other
 *   arrays stay on the person; answers the person with every nested record's `id`.
 * - person PATCH: changes the given fields; nested arrays add records as on create.
 * - person DELETE: removes the person, its applicant and staff records; users are unlinked.
 * - applicant PATCH: changes the given fields; `info[]` adds info records (and their items).
 * - org create: needs `name` and `zip`; nested `hsVendor[]` become HsVendor records.
 */
export class Actions {
  private nextPaymentId = 1;
  private nextNestedId = 10_000_001;

  constructor(
    private readonly t: SimTables,
    private readonly options: () => SimOptions,
  ) {}

  private validate(
    spec: ObjectSpec,
    body: unknown,
    required: readonly string[] = [],
  ): Record<string, unknown> {
    return validateBody(spec, body, this.options().strictBodies, required);
  }

  private nextId(table: keyof SimTables): number {
    const max = this.t[table].maxId();
    return (typeof max === 'number' ? max : Number(max ?? 0)) + 1;
  }

  createPayment(body: unknown): SimRecord {
    const b = this.validate(requests.PaymentCreate, body, ['amountToPay', 'InvoiceId']);
    const amount = b.amountToPay as number;
    if (!(amount > 0)) throw badRequest('amountToPay: must be greater than 0');
    const invoice = this.t.Invoice.get(b.InvoiceId as string);
    if (invoice === undefined) throw badRequest(`InvoiceId: invoice ${String(b.InvoiceId)} does not exist`);
    const balance = Math.round((Number(invoice.balance ?? 0) - amount) * 100) / 100;
    this.t.Invoice.update(invoice.id, { balance });
    const payment: SimRecord = { ...b, id: this.nextPaymentId++, balance };
    this.t.Payment.insert(payment);
    return payment;
  }

  createPerson(body: unknown): SimRecord {
    const b = this.validate(requests.PersonCreate, body, ['nameFirst', 'nameLast', 'OrgId']);
    if (this.t.Org.get(b.OrgId as number) === undefined)
      throw badRequest(`OrgId: org ${String(b.OrgId)} does not exist`);
    const id = this.nextId('Person');
    const person: SimRecord = { id };
    this.t.Person.insert(person);
    this.applyPerson(person, b);
    return person;
  }

  updatePerson(id: number, body: unknown): SimRecord {
    const person = this.t.Person.get(id);
    if (person === undefined) throw notFound(`person ${id} not found`);
    const b = this.validate(requests.PersonUpdate, body);
    this.applyPerson(person, b);
    return person;
  }

  private applyPerson(person: SimRecord, b: Record<string, unknown>): void {
    const { alias, applicant, author, staff, tagJoin, user, ...scalars } = b;
    this.t.Person.update(person.id, scalars);
    for (const [key, items] of Object.entries({ alias, author, tagJoin })) {
      if (!Array.isArray(items)) continue;
      const stored = Array.isArray(person[key]) ? (person[key] as SimRecord[]) : [];
      for (const item of items as Record<string, unknown>[]) {
        stored.push({
          ...item,
          id: this.nextNestedId++,
          ...(key === 'tagJoin' ? {} : { PersonId: person.id }),
        });
      }
      person[key] = stored;
    }
    const created = (key: string, records: SimRecord[]) => {
      const stored = Array.isArray(person[key]) ? (person[key] as SimRecord[]) : [];
      person[key] = [...stored, ...records];
    };
    if (Array.isArray(applicant)) {
      created(
        'applicant',
        (applicant as Record<string, unknown>[]).map((a) =>
          this.insertApplicant({ ...a, PersonId: person.id }),
        ),
      );
    }
    if (Array.isArray(staff)) {
      created(
        'staff',
        (staff as Record<string, unknown>[]).map((s) => {
          const rec: SimRecord = { ...s, id: this.nextId('Staff'), PersonId: person.id };
          this.t.Staff.insert(rec);
          return rec;
        }),
      );
    }
    if (Array.isArray(user)) {
      created(
        'user',
        (user as Record<string, unknown>[]).map((u) => {
          const nameFirst = (u.nameFirst as string | undefined) ?? (person.nameFirst as string | undefined);
          const nameLast = (u.nameLast as string | undefined) ?? (person.nameLast as string | undefined);
          const rec: SimRecord = {
            ...u,
            id: this.nextId('User'),
            PersonId: person.id,
            nameFirst,
            nameLast,
            nameFirstLast: [nameFirst, nameLast].filter(Boolean).join(' '),
            isInvited: u.isInvited === true,
            isSuspended: u.isSuspended === true,
            status: u.isSuspended === true ? 'suspended' : u.isInvited === true ? 'invited' : 'active',
          };
          this.t.User.insert(rec);
          return rec;
        }),
      );
    }
  }

  private insertApplicant(fields: Record<string, unknown>): SimRecord {
    const { info, ...scalars } = fields;
    const rec: SimRecord = { ...scalars, id: this.nextId('Applicant'), info: [] };
    this.addInfo(rec, info);
    this.t.Applicant.insert(rec);
    return rec;
  }

  private addInfo(applicant: SimRecord, info: unknown): void {
    if (!Array.isArray(info)) return;
    const stored = Array.isArray(applicant.info) ? (applicant.info as SimRecord[]) : [];
    for (const i of info as Record<string, unknown>[]) {
      const infoId = this.nextNestedId++;
      const items = Array.isArray(i.infoItem) ? (i.infoItem as Record<string, unknown>[]) : [];
      // Kept as the Applicant read declares its info records and their items: a request's own
      // fields (`descrip`, `OrderItemId`) are no part of the record the service answers.
      stored.push({
        ...declared(records.Info, i),
        id: infoId,
        PersonId: i.PersonId ?? applicant.PersonId,
        infoItem: items.map((it) => ({
          ...declared(records.InfoItem, it),
          id: this.nextNestedId++,
          InfoId: infoId,
        })),
      });
    }
    applicant.info = stored;
  }

  deletePerson(id: number): SimRecord {
    const person = this.t.Person.delete(id);
    if (person === undefined) throw notFound(`person ${id} not found`);
    for (const a of this.t.Applicant.all().filter((r) => r.PersonId === id)) this.t.Applicant.delete(a.id);
    for (const s of this.t.Staff.all().filter((r) => r.PersonId === id)) this.t.Staff.delete(s.id);
    for (const u of this.t.User.all().filter((r) => r.PersonId === id))
      this.t.User.update(u.id, { PersonId: null });
    return person;
  }

  updateApplicant(id: number, body: unknown): SimRecord {
    const applicant = this.t.Applicant.get(id);
    if (applicant === undefined) throw notFound(`applicant ${id} not found`);
    const { info, ...scalars } = this.validate(requests.ApplicantUpdate, body);
    this.t.Applicant.update(id, scalars);
    this.addInfo(applicant, info);
    return applicant;
  }

  createOrg(body: unknown): SimRecord {
    const b = this.validate(requests.OrgCreate, body, ['name', 'zip']);
    const { hsVendor, ...rest } = b;
    const org: SimRecord = { ...rest, id: this.nextId('Org') };
    this.t.Org.insert(org);
    if (Array.isArray(hsVendor)) {
      org.hsVendor = (hsVendor as Record<string, unknown>[]).map((v) => {
        const rec: SimRecord = {
          ...v,
          id: this.nextId('HsVendor'),
          name: v.descrip ?? org.name,
          OrgId: org.id,
        };
        this.t.HsVendor.insert(rec);
        return rec;
      });
    }
    return org;
  }
}

/** The fields of `record` that `spec` declares (its arrays left out). */
function declared(spec: ObjectSpec, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (Object.hasOwn(spec.fields, k)) out[k] = v;
  return out;
}
