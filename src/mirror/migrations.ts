import {
  type ColumnDataType,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import { OhsError } from '../errors.js';
import type { Database } from './db-types.js';
import { dictionaryRows } from './dictionary.js';
import { type ChildTableDef, type ColumnDef, indexesOf, type SqlType, tableDefs } from './tables.js';

/**
 * Numbered migrations, run on open: an older file upgrades in place. After them, `ensureSchema`
 * adds any column the schema module has gained since the file was made, so a new field of the
 * interface never needs a hand-written migration; the data dictionary is rewritten to match.
 */
type AnyDb = Kysely<Database>;

const typeOf: Record<SqlType, ColumnDataType> = { INTEGER: 'integer', REAL: 'real', TEXT: 'text' };

async function createResourceTables(db: AnyDb): Promise<void> {
  for (const def of tableDefs) {
    let t = db.schema.createTable(def.table).ifNotExists();
    for (const c of def.columns) {
      t = t.addColumn(c.name, typeOf[c.type], (col) => (c.field === 'id' ? col.primaryKey().notNull() : col));
    }
    t = t
      .addColumn('raw', 'text', (col) => col.notNull())
      .addColumn('synced_at', 'text', (col) => col.notNull())
      .addColumn('deleted_at', 'text')
      .addColumn('seen_pass', 'text');
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
    for (const child of def.children) await createChildTable(db, child, ['applicant_id']);
  }
}

async function createChildTable(db: AnyDb, child: ChildTableDef, parents: string[]): Promise<void> {
  const parentCols = [...new Set([...parents, child.parentColumn])];
  let t = db.schema.createTable(child.table).ifNotExists();
  for (const c of child.columns) {
    t = t.addColumn(c.name, typeOf[c.type], (col) => (c.field === 'id' ? col.primaryKey().notNull() : col));
  }
  for (const p of parentCols) t = t.addColumn(p, 'integer', (col) => col.notNull());
  t = t.addColumn('raw', 'text', (col) => col.notNull());
  await t.execute();
  for (const c of [...parentCols, ...child.columns.filter((col) => col.link).map((col) => col.name)]) {
    await db.schema.createIndex(`${child.table}_${c}_idx`).ifNotExists().on(child.table).column(c).execute();
  }
  for (const grand of child.children) await createChildTable(db, grand, parentCols);
}

const m0001: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('sync_run')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('streams', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('error', 'text')
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('sync_stream_run')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('pages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('inserted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('unchanged', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('retries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('error', 'text')
      .execute();
    await db.schema
      .createIndex('sync_stream_run_run_id_idx')
      .on('sync_stream_run')
      .column('run_id')
      .execute();
    await db.schema
      .createTable('sync_checkpoint')
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('part', 'integer', (c) => c.notNull())
      .addColumn('pass_id', 'text', (c) => c.notNull())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('cursor', 'text')
      .addColumn('upper', 'text')
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('sync_checkpoint_pk', ['stream', 'part'])
      .execute();
    await db.schema
      .createTable('sync_stream_state')
      .addColumn('stream', 'text', (c) => c.primaryKey())
      .addColumn('last_run_id', 'integer')
      .addColumn('last_success_at', 'text')
      .addColumn('last_full_at', 'text')
      .addColumn('pass_id', 'text')
      .addColumn('pass_started_at', 'text')
      .execute();
    await db.schema
      .createTable('sync_deletion')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('run_id', 'integer', (c) => c.notNull())
      .addColumn('stream', 'text', (c) => c.notNull())
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addColumn('row_id', 'text', (c) => c.notNull())
      .addColumn('deleted_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('sync_lock')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('acquired_at', 'text', (c) => c.notNull())
      .addColumn('heartbeat_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('orderitem_status_history')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('orderitem_id', 'integer', (c) => c.notNull())
      .addColumn('status_id', 'integer')
      .addColumn('status_code', 'text')
      .addColumn('status_name', 'text')
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('orderitem_status_history_item_idx')
      .on('orderitem_status_history')
      .columns(['orderitem_id', 'id'])
      .execute();
    await db.schema
      .createTable('data_dictionary')
      .addColumn('table_name', 'text', (c) => c.notNull())
      .addColumn('column_name', 'text', (c) => c.notNull())
      .addColumn('sql_type', 'text', (c) => c.notNull())
      .addColumn('field', 'text')
      .addColumn('description', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('data_dictionary_pk', ['table_name', 'column_name'])
      .execute();
    await createResourceTables(db);
    await createViews(db);
  },
};

/** Views that join names in, for BI users (portable SQL through Kysely's builder). */
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
    .select(['named.OrgId as org_id', sql<string>`max(named.c_org)`.as('org_name')])
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
          sql<string>`trim(coalesce(o.c_personNameFirst, '') || ' ' || coalesce(o.c_personNameLast, ''))`.as(
            'person',
          ),
          'o.c_currentStatusCodeName as status',
          'o.CurrentStatusId as status_id',
          'o.CreationTimestamp as created_at',
          sql<number>`case when o.isNotModifiable = 1 then 0 else 1 end`.as('is_open'),
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
 * Org rate policies (REPORTS.md "Where the inputs come from"): the service has no Org read, so
 * rpMinDrug / rpMinAlc / rpDotRegistrationNumber / Parent~OrgId come from orgs created through
 * write-back and from policy files (`ohs policy import`).
 */
const m0002: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('org_policy')
      .addColumn('org_id', 'integer', (c) => c.primaryKey().notNull())
      .addColumn('program', 'text', (c) => c.notNull())
      .addColumn('agency', 'text')
      .addColumn('rp_min_drug', 'real')
      .addColumn('rp_min_alc', 'real')
      .addColumn('dot_registration_number', 'text')
      .addColumn('parent_org_id', 'integer')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('org_policy_parent_org_id_idx')
      .on('org_policy')
      .column('parent_org_id')
      .execute();
  },
};

/** Runs of jobs (nightly, sync, reports): start, end, outcome, outputs. */
const m0003: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('job_run')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('job', 'text', (c) => c.notNull())
      .addColumn('trigger', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('error_code', 'text')
      .addColumn('error', 'text')
      .addColumn('outputs', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('sync_run_id', 'integer')
      .addColumn('pid', 'integer', (c) => c.notNull())
      .execute();
  },
};

/**
 * The write-back outbox (DESIGN.md "Write-back"): one row per planned change, its state
 * (queued, sent, applied, failed, unknown), what was sent and answered, and the re-read check.
 */
const m0004: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('outbox')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
      .addColumn('content_key', 'text', (c) => c.notNull())
      .addColumn('op', 'text', (c) => c.notNull())
      .addColumn('target_id', 'text')
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('flags', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('request', 'text')
      .addColumn('response', 'text')
      .addColumn('error', 'text')
      .addColumn('balance_before', 'real')
      .addColumn('verify', 'text')
      .addColumn('resolution', 'text')
      .addColumn('result_id', 'text')
      .addColumn('confirmed_at', 'text')
      .addColumn('file', 'text', (c) => c.notNull())
      .addColumn('row', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_state_idx').on('outbox').column('state').execute();
    await db.schema.createIndex('outbox_content_key_idx').on('outbox').column('content_key').execute();
  },
};

/**
 * Facts about the mirror itself (key/value): which service filled it (`source.base_url`, set by
 * the first sync; `source.last_base_url`, by every sync), so a guard or the demo can tell a
 * mirror of another service. See meta.ts.
 */
const m0005: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('mirror_meta')
      .addColumn('key', 'text', (c) => c.primaryKey().notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};

/**
 * Write-back exactly once (issue 11): who claimed an outbox item (`queued -> sending`) and when,
 * when and in which apply run its outcome became unknown, and every reconciliation read of it.
 */
const m0006: Migration = {
  async up(db: AnyDb) {
    for (const column of ['claimed_by', 'claimed_at', 'unknown_at', 'unknown_run', 'evidence']) {
      await db.schema.alterTable('outbox').addColumn(column, 'text').execute();
    }
  },
};

const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_org_policy': m0002,
  '0003_job_run': m0003,
  '0004_outbox': m0004,
  '0005_mirror_meta': m0005,
  '0006_writeback_claims': m0006,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export class MigrationError extends OhsError {
  override name = 'MigrationError';
  constructor(message: string, cause?: unknown) {
    super('MIGRATION_FAILED', message, { cause });
  }
}

export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(
      `migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`,
      error,
    );
  }
  await ensureSchema(db);
}

/** Adds columns the schema module has gained, and rewrites the data dictionary. */
async function ensureSchema(db: AnyDb): Promise<void> {
  const existing = new Map<string, Set<string>>();
  for (const t of await db.introspection.getTables()) {
    existing.set(t.name, new Set(t.columns.map((c) => c.name.toLowerCase())));
  }
  const add = async (table: string, cols: ColumnDef[]) => {
    const have = existing.get(table);
    if (have === undefined) return;
    for (const c of cols) {
      if (!have.has(c.name.toLowerCase()))
        await db.schema.alterTable(table).addColumn(c.name, typeOf[c.type]).execute();
    }
  };
  const walk = async (children: ChildTableDef[]) => {
    for (const child of children) {
      await add(child.table, child.columns);
      await walk(child.children);
    }
  };
  for (const def of tableDefs) {
    await add(def.table, def.columns);
    await walk(def.children);
    // Recreates indexes a bulk load dropped and did not live to rebuild (see SqliteAdapter.bulkLoad).
    for (const ix of indexesOf(def)) {
      await db.schema.createIndex(ix.name).ifNotExists().on(def.table).column(ix.column).execute();
    }
  }
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('data_dictionary').execute();
    const rows = dictionaryRows();
    for (let i = 0; i < rows.length; i += 100) {
      await trx
        .insertInto('data_dictionary')
        .values(rows.slice(i, i + 100))
        .execute();
    }
  });
}
