import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Who released a held write-back item (`ohs apply --release ID`): the user and the apply run that
 * took the release under its locks (`released_by`), beside when (`released_at`, 0014).
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema.alterTable('outbox').addColumn('released_by', ddl.type('text')).execute();
  },
});
