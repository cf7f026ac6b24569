import { type Kysely, type Migration, sql } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { POLICY_HISTORY, POLICY_HISTORY_VIEW, policyColumns } from '../policy-history.js';

/**
 * A policy's effective date (`effective_from`, a date YYYY-MM-DD): the first day of the months it
 * scores (docs/reports.md). On `org_policy` and on every version in `h_org_policy`, and in the BI
 * view. Existing policies keep it null: in force for every month, as they were read before, so a
 * report as of an instant before this migration reads the same after it.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema.alterTable('org_policy').addColumn('effective_from', ddl.type('text')).execute();
    await db.schema.alterTable(POLICY_HISTORY).addColumn('effective_from', ddl.type('text')).execute();
    await sql`DROP VIEW ${sql.table(POLICY_HISTORY_VIEW)}`.execute(db);
    const cols = sql.join(policyColumns.map((c) => sql.ref(c)));
    await sql`CREATE VIEW ${sql.table(POLICY_HISTORY_VIEW)} AS
      SELECT ${cols}, valid_from, valid_to, CASE WHEN valid_to IS NULL THEN 1 ELSE 0 END AS is_current
      FROM ${sql.table(POLICY_HISTORY)}`.execute(db);
  },
});
