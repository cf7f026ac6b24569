import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { createHistory } from '../history.js';

/**
 * The mirror remembers: a history table per resource, the `*_history` views, and the
 * present of an existing mirror as its first version (see history.ts).
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await createHistory(db, ddl);
  },
});
