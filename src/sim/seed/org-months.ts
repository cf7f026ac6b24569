import type { SimRecord } from '../store.js';
import { IdSequence, type SeedContext } from './common.js';

/** OrgMonth: 24 months per org (ending with the anchor's month), realistic pools and picks. */
export function seedOrgMonths(c: SeedContext, orgs: SimRecord[]): void {
  const { rng, t, anchor } = c;
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
}
