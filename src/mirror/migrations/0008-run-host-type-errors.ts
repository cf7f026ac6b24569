import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * the host of each run, so `ohs status` can tell a run whose process
 * died (SIGKILL, power loss) from one still going; and the records a sync kept although a field
 * had the wrong type, counted per run, stream and field, for `ohs status` and the reports.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema.alterTable('sync_run').addColumn('host', ddl.type('text')).execute();
    await db.schema
      .createTable('sync_type_error')
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('field', ddl.type('text'), (c) => c.notNull())
      .addColumn('expected', ddl.type('text'), (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('example_id', ddl.type('text'))
      .addPrimaryKeyConstraint('sync_type_error_pk', ['run_id', 'stream', 'field'])
      .execute();
  },
});
