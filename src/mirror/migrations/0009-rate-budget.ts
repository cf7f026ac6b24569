import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * The rate budget every process on the mirror shares (one row per service and token hash): the
 * adaptive rate controller's state and a token bucket. See rate-budget.ts.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('rate_budget')
      .addColumn('key', ddl.type('text'), (c) => c.primaryKey().notNull())
      .addColumn('rate', ddl.type('float'))
      .addColumn('w_max', ddl.type('float'), (c) => c.notNull())
      .addColumn('cut_at', 'bigint', (c) => c.notNull())
      .addColumn('tat', ddl.type('float'), (c) => c.notNull())
      .addColumn('good_rate', ddl.type('float'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .execute();
  },
});
