import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { OhsError } from '../../errors.js';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { sqliteDdl } from '../sqlite/ddl.js';
import { migration as m0001 } from './0001-initial.js';
import { migration as m0002 } from './0002-org-policy.js';
import { migration as m0003 } from './0003-job-run.js';
import { migration as m0004 } from './0004-outbox.js';
import { migration as m0005 } from './0005-mirror-meta.js';
import { migration as m0006 } from './0006-writeback-claims.js';
import { migration as m0007 } from './0007-sync-passes.js';
import { migration as m0008 } from './0008-run-host-type-errors.js';
import { migration as m0009 } from './0009-rate-budget.js';
import { migration as m0010 } from './0010-deletion-restored.js';
import { migration as m0011 } from './0011-history.js';
import { migration as m0012 } from './0012-policy-history.js';
import { migration as m0013 } from './0013-policy-effective-from.js';
import { migration as m0014 } from './0014-outbox-held.js';
import { migration as m0015 } from './0015-invoice-open-view.js';
import { migration as m0016 } from './0016-outbox-released-by.js';
import { migration as m0017 } from './0017-outbox-event.js';
import { applySchemaWork, pending, schemaWork } from './schema-work.js';

/**
 * Numbered migrations, run on open: an older mirror upgrades in place. One file each
 * (`NNNN-name.ts`, exporting `migration`), run in the order listed here; the views of the first
 * are in views.ts. After them, the upkeep (schema-work.ts) adds any column the schema module has
 * gained since the mirror was made, so a new field of the interface never needs a hand-written
 * migration; the data dictionary is rewritten to match. Nothing is written when nothing is
 * pending.
 *
 * The migrations are shared by the engines: portable DDL through Kysely's schema builder, every
 * column typed by its kind (`ddl.type('money')`: REAL on SQLite, numeric(14,2) on PostgreSQL),
 * generated keys through `ddl.serialKey`, identifiers always quoted by the builder (camelCase
 * survives on PostgreSQL, in the views too). What differs per engine is in `sqlite/ddl.ts` and
 * `postgres/ddl.ts`. A migration never changes what an older SQLite file ends up with.
 */

/** The numbered migrations, with the engine's types (the names are what every mirror records). */
export function migrationsFor(ddl: EngineDdl): Record<string, Migration> {
  return {
    '0001_initial': m0001(ddl),
    '0002_org_policy': m0002(ddl),
    '0003_job_run': m0003(ddl),
    '0004_outbox': m0004(ddl),
    '0005_mirror_meta': m0005(ddl),
    '0006_writeback_claims': m0006(ddl),
    '0007_sync_passes': m0007(ddl),
    '0008_run_host_type_errors': m0008(ddl),
    '0009_rate_budget': m0009(ddl),
    '0010_deletion_restored': m0010(ddl),
    '0011_history': m0011(ddl),
    '0012_policy_history': m0012(ddl),
    '0013_policy_effective_from': m0013(ddl),
    '0014_outbox_held': m0014(ddl),
    '0015_invoice_open_view': m0015(ddl),
    '0016_outbox_released_by': m0016(ddl),
    '0017_outbox_event': m0017(ddl),
  };
}

const providerFor = (ddl: EngineDdl): MigrationProvider => ({
  getMigrations: async () => migrationsFor(ddl),
});

export class MigrationError extends OhsError {
  override name = 'MigrationError';
  constructor(message: string, cause?: unknown) {
    super('MIGRATION_FAILED', message, { cause });
  }
}

/** Names of the numbered migrations this mirror has not run yet (reads only). */
export async function pendingMigrations(db: Kysely<Database>, ddl: EngineDdl = sqliteDdl): Promise<string[]> {
  const all = await new Migrator({ db, provider: providerFor(ddl) }).getMigrations();
  return all.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/**
 * Runs what the mirror needs and nothing else: a mirror that is up to date is not written at all
 * (a full disk, or a file another user owns, must not stop `ohs status` or `ohs report`).
 * On PostgreSQL, Kysely's migrator runs the migrations in one transaction under an advisory
 * lock, and the upkeep after them runs under another (`ddl.exclusive`): two hosts opening one
 * mirror at once neither race nor fail.
 */
export async function migrate(db: Kysely<Database>, ddl: EngineDdl = sqliteDdl): Promise<void> {
  if ((await pendingMigrations(db, ddl)).length > 0) {
    const migrator = new Migrator({ db, provider: providerFor(ddl) });
    const { error, results } = await migrator.migrateToLatest();
    if (error !== undefined) {
      const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
      throw new MigrationError(
        `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
  }
  if (!pending(await schemaWork(db, ddl))) return;
  await ddl.exclusive(db, async (x) => applySchemaWork(x, ddl, await schemaWork(x, ddl)));
}

export { schemaWork } from './schema-work.js';
