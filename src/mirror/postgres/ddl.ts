import { type ColumnDataType, type RawBuilder, sql } from 'kysely';
import type { ColumnKind, EngineDdl } from '../ddl.js';

/**
 * Text compares byte by byte (COLLATE "C"), as SQLite's BINARY: ORDER BY and `>` on names, ids
 * and ISO timestamps give what they give on SQLite (a server's en_US collation would ignore the
 * punctuation of '2026-01-02T...' and sort 'acme' beside 'Acme'), so reports match cell for cell.
 */
const types: Record<ColumnKind, ColumnDataType | RawBuilder<unknown>> = {
  id: 'bigint',
  int: 'integer',
  bigint: 'bigint',
  float: 'double precision',
  money: 'numeric(14, 2)',
  text: sql`text collate "C"`,
  json: 'jsonb',
};

const names: Record<ColumnKind, string> = {
  id: 'bigint',
  int: 'integer',
  bigint: 'bigint',
  float: 'double precision',
  money: 'numeric(14,2)',
  text: 'text',
  json: 'jsonb',
};

/**
 * PostgreSQL's answers to the migrations: 64-bit ids, exact money (`numeric(14,2)`, never the
 * 4-byte `real`), `jsonb` raw records, identity keys (BY DEFAULT, so a mirror copied from SQLite
 * keeps its ids), and the catalogue of the mirror's own schema (`current_schema()`: a BI schema
 * beside it is not the mirror's).
 */
export const postgresDdl: EngineDdl = {
  engine: 'postgres',
  type: (kind) => types[kind],
  typeName: (kind) => names[kind],
  serialType: 'bigint',
  serialKey: (col) => col.primaryKey().generatedByDefaultAsIdentity(),
  // As Kysely's SQLite introspection: the migrator's own tables left out.
  async tableColumns(db) {
    const rows = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_schema = current_schema() and table_name not like 'kysely\_%'`.execute(db);
    const out = new Map<string, Set<string>>();
    for (const r of rows.rows) {
      const cols = out.get(r.table_name) ?? new Set<string>();
      cols.add(r.column_name.toLowerCase());
      out.set(r.table_name, cols);
    }
    return out;
  },
  async indexNames(db) {
    const rows = await sql<{ name: string }>`
      select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db);
    return new Set(rows.rows.map((r) => r.name));
  },
  // Identity keys do not follow ids inserted explicitly (SQLite's AUTOINCREMENT does).
  async afterCopy(db, serialTables) {
    for (const t of serialTables)
      await sql`select setval(pg_get_serial_sequence(${t}, 'id'), coalesce((select max(id) from ${sql.table(t)}), 0) + 1, false)`.execute(
        db,
      );
  },
  // Two hosts may open the mirror at the same moment: the upkeep runs in one transaction under a
  // transaction-level advisory lock, the second process finding the work done.
  exclusive: (db, fn) =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('ohs.schema'))`.execute(trx);
      return fn(trx);
    }),
};
