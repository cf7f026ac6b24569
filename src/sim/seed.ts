import { Rng } from './rng.js';
import { seedApplicants } from './seed/applicants.js';
import { DAY, type SeedContext } from './seed/common.js';
import { seedInvoices } from './seed/invoices.js';
import { seedOrderItems } from './seed/orders.js';
import { seedOrgMonths } from './seed/org-months.js';
import { seedOrgs, seedPersons, seedRoles, seedTenants, seedUsers } from './seed/people.js';
import { seedStaff } from './seed/staff.js';
import { seedVendors } from './seed/vendors.js';
import { emptyTables, type SimStatus, type SimTables, simStatuses } from './store.js';

export { isoDate } from './seed/common.js';
export { simProducts } from './seed/names.js';

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

export interface SeedResult {
  tables: SimTables;
  statuses: readonly SimStatus[];
}

/**
 * Each resource is seeded by a function of its own (src/sim/seed/), all drawing from one
 * generator in this fixed order (invoices from one of their own): moving a call, or a draw within
 * one, changes the data set (test/sim/seed-digest.test.ts pins it).
 */
export function seedData(params: SeedParams): SeedResult {
  const anchor = Date.parse(`${params.anchorDate}T00:00:00Z`);
  const start = anchor - 730 * DAY;
  const c: SeedContext = {
    seed: params.seed,
    rng: new Rng(params.seed),
    t: emptyTables(),
    scaled: (n: number) => Math.max(1, Math.round(n * params.scale)),
    anchor,
    start,
    span: anchor - start,
  };
  const roleIds = seedRoles(c);
  const orgs = seedOrgs(c);
  const persons = seedPersons(c, orgs);
  const users = seedUsers(c, persons, roleIds);
  seedTenants(c, orgs, persons);
  seedVendors(c, orgs);
  seedOrderItems(c, persons, users);
  seedOrgMonths(c, orgs);
  seedInvoices(c, orgs);
  seedStaff(c, persons);
  seedApplicants(c, persons);
  return { tables: c.t, statuses: simStatuses };
}
