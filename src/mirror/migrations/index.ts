import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { OhsError } from '../errors.js';
import type { Database } from './db-types.js';
import type { EngineDdl } from './ddl.js';
import { createHistory } from './history.js';
import { policyHistoryMigration } from './policy-history.js';
import { applySchemaWork, pending, schemaWork } from './schema-work.js';
import { sqliteDdl } from './sqlite/ddl.js';
import { type ChildTableDef, columnKind, tableDefs } from './tables.js';

/**
 * Numbered migrations, run on open: an older mirror upgrades in place. After them, `ensureSchema`
 * adds any column the schema module has gained since the mirror was made, so a new field of the
 * interface never needs a hand-written migration; the data dictionary is rewritten to match.
 * Nothing is written when nothing is pending.
 *
 * The migrations are shared by the engines: portable DDL through Kysely's schema builder, every
 * column typed by its kind (`ddl.type('money')`: REAL on SQLite, numeric(14,2) on PostgreSQL),
 * generated keys through `ddl.serialKey`, identifiers always quoted by the builder (camelCase
 * survives on PostgreSQL, in the views too). What differs per engine is in `sqlite/ddl.ts` and
 * `postgres/ddl.ts`. A migration never changes what an older SQLite file ends up with.
 */
type AnyDb = Kysely<Database>;

async function createResourceTables(db: AnyDb, ddl: EngineDdl): Promise<void> {
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
  db: AnyDb,
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

const m0001 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
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

/**
 * Views that join names in, for BI users (portable SQL through Kysely's builder; a column named
 * inside raw `sql` goes through `sql.ref`, so it is quoted and camelCase survives PostgreSQL).
 */
async function createViews(db: AnyDb): Promise<void> {
  const orgNames = db
    .selectFrom(
      db
        .selectFrom('orderitem')
        .select(['OrgId', 'c_org'])
        .where('deleted_at', 'is', null)
        .unionAll(db.selectFrom('invoice').select(['OrgId', 'c_org']).where('deleted_at', 'is', null))
        .as('named'),
    )
    .select(['named.OrgId as org_id', sql<string>`max(${sql.ref('named.c_org')})`.as('org_name')])
    .where('named.OrgId', 'is not', null)
    .groupBy('named.OrgId');
  await db.schema.createView('v_org_name').as(orgNames).execute();
  await db.schema
    .createView('v_orderitem')
    .as(
      db
        .selectFrom('orderitem as o')
        .select([
          'o.id as order_item_id',
          'o.OrgId as org_id',
          'o.c_org as org',
          'o.c_productName as product',
          sql<string>`trim(coalesce(${sql.ref('o.c_personNameFirst')}, '') || ' ' || coalesce(${sql.ref('o.c_personNameLast')}, ''))`.as(
            'person',
          ),
          'o.c_currentStatusCodeName as status',
          'o.CurrentStatusId as status_id',
          'o.CreationTimestamp as created_at',
          sql<number>`case when ${sql.ref('o.isNotModifiable')} = 1 then 0 else 1 end`.as('is_open'),
          'o.orderedBy as ordered_by',
          'o.Parent_OrderItemId as parent_order_item_id',
        ])
        .where('o.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_invoice_open')
    .as(
      db
        .selectFrom('invoice as i')
        .select([
          'i.id as invoice_id',
          'i.OrgId as org_id',
          'i.c_org as org',
          'i.date',
          'i.dateDue as date_due',
          'i.balance',
          'i.lateFee as late_fee',
        ])
        .where('i.deleted_at', 'is', null)
        .where('i.balance', '<>', 0),
    )
    .execute();
  await db.schema
    .createView('v_user')
    .as(
      db
        .selectFrom('user as u')
        .leftJoin('role as r', 'r.id', 'u.RoleId')
        .select([
          'u.id as user_id',
          'u.nameFirstLast as name',
          'u.email',
          'u.status',
          'r.name as role',
          'u.PersonId as person_id',
        ])
        .where('u.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_orgmonth')
    .as(
      db
        .selectFrom('orgmonth as m')
        .leftJoin('v_org_name as n', 'n.org_id', 'm.OrgId')
        .select([
          'm.id as orgmonth_id',
          'm.OrgId as org_id',
          'n.org_name as org',
          'm.label',
          'm.countEligibleRandomPool as pool',
          'm.countPickedDrug as drug_picked',
          'm.countPickedDrugResult as drug_completed',
          'm.countPickedAlcohol as alcohol_picked',
          'm.countPickedAlcoholResult as alcohol_completed',
        ])
        .where('m.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_hsvendor')
    .as(
      db
        .selectFrom('hsvendor as v')
        .leftJoin('v_org_name as n', 'n.org_id', 'v.OrgId')
        .select(['v.id as vendor_id', 'v.name as vendor', 'v.OrgId as org_id', 'n.org_name as org'])
        .where('v.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_applicant_info_item')
    .as(
      db
        .selectFrom('applicant_info_item as it')
        .innerJoin('applicant_info as inf', 'inf.id', 'it.info_id')
        .innerJoin('applicant as a', 'a.id', 'it.applicant_id')
        .select([
          'a.id as applicant_id',
          'a.PersonId as person_id',
          'inf.id as info_id',
          'inf.ProductId as product_id',
          'inf.orderItemDate as order_item_date',
          'it.id as info_item_id',
          'it.c_attributeField as attribute',
          'it.valueText as value_text',
          'it.valueNumber as value_number',
          'it.valueDate as value_date',
        ])
        .where('a.deleted_at', 'is', null),
    )
    .execute();
}

/**
 * Org rate policies (docs/reports.md): the service has no Org read, so
 * rpMinDrug / rpMinAlc / rpDotRegistrationNumber / Parent~OrgId come from orgs created through
 * write-back and from policy files (`ohs policy import`).
 */
const m0002 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable('org_policy')
      .addColumn('org_id', ddl.type('id'), (c) => c.primaryKey().notNull())
      .addColumn('program', ddl.type('text'), (c) => c.notNull())
      .addColumn('agency', ddl.type('text'))
      .addColumn('rp_min_drug', ddl.type('float'))
      .addColumn('rp_min_alc', ddl.type('float'))
      .addColumn('dot_registration_number', ddl.type('text'))
      .addColumn('parent_org_id', ddl.type('id'))
      .addColumn('source', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('org_policy_parent_org_id_idx')
      .on('org_policy')
      .column('parent_org_id')
      .execute();
  },
});

/** Runs of jobs (nightly, sync, reports): start, end, outcome, outputs. */
const m0003 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable('job_run')
      .addColumn('id', ddl.serialType, (c) => ddl.serialKey(c))
      .addColumn('job', ddl.type('text'), (c) => c.notNull())
      .addColumn('trigger', ddl.type('text'), (c) => c.notNull())
      .addColumn('started_at', ddl.type('text'), (c) => c.notNull())
      .addColumn('ended_at', ddl.type('text'))
      .addColumn('outcome', ddl.type('text'), (c) => c.notNull())
      .addColumn('error_code', ddl.type('text'))
      .addColumn('error', ddl.type('text'))
      .addColumn('outputs', ddl.type('text'), (c) => c.notNull().defaultTo('[]'))
      .addColumn('sync_run_id', 'integer')
      .addColumn('pid', 'integer', (c) => c.notNull())
      .execute();
  },
});

/**
 * The write-back outbox (docs/writeback.md): one row per planned change, its state
 * (queued, sent, applied, failed, unknown), what was sent and answered, and the re-read check.
 */
const m0004 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
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

/**
 * Facts about the mirror itself (key/value): which service filled it (`source.base_url`, set by
 * the first sync; `source.last_base_url`, by every sync), so a guard or the demo can tell a
 * mirror of another service. See meta.ts.
 */
const m0005 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable('mirror_meta')
      .addColumn('key', ddl.type('text'), (c) => c.primaryKey().notNull())
      .addColumn('value', ddl.type('text'), (c) => c.notNull())
      .addColumn('updated_at', ddl.type('text'), (c) => c.notNull())
      .execute();
  },
});

/**
 * Write-back exactly once: who claimed an outbox item (`queued -> sending`) and when,
 * when and in which apply run its outcome became unknown, and every reconciliation read of it.
 */
const m0006 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    for (const column of ['claimed_by', 'claimed_at', 'unknown_at', 'unknown_run', 'evidence']) {
      await db.schema.alterTable('outbox').addColumn(column, ddl.type('text')).execute();
    }
  },
});

/**
 * Passes that write only what changed: the ids a pass saw
 * (or found gone, or failed to read) in their own table instead of a mark rewritten on every row;
 * changed records staged until the pass's deletions pass the guard; ids a pass failed to read,
 * retried by the next run; the rotating re-read's cursor; records fetched per stream run.
 */
const m0007 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
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

/**
 * the host of each run, so `ohs status` can tell a run whose process
 * died (SIGKILL, power loss) from one still going; and the records a sync kept although a field
 * had the wrong type, counted per run, stream and field, for `ohs status` and the reports.
 */
const m0008 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema.alterTable('sync_run').addColumn('host', ddl.type('text')).execute();
    await db.schema
      .createTable('sync_type_error')
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', ddl.type('text'), (c) => c.notNull())
      .addColumn('field', ddl.type('text'), (c) => c.notNull())
      .addColumn('expected', ddl.type('text'), (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addColumn('example_id', ddl.type('text'))
      .addPrimaryKeyConstraint('sync_type_error_pk', ['run_id', 'stream', 'field'])
      .execute();
  },
});

/**
 * The rate budget every process on the mirror shares (one row per service and token hash): the
 * adaptive rate controller's state and a token bucket. See rate-budget.ts.
 */
const m0009 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable('rate_budget')
      .addColumn('key', ddl.type('text'), (c) => c.primaryKey().notNull())
      .addColumn('rate', ddl.type('float'))
      .addColumn('w_max', ddl.type('float'), (c) => c.notNull())
      .addColumn('cut_at', 'bigint', (c) => c.notNull())
      .addColumn('tat', ddl.type('float'), (c) => c.notNull())
      .addColumn('good_rate', ddl.type('float'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .execute();
  },
});

/**
 * a soft-deleted row seen again is restored, and the restoration recorded on its
 * deletion's audit row (when, by which run), so the history says the row came back.
 */
const m0010 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await db.schema.alterTable('sync_deletion').addColumn('restored_at', ddl.type('text')).execute();
    await db.schema.alterTable('sync_deletion').addColumn('restored_run_id', 'integer').execute();
  },
});

/**
 * The mirror remembers: a history table per resource, the `*_history` views, and the
 * present of an existing mirror as its first version (see history.ts).
 */
const m0011 = (ddl: EngineDdl): Migration => ({
  async up(db: AnyDb) {
    await createHistory(db, ddl);
  },
});

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
    '0012_policy_history': policyHistoryMigration(ddl),
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

export { type SchemaWork, schemaWork } from './schema-work.js';
