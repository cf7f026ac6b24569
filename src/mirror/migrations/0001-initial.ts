import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { type ChildTableDef, columnKind, tableDefs } from '../tables.js';
import { createViews } from './views.js';

async function createResourceTables(db: Kysely<Database>, ddl: EngineDdl): Promise<void> {
  for (const def of tableDefs) {
    let t = db.schema.createTable(def.table).ifNotExists();
    for (const c of def.columns) {
      t = t.addColumn(c.name, ddl.type(columnKind(c)), (col) =>
        c.field === 'id' ? col.primaryKey().notNull() : col,
      );
    }
    t = t
      .addColumn('raw', ddl.type('json'), (col) => col.notNull())
      .addColumn('synced_at', ddl.type('text'), (col) => col.notNull())
      .addColumn('deleted_at', ddl.type('text'))
      .addColumn('seen_pass', ddl.type('text'));
    await t.execute();
    for (const c of def.columns.filter((col) => col.link)) {
      await db.schema
        .createIndex(`${def.table}_${c.name}_idx`)
        .ifNotExists()
        .on(def.table)
        .column(c.name)
        .execute();
    }
    await db.schema
      .createIndex(`${def.table}_deleted_at_idx`)
      .ifNotExists()
      .on(def.table)
      .column('deleted_at')
      .execute();
    for (const child of def.children) await createChildTable(db, ddl, child, ['applicant_id']);
  }
}

async function createChildTable(
  db: Kysely<Database>,
  ddl: EngineDdl,
  child: ChildTableDef,
  parents: string[],
): Promise<void> {
  const parentCols = [...new Set([...parents, child.parentColumn])];
  let t = db.schema.createTable(child.table).ifNotExists();
  for (const c of child.columns) {
    t = t.addColumn(c.name, ddl.type(columnKind(c)), (col) =>
      c.field === 'id' ? col.primaryKey().notNull() : col,
    );
  }
  for (const p of parentCols) t = t.addColumn(p, ddl.type('id'), (col) => col.notNull());
  t = t.addColumn('raw', ddl.type('json'), (col) => col.notNull());
  await t.execute();
  for (const c of [...parentCols, ...child.columns.filter((col) => col.link).map((col) => col.name)]) {
    await db.schema.createIndex(`${child.table}_${c}_idx`).ifNotExists().on(child.table).column(c).execute();
  }
  for (const grand of child.children) await createChildTable(db, ddl, grand, parentCols);
}

export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    await db.schema
      .createTable('sync_run')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('kind', ddl.type('text'), (c) => c.notNull())
      .addColumn('started_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('ended_at', ddl.type('text'))
      .addColumn('mode', ddl.type('text'), (c) => c.notNull())
      .addColumn('streams', ddl.type('text'), (c) => c.notNull())
      .addColumn('outcome', ddl.type('text'), (c) => c.notNull())
      .addColumn('error_code', ddl.type('text'))
      .addColumn('error', ddl.type('text'))
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('sync_stream_run')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('mode', ddl.type('text'), (c) => c.notNull())
      .addColumn('started_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('ended_at', ddl.type('text'))
      .addColumn('outcome', ddl.type('text'), (c) => c.notNull())
      .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('inserted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('unchanged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', ddl.type('text'))
      .execute();
    await db.schema
      .createIndex('sync_stream_run_run_id_idx')
      .on('sync_stream_run')
      .column('run_id')
      .execute();
    await db.schema
      .createTable('sync_checkpoint')
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('part', 'integer', (c) => c.notNull())
      .addColumn('pass_id', ddl.type('text'), (c) => c.notNull())
      .addColumn('mode', ddl.type('text'), (c) => c.notNull())
      .addColumn('cursor', ddl.type('text'))
      .addColumn('upper', ddl.type('text'))
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_checkpoint_pk', ['stream', 'part'])
      .execute();
    await db.schema
      .createTable('sync_stream_state')
      .addColumn('stream', ddl.type('text'), (c) => c.primaryKey())
      .addColumn('last_run_id', 'integer')
      .addColumn('last_success_at', ddl.type('text'))
      .addColumn('last_full_at', ddl.type('text'))
      .addColumn('pass_id', ddl.type('text'))
      .addColumn('pass_started_at', ddl.type('text'))
      .execute();
    await db.schema
      .createTable('sync_deletion')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('table_name', ddl.type('text'), (c) => c.notNull())
      .addColumn('row_id', ddl.type('text'), (c) => c.notNull())
      .addColumn('deleted_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sync_lock')
      .addColumn('name', ddl.type('text'), (c) => c.primaryKey())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('host', ddl.type('text'), (c) => c.notNull())
      .addColumn('acquired_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('heartbeat_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('orderitem_status_history')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('orderitem_id', ddl.type('id'), (c) => c.notNull())
      .addColumn('status_id', ddl.type('id'))
      .addColumn('status_code', ddl.type('text'))
      .addColumn('status_name', ddl.type('text'))
      .addColumn('first_seen_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('last_seen_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('orderitem_status_history_item_idx')
      .on('orderitem_status_history')
      .columns(['orderitem_id', 'id'])
      .execute();
    await db.schema
      .createTable('data_dictionary')
      .addColumn('table_name', ddl.type('text'), (c) => c.notNull())
      .addColumn('column_name', ddl.type('text'), (c) => c.notNull())
      .addColumn('sql_type', ddl.type('text'), (c) => c.notNull())
      .addColumn('field', ddl.type('text'))
      .addColumn('description', ddl.type('text'), (c) => c.notNull())
      .addPrimaryKeyConstraint('data_dictionary_pk', ['table_name', 'column_name'])
      .execute();
    await createResourceTables(db, ddl);
    await createViews(db);
  },
});
