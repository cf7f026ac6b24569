import { type Kysely, type Migration, sql } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { POLICY_HISTORY, POLICY_HISTORY_VIEW } from '../policy-history.js';

/** The policy's columns when this migration was written (later ones add their own). */
const policyColumns = [
  'org_id',
  'program',
  'agency',
  'rp_min_drug',
  'rp_min_alc',
  'dot_registration_number',
  'parent_org_id',
  'source',
  'updated_at',
] as const;

/**
 * The migration: the versions table, its view, and each existing policy as its first version,
 * in force from when it was last written (`updated_at`: before that, the mirror cannot say
 * what the policy was).
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable(POLICY_HISTORY)
      .addColumn('org_id', ddl.type('id'), (c) => c.notNull())
      .addColumn('program', ddl.type('text'), (c) => c.notNull())
      .addColumn('agency', ddl.type('text'))
      .addColumn('rp_min_drug', ddl.type('float'))
      .addColumn('rp_min_alc', ddl.type('float'))
      .addColumn('dot_registration_number', ddl.type('text'))
      .addColumn('parent_org_id', ddl.type('id'))
      .addColumn('source', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('valid_from', ddl.type('text'), (c) => c.notNull())
      .addColumn('valid_to', ddl.type('text'))
      .execute();
    await db.schema.createIndex(`${POLICY_HISTORY}_org_id_idx`).on(POLICY_HISTORY).column('org_id').execute();
    const cols = sql.join(policyColumns.map((c) => sql.ref(c)));
    await sql`INSERT INTO ${sql.table(POLICY_HISTORY)} (${cols}, valid_from, valid_to)
      SELECT ${cols}, updated_at, NULL FROM org_policy`.execute(db);
    await sql`CREATE VIEW ${sql.table(POLICY_HISTORY_VIEW)} AS
      SELECT ${cols}, valid_from, valid_to, CASE WHEN valid_to IS NULL THEN 1 ELSE 0 END AS is_current
      FROM ${sql.table(POLICY_HISTORY)}`.execute(db);
  },
});
