import type { ColumnDataType, ColumnDefinitionBuilder, Kysely, RawBuilder } from 'kysely';
import type { Database } from './db-types.js';

/**
 * What the numbered migrations need to know of an engine: the type of each kind of column, how
 * a generated key is declared, and how to list what the schema holds. The migrations themselves
 * (src/mirror/migrations/) are shared; each engine's answers live in its folder
 * (`sqlite/ddl.ts`, `postgres/ddl.ts`).
 */
export type ColumnKind =
  /** A record id or an `...Id` link to one (whole number; 64-bit on PostgreSQL). */
  | 'id'
  /** A count, a flag (0/1), a reference to a run. */
  | 'int'
  /** A 64-bit whole number (epoch milliseconds). */
  | 'bigint'
  /** A number that may carry a fraction (coordinates, rates, percentages). */
  | 'float'
  /** An amount of money: exact cents. */
  | 'money'
  | 'text'
  /** A record's JSON as received (`raw`). */
  | 'json';

export interface EngineDdl {
  readonly engine: 'sqlite' | 'postgres';
  /** The column type of a kind, as Kysely's schema builder takes it. */
  type(kind: ColumnKind): ColumnDataType | RawBuilder<unknown>;
  /** The type as the data dictionary names it. */
  typeName(kind: ColumnKind): string;
  /** The type of a generated key column (`id` of runs, history, outbox). */
  readonly serialType: ColumnDataType;
  /** Declares a generated primary key (SQLite AUTOINCREMENT, PostgreSQL identity). */
  serialKey(col: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Tables of the mirror and their columns (lower case), in the mirror's own schema only. */
  tableColumns(db: Kysely<Database>): Promise<Map<string, Set<string>>>;
  /** Names of the secondary indexes the mirror has. */
  indexNames(db: Kysely<Database>): Promise<Set<string>>;
  /**
   * Runs the schema upkeep that follows the migrations (new columns, lost indexes, the data
   * dictionary) so that two processes opening the mirror at once do not both do it.
   */
  exclusive<T>(db: Kysely<Database>, fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** After rows were copied in with their ids (copy.ts): generated keys continue after them. */
  afterCopy?(db: Kysely<Database>, serialTables: readonly string[]): Promise<void>;
}
