import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/** Runs of jobs (nightly, sync, reports): start, end, outcome, outputs. */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('job_run')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('job', ddl.type('text'), (c) => c.notNull())
      .addColumn('trigger', ddl.type('text'), (c) => c.notNull())
      .addColumn('started_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('ended_at', ddl.type('text'))
      .addColumn('outcome', ddl.type('text'), (c) => c.notNull())
      .addColumn('error_code', ddl.type('text'))
      .addColumn('error', ddl.type('text'))
      .addColumn('outputs', ddl.type('text'), (c) => c.notNull().defaultTo('[]'))
      .addColumn('sync_run_id', 'integer')
      .addColumn('pid', 'integer', (c) => c.notNull())
      .execute();
  },
});
