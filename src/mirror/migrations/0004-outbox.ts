import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * The write-back outbox (docs/writeback.md): one row per planned change, its state
 * (queued, sent, applied, failed, unknown), what was sent and answered, and the re-read check.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('outbox')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('idempotency_key', ddl.type('text'), (c) => c.notNull().unique())
      .addColumn('content_key', ddl.type('text'), (c) => c.notNull())
      .addColumn('op', ddl.type('text'), (c) => c.notNull())
      .addColumn('target_id', ddl.type('text'))
      .addColumn('body', ddl.type('text'), (c) => c.notNull())
      .addColumn('summary', ddl.type('text'), (c) => c.notNull())
      .addColumn('flags', ddl.type('text'), (c) => c.notNull().defaultTo('[]'))
      .addColumn('state', ddl.type('text'), (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('request', ddl.type('text'))
      .addColumn('response', ddl.type('text'))
      .addColumn('error', ddl.type('text'))
      .addColumn('balance_before', ddl.type('money'))
      .addColumn('verify', ddl.type('text'))
      .addColumn('resolution', ddl.type('text'))
      .addColumn('result_id', ddl.type('text'))
      .addColumn('confirmed_at', ddl.type('text'))
      .addColumn('file', ddl.type('text'), (c) => c.notNull())
      .addColumn('row', 'integer', (c) => c.notNull())
      .addColumn('created_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_state_idx').on('outbox').column('state').execute();
    await db.schema.createIndex('outbox_content_key_idx').on('outbox').column('content_key').execute();
  },
});
