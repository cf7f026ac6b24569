import type { SimRecord } from '../store.js';
import { asciiSlug, DAY, IdSequence, isoDate, isoSecond, phone, type SeedContext } from './common.js';
import { cities, firstNames, lastNames, orgSuffixes, roleNames } from './names.js';

/** Roles: a fixed, small list (not scaled), ids with gaps. */
export function seedRoles(c: SeedContext): number[] {
  const { rng, t } = c;
  let roleId = 1;
  for (const name of roleNames) {
    t.Role.insert({ id: roleId, name });
    roleId += rng.chance(0.3) ? 2 : 1;
  }
  const roleIds = t.Role.all().map((r) => r.id as number);
  return roleIds;
}

/** Orgs: internal records (no Org read exists), used for names, rates and links. */
export function seedOrgs(c: SeedContext): SimRecord[] {
  const { rng, t, scaled } = c;
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
  return orgs;
}

/** Persons: internal records (Person has no read), people of the orgs. */
export function seedPersons(c: SeedContext, orgs: SimRecord[]): SimRecord[] {
  const { rng, t, scaled } = c;
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
  return persons;
}

/** Users: most linked to a person, some not (PersonId null). */
export function seedUsers(c: SeedContext, persons: SimRecord[], roleIds: number[]): SimRecord[] {
  const { rng, t, scaled, anchor } = c;
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
  return users;
}

/** Tenants: business accounts of most orgs, and some personal ("house") accounts. */
export function seedTenants(c: SeedContext, orgs: SimRecord[], persons: SimRecord[]): void {
  const { rng, t } = c;
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
}
