import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Facts about the mirror itself (key/value): which service filled it (`source.base_url`, set by
 * the first sync; `source.last_base_url`, by every sync), so a guard or the demo can tell a
 * mirror of another service. See meta.ts.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('mirror_meta')
      .addColumn('key', ddl.type('text'), (c) => c.primaryKey().notNull())
      .addColumn('value', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .execute();
  },
});
