import type { SimRecord } from '../store.js';
import { IdSequence, type SeedContext } from './common.js';
import { cities, vendorBrands } from './names.js';

/** HsVendors: collection sites and clinics, with fields the interface does not name. */
export function seedVendors(c: SeedContext, orgs: SimRecord[]): void {
  const { rng, t, scaled } = c;
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
}
