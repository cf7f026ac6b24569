import type { Kysely } from 'kysely';
import { asOf, type Database } from '../../mirror/index.js';
import { asInteger, asNumber, asText } from './values.js';

/** The About line saying how org names are read. */
export const ORG_NAMES_ABOUT: [string, string] = [
  'Org names',
  'The latest c_org seen on the org’s order items and invoices',
];

interface Candidate {
  name: string;
  seen: string;
  /** 1 for order items, 0 for invoices: order items win a tie of sync times. */
  rank: number;
  maxId: number;
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.seen !== b.seen) return a.seen > b.seen;
  if (a.rank !== b.rank) return a.rank > b.rank;
  return a.maxId > b.maxId;
}

/**
 * Org names (docs/reports.md): the `c_org` of an org's order items and invoices, the latest seen,
 * i.e. the name on the most recently synced row (ties: order items, then the highest id). One
 * grouped query per table returns a row per (org, name), so this stays cheap for a million
 * order items and holds one entry per org. Soft-deleted rows are not read. `at`: as the mirror
 * knew them then (history.ts; the synced time is then the version's).
 */
export async function orgNames(db: Kysely<Database>, at: string | undefined): Promise<Map<number, string>> {
  const best = new Map<number, Candidate>();
  const consider = (org: unknown, name: unknown, seen: unknown, maxId: unknown, rank: number) => {
    const id = asInteger(org);
    const text = asText(name);
    if (id === null || text === null) return;
    const c: Candidate = { name: text, seen: String(seen ?? ''), rank, maxId: asNumber(maxId) ?? 0 };
    const prev = best.get(id);
    if (prev === undefined || better(c, prev)) best.set(id, c);
  };
  const items = await db
    .selectFrom(asOf(db, 'orderitem', at))
    .select((eb) => ['OrgId', 'c_org', eb.fn.max('synced_at').as('seen'), eb.fn.max('id').as('max_id')])
    .where('deleted_at', 'is', null)
    .where('c_org', 'is not', null)
    .groupBy(['OrgId', 'c_org'])
    .execute();
  for (const r of items) consider(r.OrgId, r.c_org, r.seen, r.max_id, 1);
  // Invoice ids are strings: only their sync time orders them (the id breaks no tie).
  const invoices = await db
    .selectFrom(asOf(db, 'invoice', at))
    .select((eb) => ['OrgId', 'c_org', eb.fn.max('synced_at').as('seen')])
    .where('deleted_at', 'is', null)
    .where('c_org', 'is not', null)
    .groupBy(['OrgId', 'c_org'])
    .execute();
  for (const r of invoices) consider(r.OrgId, r.c_org, r.seen, 0, 0);
  return new Map([...best].map(([id, c]) => [id, c.name]));
}

/** The anchors of an org's row on a page (`#org-1001`): the evidence links of accounts at risk. */
export const ORG_ANCHORS = { key: 'orgId', prefix: 'org-' } as const;
