import { type ColumnDataType, sql } from 'kysely';
import type { ColumnKind, EngineDdl } from '../ddl.js';

const types: Record<ColumnKind, ColumnDataType> = {
  id: 'integer',
  int: 'integer',
  bigint: 'bigint',
  float: 'real',
  money: 'real',
  text: 'text',
  json: 'text',
};

/** The names SQLite's data dictionary has always used. */
const names: Record<ColumnKind, string> = {
  id: 'INTEGER',
  int: 'INTEGER',
  bigint: 'INTEGER',
  float: 'REAL',
  money: 'REAL',
  text: 'TEXT',
  json: 'TEXT',
};

/**
 * SQLite's answers to the migrations: its dynamic types (REAL keeps cents as a double does, and
 * the reports round to them), AUTOINCREMENT keys, sqlite_master for indexes.
 */
export const sqliteDdl: EngineDdl = {
  engine: 'sqlite',
  type: (kind) => types[kind],
  typeName: (kind) => names[kind],
  serialType: 'integer',
  serialKey: (col) => col.primaryKey().autoIncrement(),
  async tableColumns(db) {
    const out = new Map<string, Set<string>>();
    for (const t of await db.introspection.getTables())
      out.set(t.name, new Set(t.columns.map((c) => c.name.toLowerCase())));
    return out;
  },
  async indexNames(db) {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db);
    return new Set(rows.rows.map((r) => r.name));
  },
  // One process writes a SQLite file at a time (its own write lock): nothing more to hold.
  exclusive: (db, fn) => fn(db),
};
