import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../src/mirror/db-types.js';
import { dictionaryRows } from '../../src/mirror/dictionary.js';
import { openMirror } from '../../src/mirror/index.js';
import { migrate, migrationsFor, pendingMigrations } from '../../src/mirror/migrations/index.js';
import { connectPostgres } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import { sqliteDdl } from '../../src/mirror/sqlite/ddl.js';
import { engines, withTargets } from '../helpers/engines.js';

/**
 * The shared migrations on a real PostgreSQL server: the same tables, columns, indexes, views
 * and data dictionary as on SQLite, with PostgreSQL's types (numeric money, jsonb raw, identity
 * keys), camelCase surviving in the views, and an older mirror upgrading in place.
 */
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
let dir: string;
const dbs: Kysely<Database>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ohs-pg-schema-'));
});
afterAll(async () => {
  for (const db of dbs) await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(_name: string): Promise<Kysely<Database>> {
  const { db } = await connectPostgres(await newDatabase());
  dbs.push(db);
  return db;
}

async function sqliteSchema() {
  const m = await openMirror(join(dir, `s-${Math.random()}.db`));
  try {
    const tables = await sqliteDdl.tableColumns(m.db);
    const indexes = await sqliteDdl.indexNames(m.db);
    return { tables, indexes: [...indexes].filter((n) => !n.startsWith('sqlite_autoindex')) };
  } finally {
    await m.close();
  }
}

async function columnTypes(db: Kysely<Database>, table: string): Promise<Record<string, string>> {
  const rows = await sql<{ column_name: string; data_type: string; is_identity: string }>`
    select column_name, data_type, is_identity from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}`.execute(db);
  return Object.fromEntries(
    rows.rows.map((r) => [r.column_name, r.is_identity === 'YES' ? `${r.data_type} identity` : r.data_type]),
  );
}

describe.skipIf(noPg)('migrations on PostgreSQL', () => {
  test('make the tables, columns, indexes and views SQLite has, with PostgreSQL types', async () => {
    const db = await connect('fresh');
    await migrate(db, postgresDdl);
    expect(await pendingMigrations(db, postgresDdl)).toEqual([]);
    const want = await sqliteSchema();
    const have = await postgresDdl.tableColumns(db);
    // Views are in information_schema.columns too; SQLite's introspection lists them as well.
    expect([...have.keys()].sort()).toEqual([...want.tables.keys()].sort());
    for (const [table, cols] of want.tables)
      expect([...(have.get(table) ?? [])].sort(), table).toEqual([...cols].sort());
    const pgIndexes = [...(await postgresDdl.indexNames(db))].filter(
      (n) => !n.endsWith('_pkey') && !n.endsWith('_pk') && !n.endsWith('_key'),
    );
    expect(pgIndexes.sort()).toEqual(want.indexes.sort());

    const invoice = await columnTypes(db, 'invoice');
    expect(invoice.balance).toBe('numeric');
    expect(invoice.lateFee).toBe('numeric');
    expect(invoice.raw).toBe('jsonb');
    expect(invoice.id).toBe('text'); // invoice ids are strings
    expect(invoice.OrgId).toBe('bigint');
    expect(invoice.synced_at).toBe('text');
    const person = await columnTypes(db, 'person');
    expect(person.lat).toBe('double precision');
    expect((await columnTypes(db, 'sync_run')).id).toBe('bigint identity');
    expect((await columnTypes(db, 'outbox')).balance_before).toBe('numeric');
    expect((await columnTypes(db, 'rate_budget')).tat).toBe('double precision');
    // Text compares byte by byte, as SQLite's BINARY collation.
    const collations = await sql<{ collation_name: string | null }>`
      select distinct collation_name from information_schema.columns
      where table_schema = current_schema() and data_type = 'text'`.execute(db);
    expect(collations.rows).toEqual([{ collation_name: 'C' }]);
    const order = await sql<{ s: string }>`
      select s from (values ('acme'), ('Zed'), ('Acme'), ('2026-01-02T00:00:00Z'), ('2026-01-02 00:00')) v(s)
      order by s collate "C"`.execute(db);
    expect(order.rows.map((r) => r.s)).toEqual([
      '2026-01-02 00:00',
      '2026-01-02T00:00:00Z',
      'Acme',
      'Zed',
      'acme',
    ]);
    const scale = await sql<{ numeric_precision: number; numeric_scale: number }>`
      select numeric_precision, numeric_scale from information_schema.columns
      where table_name = 'invoice' and column_name = 'balance'`.execute(db);
    expect(scale.rows[0]).toEqual({ numeric_precision: 14, numeric_scale: 2 });

    // The data dictionary: the same rows as SQLite's but for the type names.
    const dict = await db.selectFrom('data_dictionary').selectAll().execute();
    const strip = (r: { sql_type: string }) => ({ ...r, sql_type: r.sql_type === '' ? '' : 'T' });
    expect(dict.map(strip).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(
      dictionaryRows(sqliteDdl)
        .map(strip)
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    );
    expect(dict.find((r) => r.table_name === 'invoice' && r.column_name === 'balance')?.sql_type).toBe(
      'numeric(14,2)',
    );
    expect(dict.find((r) => r.table_name === 'invoice' && r.column_name === 'raw')?.sql_type).toBe('jsonb');
  });

  test('views keep camelCase columns; money keeps its cents; values come back as on SQLite', async () => {
    const db = await connect('views');
    await migrate(db, postgresDdl);
    const now = '2026-01-02T03:04:05.000Z';
    const raw = JSON.stringify({ id: 7, OrgId: 3, c_personNameFirst: 'Ada', c_personNameLast: 'Lovelace' });
    await db
      .insertInto('orderitem')
      .values({
        id: 7,
        OrgId: 3,
        c_org: 'Acme',
        c_personNameFirst: 'Ada',
        c_personNameLast: 'Lovelace',
        isNotModifiable: 0,
        raw,
        synced_at: now,
        deleted_at: null,
        seen_pass: null,
      })
      .execute();
    await db
      .insertInto('invoice')
      .values({
        id: 240001,
        OrgId: 3,
        c_org: 'Acme',
        balance: 1234567.89,
        lateFee: 0.1,
        raw: '{"id":240001}',
        synced_at: now,
        deleted_at: null,
        seen_pass: null,
      })
      .execute();
    const item = await sql<Record<string, unknown>>`select * from v_orderitem`.execute(db);
    expect(item.rows).toEqual([
      expect.objectContaining({
        order_item_id: 7,
        org_id: 3,
        org: 'Acme',
        person: 'Ada Lovelace',
        is_open: 1,
      }),
    ]);
    const open = await sql<
      Record<string, unknown>
    >`select invoice_id, balance, late_fee from v_invoice_open`.execute(db);
    // Invoice ids are text (the service's ids of invoices are strings), as on SQLite.
    expect(open.rows).toEqual([{ invoice_id: '240001', balance: 1234567.89, late_fee: 0.1 }]);
    const sum = await sql<{
      s: number;
      n: number;
    }>`select sum(balance + "lateFee") as s, count(*) as n from invoice`.execute(db);
    expect(sum.rows[0]).toEqual({ s: 1234567.99, n: 1 });
    const back = await db.selectFrom('orderitem').select('raw').executeTakeFirstOrThrow();
    expect(typeof back.raw).toBe('string');
    expect(JSON.parse(back.raw)).toEqual(JSON.parse(raw));
    expect((await sql<{ org_name: string }>`select org_name from v_org_name`.execute(db)).rows).toEqual([
      { org_name: 'Acme' },
    ]);
    const run = await db
      .insertInto('sync_run')
      .values({
        kind: 'sync',
        started_at: now,
        ended_at: null,
        mode: 'full',
        streams: '[]',
        outcome: 'running',
        error_code: null,
        error: null,
        pid: 1,
        requests: 0,
        retries: 0,
        host: 'h',
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(run.id).toBe(1);
  });

  test('an older mirror upgrades in place, keeping its rows', async () => {
    const db = await connect('older');
    const all = migrationsFor(postgresDdl);
    const firstFive = Object.fromEntries(Object.entries(all).slice(0, 5));
    const r = await new Migrator({
      db,
      provider: { getMigrations: async () => firstFive },
    }).migrateToLatest();
    expect(r.error).toBeUndefined();
    await db
      .insertInto('outbox')
      .values({
        idempotency_key: 'k',
        content_key: 'c',
        op: 'payment',
        target_id: null,
        body: '{}',
        summary: 's',
        flags: '[]',
        state: 'queued',
        attempts: 0,
        request: null,
        response: null,
        error: null,
        balance_before: 10.25,
        verify: null,
        resolution: null,
        result_id: null,
        confirmed_at: null,
        file: 'f.csv',
        row: 2,
        created_at: 'x',
        updated_at: 'x',
      } as never)
      .execute();
    expect(await pendingMigrations(db, postgresDdl)).toEqual([
      '0006_writeback_claims',
      '0007_sync_passes',
      '0008_run_host_type_errors',
      '0009_rate_budget',
      '0010_deletion_restored',
      '0011_history',
      '0012_policy_history',
      '0013_policy_effective_from',
      '0014_outbox_held',
      '0015_invoice_open_view',
      '0016_outbox_released_by',
      '0017_outbox_event',
    ]);
    await migrate(db, postgresDdl);
    expect(await pendingMigrations(db, postgresDdl)).toEqual([]);
    const row = await db
      .selectFrom('outbox')
      .select(['id', 'balance_before', 'claimed_by'])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ id: 1, balance_before: 10.25, claimed_by: null });
    expect((await postgresDdl.tableColumns(db)).has('rate_budget')).toBe(true);
  });

  test('two processes opening one new mirror at once both succeed', async () => {
    const url = await newDatabase();
    const a = await connectPostgres(url);
    const b = await connectPostgres(url);
    dbs.push(a.db, b.db);
    await Promise.all([migrate(a.db, postgresDdl), migrate(b.db, postgresDdl)]);
    expect(await pendingMigrations(a.db, postgresDdl)).toEqual([]);
    const n = await a.db
      .selectFrom('data_dictionary')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(n.n).toBe(dictionaryRows(postgresDdl).length);
  });

  test('a lost index and a stale dictionary are restored on open', async () => {
    const db = await connect('upkeep');
    await migrate(db, postgresDdl);
    await sql`drop index "orderitem_OrgId_idx"`.execute(db);
    await sql`update data_dictionary set description = 'stale' where table_name = 'invoice'`.execute(db);
    await migrate(db, postgresDdl);
    expect((await postgresDdl.indexNames(db)).has('orderitem_OrgId_idx')).toBe(true);
    const stale = await sql<{
      n: number;
    }>`select count(*) as n from data_dictionary where description = 'stale'`.execute(db);
    expect(stale.rows[0]?.n).toBe(0);
  });
});
