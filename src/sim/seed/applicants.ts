import type { SimRecord } from '../store.js';
import { IdSequence, isoDate, type SeedContext } from './common.js';
import { cities, simProducts } from './names.js';

/** Applicants: with ID-scan fields (personal data) and info[] with infoItem[]. */
export function seedApplicants(c: SeedContext, persons: SimRecord[]): void {
  const { rng, t, scaled, start, span } = c;
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
}
