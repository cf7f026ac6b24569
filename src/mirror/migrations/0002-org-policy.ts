import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Org rate policies (docs/reports.md): the service has no Org read, so
 * rpMinDrug / rpMinAlc / rpDotRegistrationNumber / Parent~OrgId come from orgs created through
 * write-back and from policy files (`ohs policy import`).
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('org_policy')
      .addColumn('org_id', ddl.type('id'), (c) => c.primaryKey().notNull())
      .addColumn('program', ddl.type('text'), (c) => c.notNull())
      .addColumn('agency', ddl.type('text'))
      .addColumn('rp_min_drug', ddl.type('float'))
      .addColumn('rp_min_alc', ddl.type('float'))
      .addColumn('dot_registration_number', ddl.type('text'))
      .addColumn('parent_org_id', ddl.type('id'))
      .addColumn('source', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('org_policy_parent_org_id_idx')
      .on('org_policy')
      .column('parent_org_id')
      .execute();
  },
});
