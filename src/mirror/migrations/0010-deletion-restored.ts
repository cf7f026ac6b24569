import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * a soft-deleted row seen again is restored, and the restoration recorded on its
 * deletion's audit row (when, by which run), so the history says the row came back.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema.alterTable('sync_deletion').addColumn('restored_at', ddl.type('text')).execute();
    await db.schema.alterTable('sync_deletion').addColumn('restored_run_id', 'integer').execute();
  },
});
