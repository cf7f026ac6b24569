import type { ResourceName } from '../schema/index.js';
import { Rng } from './rng.js';
import type { SimRecord, Table } from './store.js';

/**
 * The sandbox's hostile mode (`--hostile`, option `hostile`): the data set a careless or hostile
 * upstream might send, within what docs/service.md allows (the JSON types of its fields are
 * not promised). Applied once to the seeded tables:
 * - Applicant `ssn`, `id_birthdate`, `id_licenseNumber` as numbers, objects and arrays (a quarter
 *   each, the rest strings), plus unnamed fields `socialSecurityNumber`, `dob` and `extra.passportNo`;
 * - Org names that start a formula after a line break or a separator (`Acme Freight\n=40+2`,
 *   `Acme;=1+1`), carry terminal escape sequences, NUL and other control characters;
 * - Invoice balances `1e309` (a number JSON can write and a double cannot hold), sent as that text;
 * - errors (injected 500/503 faults) with a 200 KB message full of escape sequences.
 */

/** A value sent as the bare JSON text after the marker (server.ts `send` unquotes it). */
export const RAW_NUMBER = '\u0000ohs-raw-number:';
const rawNumber = (text: string): string => `${RAW_NUMBER}${text}`;

/** Puts the raw numbers of hostile records back as bare JSON numbers in an answer's text. */
export function unquoteRawNumbers(text: string): string {
  return text.includes('\\u0000ohs-raw-number:')
    ? text.replace(/"\\u0000ohs-raw-number:([-+0-9.eE]+)"/g, '$1')
    : text;
}

/** Org names no spreadsheet may evaluate and no terminal may obey. */
export const hostileOrgNames = [
  'Acme Freight\n=40+2',
  'Acme;=1+1',
  'Acme,=1+1',
  '=HYPERLINK("http://example.invalid","x")',
  'Tab\t=1+1',
  'Carriage\r+1+1',
  '\u001b]0;pwned\u0007Title Corp',
  'Clear\u001b[2J\u001b[H Screen LLC',
  'Nul\u0000Byte Inc',
  'Bell\u0007 and \u009b31m C1',
  'Right\u202eLeft \u2066Isolate\u2069 Ltd',
];

/** An error message of 200 KB that would clear a terminal if printed raw. */
export const hugeErrorMessage = `upstream broke \u001b[2J\u001b]0;owned\u0007 ${'x'.repeat(200_000)}`;

function digits(text: unknown): string {
  return String(text).replace(/\D/g, '');
}

function hostileApplicant(a: SimRecord, i: number): void {
  const ssn = digits(a.ssn);
  const birth = String(a.id_birthdate ?? '1970-01-01');
  const [y, m, d] = birth.split('-').map(Number);
  switch (i % 4) {
    case 0:
      a.ssn = Number(ssn);
      a.id_birthdate = Number(digits(birth));
      a.id_licenseNumber = Number(digits(a.id_licenseNumber));
      break;
    case 1:
      a.ssn = { area: ssn.slice(0, 3), group: ssn.slice(3, 5), serial: ssn.slice(5) };
      a.id_birthdate = { year: y, month: m, day: d };
      a.id_licenseNumber = { number: a.id_licenseNumber };
      break;
    case 2:
      a.ssn = [ssn.slice(0, 3), ssn.slice(3, 5), ssn.slice(5)];
      a.id_birthdate = [y, m, d];
      a.id_licenseNumber = [a.id_licenseNumber];
      break;
    default:
      break;
  }
  a.socialSecurityNumber = `${ssn.slice(0, 3)}-${ssn.slice(3, 5)}-${ssn.slice(5)}`;
  a.dob = birth;
  a.extra = { passportNo: `P${ssn}`, note: 'kept' };
}

/** Turns the seeded tables hostile (see above). Deterministic for a seed. */
export function makeHostile(tables: Record<ResourceName, Table>, seed: number): void {
  const rng = new Rng(seed + 7);
  tables.Applicant.all().forEach((a, i) => {
    hostileApplicant(a, i);
  });
  // Orgs have no read: their names reach a client in Tenant.name and the items' c_org.
  const orgs = tables.Org.all();
  const renamed = new Map<unknown, string>();
  hostileOrgNames.forEach((name, i) => {
    const org = orgs[Math.floor((i * orgs.length) / hostileOrgNames.length)];
    if (org === undefined) return;
    renamed.set(org.name, name);
    org.name = name;
  });
  for (const table of Object.values(tables))
    for (const r of table.all())
      for (const field of ['name', 'c_org']) if (renamed.has(r[field])) r[field] = renamed.get(r[field]);
  const invoices = tables.Invoice.all().filter((r) => typeof r.balance === 'number' && r.balance > 0);
  for (let k = 0; k < 3 && invoices.length > 0; k++) {
    const invoice = invoices[rng.int(0, invoices.length - 1)];
    if (invoice !== undefined) invoice.balance = rawNumber('1e309');
  }
}
