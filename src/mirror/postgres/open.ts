import { sql } from 'kysely';
import { migrate, pendingMigrations, schemaWork } from '../migrations/index.js';
import { MirrorOpenError, type MirrorOptions } from '../store.js';
import { connectPostgres, pgError } from './connect.js';
import { postgresDdl } from './ddl.js';
import { PgMirror } from './mirror.js';
import { redactUrl } from './url.js';

/**
 * Opens the PostgreSQL mirror a connection string names: connects (a clear error naming host
 * and database when it cannot), then runs what the migrations need (nothing is written when
 * nothing is pending, so a role that may only read can run status and reports). The database
 * must exist; its tables are created on first open unless `mustExist` (commands that only read
 * refuse a database without a mirror, as they refuse a missing file).
 */
export async function openPostgresMirror(url: string, options: MirrorOptions = {}): Promise<PgMirror> {
  const location = redactUrl(url);
  const { pool, db } = await connectPostgres(url, { max: 10 });
  try {
    const exists = await sql<{ t: string | null }>`select to_regclass('kysely_migration')::text as t`.execute(
      db,
    );
    if ((options.mustExist || options.readonlyFallback || options.readonly) && exists.rows[0]?.t == null)
      throw new MirrorOpenError(`no mirror in ${location}: run ohs sync first (or pass --db)`);
    if (options.readonly) {
      const pending = await pendingMigrations(db, postgresDdl);
      const missing = (await schemaWork(db, postgresDdl)).columns.length;
      if (pending.length > 0 || missing > 0)
        throw new MirrorOpenError(
          `${location} needs upgrading (${pending.length > 0 ? `migrations ${pending.join(', ')}` : `${missing} new column(s)`}): run ohs sync once as its owner`,
        );
    } else {
      await migrate(db, postgresDdl);
    }
  } catch (err) {
    await db.destroy();
    throw err instanceof MirrorOpenError ? err : pgError(err, url, 'create or upgrade the mirror tables');
  }
  return new PgMirror(
    location,
    url,
    pool,
    db,
    options.readonly === true,
    options.storeSensitive === true,
    options.history !== false,
  );
}
