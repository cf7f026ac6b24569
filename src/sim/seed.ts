import { hash32, Rng } from './rng.js';
import { emptyTables, type SimRecord, type SimStatus, type SimTables, simStatuses } from './store.js';

/**
 * The sandbox's data set: deterministic for a seed, scale and anchor date, shaped like a real
 * tenant of the service. Scale 1 is about 1,000 orgs, 30,000 order items over two years, 3,000
 * invoices, 24 months of OrgMonth per org. Ids have gaps; optional fields are sometimes null and
 * sometimes absent; names carry accents and apostrophes.
 */
export interface SeedParams {
  seed: number;
  scale: number;
  /** YYYY-MM-DD: the data set's "today". */
  anchorDate: string;
}

const DAY = 86_400_000;
/** Chances that an invoice is cancelled: one paid in full, one with a balance. */
const CANCEL_PAID = 0.01;
const CANCEL_UNPAID = 0.1;

const firstNames = [
  'José',
  'Zoë',
  'Renée',
  'Björn',
  'Siobhán',
  'François',
  'Łukasz',
  'Chloé',
  'Maria',
  'James',
  'Robert',
  'Patricia',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Carlos',
  'Ana',
  'Nguyễn',
  'Aoife',
  'Günter',
  'Jean-Luc',
  'Mary Ann',
  "D'Andre",
  'Ángel',
  'Søren',
  'Noël',
];
const lastNames = [
  'García',
  'Núñez',
  'Smith',
  'Johnson',
  "O'Brien",
  "D'Angelo",
  'Müller',
  'Nguyen',
  'Kowalski',
  'Brown',
  'Williams',
  'Jones',
  'Davis',
  'Miller',
  'Wilson',
  'Moore',
  'Taylor',
  'Anderson',
  'Thomas',
  'Jackson',
  'White',
  'Harris',
  'Martin',
  'Thompson',
  'Peña',
  'López',
  'Ørsted',
  "O'Connor",
  'MacDonald',
  'St. John',
  'Van der Berg',
  'Schäfer',
  'Dubois',
  'Rossi',
  'Yamamoto',
  'Kim',
];
const orgSuffixes = [
  'Trucking LLC',
  'Logistics Inc.',
  'Freight Co.',
  'Hauling',
  'Transport Services',
  'Construction',
  'Aviation',
  'Rail Services',
  'Pipeline Co.',
  'Marine',
  '& Sons Moving',
  'Express',
  'Paving',
  'Home Health',
  'Staffing Group',
  'Bus Lines',
];
const cities = [
  ['Dallas', 'TX', '75201'],
  ['Houston', 'TX', '77002'],
  ['Phoenix', 'AZ', '85004'],
  ['Atlanta', 'GA', '30303'],
  ['Chicago', 'IL', '60601'],
  ['Denver', 'CO', '80202'],
  ['Memphis', 'TN', '38103'],
  ['Columbus', 'OH', '43215'],
  ['Sacramento', 'CA', '95814'],
  ['Coeur d’Alene', 'ID', '83814'],
  ['Española', 'NM', '87532'],
  ['Tampa', 'FL', '33602'],
] as const;
export const simProducts = [
  { id: 201, name: 'DOT 5-Panel Urine Drug Test', category: 'Drug Test' },
  { id: 202, name: 'Non-DOT 10-Panel Urine Drug Test', category: 'Drug Test' },
  { id: 203, name: 'DOT Breath Alcohol Test', category: 'Alcohol' },
  { id: 204, name: 'Hair Follicle 5-Panel', category: 'Drug Test' },
  { id: 205, name: 'DNA Paternity Test', category: 'DNA' },
  { id: 206, name: 'DOT Physical', category: 'Occupational Health' },
  { id: 207, name: 'County Criminal Background Check', category: 'Background' },
  { id: 208, name: 'TB Skin Test', category: 'Occupational Health' },
  { id: 209, name: 'Audiogram', category: 'Occupational Health' },
] as const;
const roleNames = [
  'Administrator',
  'Org Admin',
  'DER',
  'Employee',
  'Applicant',
  'Collector',
  'MRO',
  'Lab Liaison',
  'Billing',
  'Read Only',
  'Support',
  'C/TPA Manager',
];
const vendorBrands = [
  'Concentra',
  'LabCorp PSC',
  'Quest Diagnostics',
  'Any Lab Test Now',
  'CareNow',
  'Fastest Labs',
];

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function isoSecond(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

function phone(rng: Rng): string {
  return `(${rng.int(201, 989)}) ${rng.int(200, 999)}-${String(rng.int(0, 9999)).padStart(4, '0')}`;
}

function asciiSlug(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '')
    .toLowerCase();
}

/** Ids that rise with gaps: mostly +1, sometimes a hole of up to `maxGap`. */
class IdSequence {
  constructor(
    private next: number,
    private readonly rng: Rng,
    private readonly maxGap = 12,
  ) {}
  take(): number {
    const id = this.next;
    this.next += this.rng.chance(0.15) ? this.rng.int(2, this.maxGap) : 1;
    return id;
  }
}

export interface SeedResult {
  tables: SimTables;
  statuses: readonly SimStatus[];
}

export function seedData(params: SeedParams): SeedResult {
  const rng = new Rng(params.seed);
  const t = emptyTables();
  const scaled = (n: number) => Math.max(1, Math.round(n * params.scale));
  const anchor = Date.parse(`${params.anchorDate}T00:00:00Z`);
  const start = anchor - 730 * DAY;

  // Roles: a fixed, small list (not scaled), ids with gaps.
  let roleId = 1;
  for (const name of roleNames) {
    t.Role.insert({ id: roleId, name });
    roleId += rng.chance(0.3) ? 2 : 1;
  }
  const roleIds = t.Role.all().map((r) => r.id as number);

  // Orgs: internal records (no Org read exists), used for names, rates and links.
  const orgIds = new IdSequence(1001, rng, 6);
  const orgCount = scaled(1000);
  const orgs: SimRecord[] = [];
  const specialNames = ['@Home Health Services', '+1 Logistics', "Peña & O'Brien Hauling, Inc."];
  for (let i = 0; i < orgCount; i++) {
    const [city, state, zip] = rng.pick(cities);
    const dot = rng.chance(0.8);
    const agency = dot ? rng.pick(['FMCSA', 'FMCSA', 'FMCSA', 'FAA', 'FRA', 'PHMSA']) : 'NON_DOT';
    const rates: Record<string, [number, number]> = {
      FMCSA: [50, 10],
      FAA: [25, 10],
      FRA: [25, 10],
      PHMSA: [50, 0],
      NON_DOT: [rng.pick([10, 25, 50]), rng.pick([0, 10])],
    };
    const [rpMinDrug, rpMinAlc] = rates[agency] ?? [50, 10];
    const name = specialNames[i] ?? `${rng.pick(lastNames)} ${rng.pick(orgSuffixes)}`;
    const org: SimRecord = {
      id: orgIds.take(),
      name,
      zip,
      city,
      state,
      cityState: `${city}, ${state}`,
      phone: phone(rng),
      email: `office@${asciiSlug(name) || 'org'}.example`,
      isHouse: rng.chance(0.05),
      rpMinDrug,
      rpMinAlc,
      rpDotRegistrationNumber: dot ? String(rng.int(100000, 3999999)) : '',
      agency,
    };
    if (i > 20 && rng.chance(0.04)) org['Parent~OrgId'] = rng.pick(orgs).id;
    orgs.push(org);
    t.Org.insert(org);
  }
  const orgName = (orgId: number) => String(t.Org.get(orgId)?.name ?? '');

  // Persons: internal records (Person has no read), people of the orgs.
  const personIds = new IdSequence(70001, rng, 8);
  const persons: SimRecord[] = [];
  for (let i = 0, n = scaled(8000); i < n; i++) {
    const org = rng.pick(orgs);
    const nameFirst = rng.pick(firstNames);
    const nameLast = rng.pick(lastNames);
    const person: SimRecord = {
      id: personIds.take(),
      OrgId: org.id,
      nameFirst,
      nameLast,
      zip: org.zip,
      city: org.city,
      state: org.state,
      email: `${asciiSlug(nameFirst)}.${asciiSlug(nameLast)}${i}@mail.example`,
      dateOfBirth: isoDate(Date.UTC(rng.int(1955, 2004), rng.int(0, 11), rng.int(1, 28))),
      phone: phone(rng),
      RandomPoolStatusId: rng.pick([1, 1, 1, 2, 3]),
    };
    persons.push(person);
    t.Person.insert(person);
  }

  // Users: most linked to a person, some not (PersonId null).
  const userIds = new IdSequence(1001, rng, 5);
  const users: SimRecord[] = [];
  for (let i = 0, n = scaled(2500); i < n; i++) {
    const person = rng.pick(persons);
    const linked = rng.chance(0.9);
    const nameFirst = linked ? String(person.nameFirst) : rng.pick(firstNames);
    const nameLast = linked ? String(person.nameLast) : rng.pick(lastNames);
    const state = rng.pick(['active', 'active', 'active', 'active', 'invited', 'suspended']);
    const user: SimRecord = {
      id: userIds.take(),
      email: `${asciiSlug(nameFirst)}.${asciiSlug(nameLast)}.${i}@users.example`,
      isInvited: state === 'invited',
      isSuspended: state === 'suspended',
      nameFirst,
      nameLast,
      nameFirstLast: `${nameFirst} ${nameLast}`,
      PersonId: linked ? person.id : null,
      RoleId: rng.pick(roleIds),
      status: state,
      lastLoginAt: state === 'active' ? isoSecond(anchor - rng.int(1, 400) * DAY) : null,
    };
    if (rng.chance(0.85)) user.phone = phone(rng);
    users.push(user);
    t.User.insert(user);
  }

  // Tenants: business accounts of most orgs, and some personal ("house") accounts.
  const tenantIds = new IdSequence(301, rng, 4);
  for (const org of orgs) {
    if (!rng.chance(0.75)) continue;
    t.Tenant.insert({
      id: tenantIds.take(),
      isHouse: false,
      isInvoiced: rng.chance(0.7),
      name: org.name,
      OrgId: org.id,
    });
    if (rng.chance(0.1)) {
      const p = rng.pick(persons);
      t.Tenant.insert({
        id: tenantIds.take(),
        isHouse: true,
        isInvoiced: false,
        name: `${p.nameFirst} ${p.nameLast}`,
        OrgId: org.id,
      });
    }
  }

  // HsVendors: collection sites and clinics, with fields the interface does not name.
  const vendorIds = new IdSequence(5001, rng, 9);
  for (let i = 0, n = scaled(400); i < n; i++) {
    const [city, state] = rng.pick(cities);
    const vendor: SimRecord = {
      id: vendorIds.take(),
      name: `${rng.pick(vendorBrands)} - ${city} ${rng.pick(['Central', 'North', 'Airport', 'Downtown', `#${rng.int(100, 9999)}`])}`,
      OrgId: rng.pick(orgs).id,
      cityState: `${city}, ${state}`,
      lat: rng.int(25000, 48000) / 1000,
      lng: -rng.int(75000, 122000) / 1000,
      walkinDrug: rng.chance(0.6),
    };
    t.HsVendor.insert(vendor);
  }

  // Order items: two years, ids rising with time, status by age.
  const itemIds = new IdSequence(500001, rng, 7);
  const itemCount = scaled(30000);
  const span = anchor - start;
  const times: number[] = [];
  for (let i = 0; i < itemCount; i++) times.push(start + Math.floor(rng.next() * span));
  times.sort((a, b) => a - b);
  const recent: SimRecord[] = [];
  for (let i = 0; i < itemCount; i++) {
    const created = times[i] ?? start;
    const person = rng.pick(persons);
    const product = rng.pick(simProducts);
    const status = statusForAge(rng, (anchor - created) / DAY);
    const item: SimRecord = {
      id: itemIds.take(),
      c_currentStatusCodeId: status.code,
      c_currentStatusCodeName: status.name,
      c_org: orgName(person.OrgId as number),
      c_personNameFirst: person.nameFirst,
      c_personNameLast: person.nameLast,
      c_productName: product.name,
      c_productCategory: product.category,
      CreationTimestamp: isoSecond(created),
      CurrentStatusId: status.id,
      isNotModifiable: status.terminal,
      OrgId: person.OrgId,
      PersonId: person.id,
      ProductId: product.id,
    };
    const r = rng.next();
    if (r < 0.7) item.orderedBy = String(rng.pick(users).nameFirstLast);
    else if (r < 0.85) item.orderedBy = 'Online order';
    else if (r < 0.93) item.orderedBy = null;
    if (recent.length > 0 && rng.chance(0.04)) item['Parent~OrderItemId'] = rng.pick(recent).id;
    if (rng.chance(0.1)) item['Passport~OrderItemId'] = item.id;
    if (status.code !== 'ORD' && status.code !== 'SCH' && rng.chance(0.8)) {
      item.labAccessionNumber = `A${rng.int(10000000, 99999999)}`;
    }
    recent.push(item);
    if (recent.length > 50) recent.shift();
    t.OrderItem.insert(item);
  }

  // OrgMonth: 24 months per org (ending with the anchor's month), realistic pools and picks.
  const orgMonthIds = new IdSequence(900001, rng, 3);
  const anchorDay = new Date(anchor);
  const lastYear = anchorDay.getUTCFullYear();
  const lastMonth = anchorDay.getUTCMonth() + 1;
  for (const org of orgs) {
    const size = rng.next();
    let pool =
      size < 0.4
        ? rng.int(1, 5)
        : size < 0.75
          ? rng.int(6, 30)
          : size < 0.95
            ? rng.int(31, 150)
            : rng.int(151, 1500);
    const joinsAt = rng.chance(0.85) ? 0 : rng.int(1, 20);
    const diligence = rng.pick([1, 1, 1, 0.6, 1.2]);
    const drugRate = Number(org.rpMinDrug) / 100;
    const alcRate = Number(org.rpMinAlc) / 100;
    for (let k = joinsAt; k < 24; k++) {
      const monthIndex = lastYear * 12 + (lastMonth - 1) - (23 - k);
      const year = Math.floor(monthIndex / 12);
      const month = (monthIndex % 12) + 1;
      pool = Math.max(0, pool + Math.round(pool * (rng.next() - 0.5) * 0.1));
      if (rng.chance(0.01)) continue; // a month with no row: a data gap
      const pickedDrug = Math.max(
        0,
        Math.round((pool * drugRate * diligence) / 12 + (rng.next() - 0.5) * 1.5),
      );
      const pickedAlc = Math.max(0, Math.round((pool * alcRate * diligence) / 12 + (rng.next() - 0.5)));
      const pending = k >= 22;
      const drugResults = Math.max(0, pickedDrug - (pending && rng.chance(0.5) ? 1 : 0));
      const alcResults = Math.max(0, pickedAlc - (pending && rng.chance(0.3) ? 1 : 0));
      const labelStyle = rng.next();
      const label =
        labelStyle < 0.97
          ? `${year}-${String(month).padStart(2, '0')}`
          : labelStyle < 0.99
            ? `${String(month).padStart(2, '0')}/${year}`
            : labelStyle < 0.998
              ? `${year}-${month}`
              : 'n/a';
      const id = orgMonthIds.take();
      const row: SimRecord = {
        id,
        OrgId: org.id,
        label,
        countEligibleAll: pool + rng.int(0, Math.ceil(pool * 0.3)),
        countEligibleRandomPool: pool,
        countPickedDrug: pickedDrug,
        countPickedDrugResult: rng.chance(0.002) ? pickedDrug + 1 : drugResults,
        countPickedAlcohol: pickedAlc,
        countPickedAlcoholResult: alcResults,
        dropRandomPick:
          pickedDrug + pickedAlc > 0 ? `https://files.example/orgmonth/${id}/random-pick.pdf` : null,
      };
      if (rng.chance(0.3)) row.dropCoveredEmployee = `https://files.example/orgmonth/${id}/covered.pdf`;
      if (month === 12 && rng.chance(0.6)) row.dropMisReport = `https://files.example/orgmonth/${id}/mis.pdf`;
      t.OrgMonth.insert(row);
    }
  }

  // Invoices: numeric-string ids with gaps; paid, unpaid, overdue, a few credits. Drawn from a
  // generator of their own, so that which invoices exist and what they owe depend on the seed and
  // scale alone, not on the anchor date (the sections above draw by calendar month): the ids of
  // examples/payment.csv hold in a sandbox started on any day.
  const irng = new Rng(hash32(`invoices:${params.seed}`));
  const invoiceIds = new IdSequence(240001, irng, 9);
  for (let i = 0, n = scaled(3000); i < n; i++) {
    const org = irng.pick(orgs);
    const issued = start + Math.floor(irng.next() * span);
    const date = new Date(issued);
    const amount = irng.money(35, 2400);
    const age = (anchor - issued) / DAY;
    const paid = age > 120 ? irng.chance(0.94) : age > 30 ? irng.chance(0.6) : irng.chance(0.2);
    let balance = paid ? 0 : irng.chance(0.2) ? Math.round(amount * irng.next() * 100) / 100 : amount;
    if (irng.chance(0.005)) balance = -irng.money(5, 150);
    const invoice: SimRecord = {
      id: String(invoiceIds.take()),
      amount,
      balance,
      c_org: org.name,
      date: isoDate(issued),
      dateDue: isoDate(issued + 30 * DAY),
      lateFee: !paid && age > 60 ? irng.pick([15, 25, 0]) : irng.chance(0.5) ? 0 : null,
      month: date.getUTCMonth() + 1,
      year: date.getUTCFullYear(),
      OrgId: org.id,
    };
    if (irng.chance(0.01)) delete invoice.dateDue;
    // Cancelled (dropInvoice filled): about 2% of invoices as before, mostly ones never paid (an
    // invoice is cancelled instead of paid), so a small sandbox has cancelled invoices with an
    // open balance too. One draw either way: the invoices after it stay as they were.
    if (irng.chance(balance === 0 ? CANCEL_PAID : CANCEL_UNPAID))
      invoice.dropInvoice = `https://files.example/invoice/${invoice.id}/void.pdf`;
    t.Invoice.insert(invoice);
  }

  // Staff: employment records of persons.
  const staffIds = new IdSequence(6001, rng, 9);
  for (let i = 0, n = scaled(3000); i < n; i++) {
    const hired = start - rng.int(0, 3000) * DAY;
    const period = rng.pick([1, 2, 3, 4, 5]);
    const staff: SimRecord = {
      id: staffIds.take(),
      PersonId: rng.pick(persons).id,
      dateOfHire: isoDate(hired),
      salary:
        period === 1 ? rng.money(15, 48) : period === 5 ? rng.int(32, 140) * 1000 : rng.money(600, 6000),
      SalaryPeriodId: period,
    };
    if (rng.chance(0.15)) staff.dateOfTermination = isoDate(hired + rng.int(30, 2000) * DAY);
    else if (rng.chance(0.5)) staff.dateOfTermination = null;
    t.Staff.insert(staff);
  }

  // Applicants: with ID-scan fields (personal data) and info[] with infoItem[].
  const applicantIds = new IdSequence(9001, rng, 9);
  let infoId = 40001;
  let infoItemId = 800001;
  for (let i = 0, n = scaled(2000); i < n; i++) {
    const person = rng.pick(persons);
    const id = applicantIds.take();
    const [city, state, zip] = rng.pick(cities);
    const applicant: SimRecord = {
      id,
      PersonId: person.id,
      applicationDate: isoDate(start + Math.floor(rng.next() * span)),
      ssn: `${rng.int(100, 899)}-${String(rng.int(1, 99)).padStart(2, '0')}-${String(rng.int(1, 9999)).padStart(4, '0')}`,
      id_birthdate: person.dateOfBirth,
      id_firstName: String(person.nameFirst).toUpperCase(),
      id_lastName: String(person.nameLast).toUpperCase(),
      id_fullName: `${person.nameFirst} ${person.nameLast}`,
      id_licenseNumber: `${String.fromCharCode(65 + rng.int(0, 25))}${rng.int(1000000, 9999999)}`,
      id_city: city,
      id_postalCode: zip,
      id_jurisdictionCode: state,
      id_country: 'USA',
      id_documentType: 'DL',
      id_idScanSuccess: rng.chance(0.9) ? 1 : 0,
      isDropDriverLicense: rng.chance(0.7),
      isDropSelfie: rng.chance(0.5),
      isNoIdScan: rng.chance(0.1),
      priorAddressCity: rng.chance(0.4) ? rng.pick(cities)[0] : null,
      currentAddressYearStart: String(rng.int(1990, 2025)),
    };
    const info: SimRecord[] = [];
    for (let k = 0, m = rng.int(0, 3); k < m; k++) {
      const product = rng.pick(simProducts);
      const thisInfo = infoId++;
      const items: SimRecord[] = [];
      for (let j = 0, q = rng.int(0, 4); j < q; j++) {
        items.push({
          id: infoItemId++,
          InfoId: thisInfo,
          PersonId: person.id,
          AttributeId: `attr-${rng.int(1, 40)}`,
          c_attributeField: rng.pick(['reasonForTest', 'employerName', 'jobTitle', 'collectionSite']),
          valueText: rng.pick([
            'Pre-employment',
            'Random',
            'Post-accident',
            'Reasonable suspicion',
            'Return to duty',
          ]),
        });
      }
      info.push({
        id: thisInfo,
        PersonId: person.id,
        ProductId: product.id,
        isSubmitted: rng.chance(0.8) ? 1 : 0,
        isTransmitted: rng.chance(0.6) ? 1 : 0,
        orderItemDate: isoDate(start + Math.floor(rng.next() * span)),
        infoItem: items,
      });
    }
    applicant.info = info;
    t.Applicant.insert(applicant);
  }

  return { tables: t, statuses: simStatuses };
}

function status(code: string): SimStatus {
  const s = simStatuses.find((x) => x.code === code);
  if (s === undefined) throw new Error(`unknown sandbox status ${code}`);
  return s;
}

/** A plausible current status for an order item created `ageDays` ago. */
function statusForAge(rng: Rng, ageDays: number): SimStatus {
  if (ageDays > 30) {
    if (rng.chance(0.01)) return status(rng.pick(['COL', 'LAB', 'MRO', 'ORD']));
    const r = rng.next();
    return status(r < 0.85 ? 'CMP' : r < 0.95 ? 'CAN' : 'EXP');
  }
  if (ageDays < 1) return status(rng.pick(['ORD', 'ORD', 'SCH']));
  if (ageDays < 3) return status(rng.pick(['SCH', 'COL', 'LAB']));
  if (ageDays < 10) return status(rng.pick(['LAB', 'MRO', 'CMP', 'CMP']));
  return status(rng.pick(['CMP', 'CMP', 'CMP', 'MRO', 'CAN']));
}
