import type { Kysely } from 'kysely';
import { asOf, type Database } from '../../mirror/index.js';
import { rawWhereNull, withSentValues } from '../core/sent-values.js';
import { reportDb } from '../core/tables.js';
import { asInteger } from '../core/values.js';

/** Orgs whose OrgMonth rows are read by one query of the walk (docs/reports.md). */
export const ORGS_PER_QUERY = 200;

/** The orgs with an OrgMonth row (one row per org: the walk's list), as known at `at`. */
export async function orgMonthOrgs(db: Kysely<Database>, at: string | undefined): Promise<number[]> {
  const rows = await reportDb(db)
    .selectFrom(asOf(reportDb(db), 'orgmonth', at))
    .select('OrgId')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('OrgId', 'is not', null)
    .execute();
  return rows.map((r) => asInteger(r.OrgId)).filter((id): id is number => id !== null);
}

/** The counts whose unreadable values the report lists (see sent-values.ts). */
const SENT = [
  'countEligibleRandomPool',
  'countEligibleAll',
  'countPickedDrug',
  'countPickedDrugResult',
  'countPickedAlcohol',
  'countPickedAlcoholResult',
] as const;

/** The OrgMonth rows of some orgs, by org then id, as known at `at`. */
export async function orgMonthRows(db: Kysely<Database>, orgIds: number[], at: string | undefined) {
  return reportDb(db)
    .selectFrom(asOf(reportDb(db), 'orgmonth', at))
    .select(['id', 'OrgId', 'label', ...SENT, 'dropRandomPick', 'dropCoveredEmployee', 'dropMisReport'])
    .select(rawWhereNull(SENT).as('sent'))
    .where('deleted_at', 'is', null)
    .where('OrgId', 'in', orgIds)
    .orderBy('OrgId')
    .orderBy('id')
    .execute()
    .then((rows) => rows.map(({ sent, ...r }) => withSentValues(r, sent, SENT)));
}
