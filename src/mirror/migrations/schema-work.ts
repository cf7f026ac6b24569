import type { Kysely } from 'kysely';
import type { Database, DataDictionaryTable } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { dictionaryRows } from '../dictionary.js';
import { historyTableOf } from '../history.js';
import { sqliteDdl } from '../sqlite/ddl.js';
import { type ChildTableDef, type ColumnDef, columnKind, indexesOf, tableDefs } from '../tables.js';

/**
 * The upkeep after the numbered migrations (`migrate`): the columns the schema module has gained
 * since the mirror was made, indexes a bulk load dropped, and a stale data dictionary.
 */
type AnyDb = Kysely<Database>;

export const pending = (w: SchemaWork): boolean =>
  w.columns.length > 0 || w.indexes.length > 0 || w.dictionaryStale;

/** What the upkeep would change: columns to add, indexes to recreate, a stale dictionary. */
export interface SchemaWork {
  columns: { table: string; column: ColumnDef }[];
  indexes: { table: string; name: string; column: string }[];
  dictionaryStale: boolean;
}

/** Compares the mirror with the schema module (reads only). */
export async function schemaWork(db: AnyDb, ddl: EngineDdl = sqliteDdl): Promise<SchemaWork> {
  const existing = await ddl.tableColumns(db);
  const work: SchemaWork = { columns: [], indexes: [], dictionaryStale: false };
  const add = (table: string, cols: ColumnDef[]) => {
    const have = existing.get(table);
    if (have === undefined) return;
    for (const c of cols) if (!have.has(c.name.toLowerCase())) work.columns.push({ table, column: c });
  };
  const walk = (children: ChildTableDef[]) => {
    for (const child of children) {
      add(child.table, child.columns);
      walk(child.children);
    }
  };
  const indexNames = await ddl.indexNames(db);
  for (const def of tableDefs) {
    add(def.table, def.columns);
    add(historyTableOf(def.table), def.columns);
    walk(def.children);
    // Indexes a bulk load dropped and did not live to rebuild (the SQLite mirror's `bulkLoad`: sqlite/writer.ts `beginBulk`).
    for (const ix of indexesOf(def))
      if (!indexNames.has(ix.name)) work.indexes.push({ table: def.table, ...ix });
  }
  if (existing.has('data_dictionary')) {
    const key = (r: DataDictionaryTable) =>
      JSON.stringify([r.table_name, r.column_name, r.sql_type, r.field ?? null, r.description]);
    const have = (await db.selectFrom('data_dictionary').selectAll().execute()).map(key).sort();
    const want = dictionaryRows(ddl).map(key).sort();
    work.dictionaryStale = have.length !== want.length || have.some((k, i) => k !== want[i]);
  }
  return work;
}

/** Adds the missing columns and indexes, and rewrites the data dictionary when it is stale. */
export async function applySchemaWork(db: AnyDb, ddl: EngineDdl, work: SchemaWork): Promise<void> {
  for (const { table, column } of work.columns)
    await db.schema
      .alterTable(table)
      .addColumn(column.name, ddl.type(columnKind(column)))
      .execute();
  for (const ix of work.indexes)
    await db.schema.createIndex(ix.name).ifNotExists().on(ix.table).column(ix.column).execute();
  if (!work.dictionaryStale) return;
  const rewrite = async (trx: AnyDb) => {
    await trx.deleteFrom('data_dictionary').execute();
    const rows = dictionaryRows(ddl);
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto('data_dictionary')
        .values(rows.slice(i, i + 100))
        .execute();
    }
  };
  // On PostgreSQL the upkeep already runs in the transaction `ddl.exclusive` opened.
  if (db.isTransaction) await rewrite(db);
  else await db.transaction().execute(rewrite);
}
