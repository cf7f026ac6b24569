import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Write-back checked at the moment of sending: what the plan checked an item against
 * (`planned`, JSON; a payment's balance also in `balance_planned`), why an apply held it instead
 * of sending (`hold_reason`), when a person released a held item to be sent as it is
 * (`released_at`), and when its personal values were removed from its body (`redacted_at`: a
 * terminal item keeps only the fields' names and masked values).
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    for (const column of ['planned', 'hold_reason', 'released_at', 'redacted_at'])
      await db.schema.alterTable('outbox').addColumn(column, ddl.type('text')).execute();
    await db.schema.alterTable('outbox').addColumn('balance_planned', ddl.type('money')).execute();
  },
});
