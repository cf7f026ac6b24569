import type { SimRecord } from '../store.js';
import { DAY, IdSequence, isoDate, type SeedContext } from './common.js';

/** Staff: employment records of persons. */
export function seedStaff(c: SeedContext, persons: SimRecord[]): void {
  const { rng, t, scaled, start } = c;
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
}
