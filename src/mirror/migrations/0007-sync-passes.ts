import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';

/**
 * Passes that write only what changed: the ids a pass saw
 * (or found gone, or failed to read) in their own table instead of a mark rewritten on every row;
 * changed records staged until the pass's deletions pass the guard; ids a pass failed to read,
 * retried by the next run; the rotating re-read's cursor; records fetched per stream run.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('sync_pass_seen')
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('id', ddl.type('text'), (c) => c.notNull())
      .addColumn('state', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_pass_seen_pk', ['stream', 'id'])
      .execute();
    await db.schema
      .createTable('sync_pass_stage')
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('id', ddl.type('text'), (c) => c.notNull())
      .addColumn('raw', ddl.type('text'), (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_pass_stage_pk', ['stream', 'id'])
      .execute();
    await db.schema
      .createTable('sync_failed_id')
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('id', ddl.type('text'), (c) => c.notNull())
      .addColumn('error', ddl.type('text'), (c) => c.notNull())
      .addColumn('failed_at', ddl.type('text'), (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_failed_id_pk', ['stream', 'id'])
      .execute();
    await db.schema
      .alterTable('sync_stream_run')
      .addColumn('records', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('sync_stream_state').addColumn('reread_cursor', ddl.type('text')).execute();
    await db.schema.alterTable('sync_stream_state').addColumn('reread_round_at', ddl.type('text')).execute();
  },
});
