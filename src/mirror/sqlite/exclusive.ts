import type { Kysely } from 'kysely';
import type { Database as MirrorDb } from '../db-types.js';
import type { SqliteDatabase } from './driver.js';

/** Runs `fn` with the one SQLite connection held: no Kysely query and no other write runs meanwhile. */
export type Exclusive = <T>(
  fn: (sqlite: SqliteDatabase, conn: Kysely<MirrorDb>) => T | Promise<T>,
) => Promise<T>;
