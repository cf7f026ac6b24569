import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * The outbox's events: one row each time an item enters a state (`outbox_event`: the item, the
 * state, the instant), written with the change itself. The outbox row keeps only an item's last
 * state; a report of a period (what changed) reads the state each item had at the period's end
 * from here, so an item held in the period and released after it is still held at its end.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('outbox_event')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('outbox_id', ddl.type('id'), (c) => c.notNull())
      .addColumn('state', ddl.type('text'), (c) => c.notNull())
      .addColumn('at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_event_at_idx').on('outbox_event').column('at').execute();
  },
});
