import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Write-back exactly once: who claimed an outbox item (`queued -> sending`) and when,
 * when and in which apply run its outcome became unknown, and every reconciliation read of it.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    for (const column of ['claimed_by', 'claimed_at', 'unknown_at', 'unknown_run', 'evidence']) {
      await db.schema.alterTable('outbox').addColumn(column, ddl.type('text')).execute();
    }
  },
});
