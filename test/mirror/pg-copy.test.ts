import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { copyMirror, MirrorCopyError } from '../../src/mirror/copy.js';
import type { Database } from '../../src/mirror/db-types.js';
import { maskRecord, tableOf } from '../../src/mirror/index.js';
import { migrate } from '../../src/mirror/migrations/index.js';
import { connectPostgres } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import { sqliteDdl } from '../../src/mirror/sqlite/ddl.js';
import { sqliteDriver } from '../../src/mirror/sqlite/driver.js';
import { resources } from '../../src/schema/index.js';
import { seedData } from '../../src/sim/seed.js';
import { engines, withTargets } from '../helpers/engines.js';

/**
 * Copying a mirror between engines (SQLite to PostgreSQL and back): every row of every table
 * arrives, with its ids; generated keys continue after the copied ones; a target that is not
 * empty is refused.
 */
type Row = Record<string, unknown>;
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
let dir: string;
const open: Kysely<Database>[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ohs-copy-'));
});
afterAll(async () => {
  for (const db of open) await db.destroy();
  rmSync(dir, { recursive: true, force: true });
});

async function sqliteDb(name: string): Promise<Kysely<Database>> {
  const { Database: Sqlite } = sqliteDriver();
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new Sqlite(join(dir, name)) }),
  });
  open.push(db);
  await migrate(db, sqliteDdl);
  return db;
}

async function pgDb(_name: string): Promise<Kysely<Database>> {
  const { db } = await connectPostgres(await newDatabase());
  open.push(db);
  await migrate(db, postgresDdl);
  return db;
}

const value = (v: unknown) =>
  typeof v === 'boolean'
    ? v
      ? 1
      : 0
    : typeof v === 'object' && v !== null
      ? JSON.stringify(v)
      : (v ?? null);

async function fill(db: Kysely<Database>): Promise<void> {
  const seed = seedData({ seed: 3, scale: 0.01, anchorDate: '2026-06-15' }).tables;
  for (const resource of ['OrderItem', 'Invoice', 'Person'] as const) {
    const def = tableOf(resource);
    const rows = seed[resource].all().map((r) => {
      const rec = maskRecord(resources[resource].spec, r as unknown as Row);
      const row: Row = {
        raw: JSON.stringify(rec),
        synced_at: '2026-06-15T00:00:00.000Z',
        deleted_at: null,
        seen_pass: null,
      };
      for (const c of def.columns) row[c.name] = value(rec[c.field]);
      return row;
    });
    for (let i = 0; i < rows.length; i += 200)
      await db
        .insertInto(def.table as 'orderitem')
        .values(rows.slice(i, i + 200) as never[])
        .execute();
  }
  // A value of the wrong type, which SQLite keeps in its column.
  await db
    .updateTable('orderitem')
    .set({ OrgId: 'not a number' } as never)
    .where('id', '=', 500001)
    .execute();
  for (let k = 1; k <= 3; k++)
    await db
      .insertInto('sync_run')
      .values({
        kind: 'sync',
        started_at: `2026-06-1${k}T00:00:00Z`,
        ended_at: null,
        mode: 'full',
        streams: '[]',
        outcome: 'ok',
        error_code: null,
        error: null,
        pid: k,
        requests: 10 * k,
        retries: 0,
        host: 'h',
      })
      .execute();
  await db
    .insertInto('outbox')
    .values({
      idempotency_key: 'k1',
      content_key: 'c1',
      op: 'payment',
      target_id: null,
      body: '{"amountToPay":12.34}',
      summary: 's',
      flags: '[]',
      state: 'applied',
      attempts: 1,
      request: null,
      response: null,
      error: null,
      balance_before: 99.99,
      verify: null,
      resolution: null,
      result_id: '7',
      confirmed_at: null,
      file: 'p.csv',
      row: 2,
      created_at: 'x',
      updated_at: 'x',
      claimed_by: null,
      claimed_at: null,
      unknown_at: null,
      unknown_run: null,
      evidence: null,
    })
    .execute();
  await db
    .insertInto('sync_checkpoint')
    .values({
      stream: 'orderitem',
      part: 1,
      pass_id: 'p',
      mode: 'full',
      cursor: '500010',
      upper: null,
      done: 0,
      updated_at: 'x',
    })
    .execute();
}

async function dump(db: Kysely<Database>, table: string): Promise<Row[]> {
  const rows = (await db
    .selectFrom(table as 'outbox')
    .selectAll()
    .execute()) as Row[];
  return rows
    .map((r) => ({ ...r, ...(typeof r.raw === 'string' ? { raw: JSON.parse(r.raw) } : {}) }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

test.skipIf(noPg)('a SQLite mirror copied to PostgreSQL and back keeps every row', async () => {
  const source = await sqliteDb('source.sqlite');
  await fill(source);
  const pg = await pgDb('copy_target');
  const counts = await copyMirror(source, pg, postgresDdl);
  expect(counts).toMatchObject({ sync_run: 3, outbox: 1, sync_checkpoint: 1 });
  expect(counts.orderitem).toBeGreaterThan(100);

  for (const table of ['sync_run', 'outbox', 'sync_checkpoint', 'invoice', 'person']) {
    expect(await dump(pg, table), table).toEqual(await dump(source, table));
  }
  // The value of the wrong type: null in PostgreSQL's bigint column, kept in raw.
  const odd = await pg
    .selectFrom('orderitem')
    .select(['OrgId', 'raw'])
    .where('id', '=', 500001)
    .executeTakeFirstOrThrow();
  expect(odd.OrgId).toBeNull();
  // Generated keys continue after the copied ids.
  const next = await pg
    .insertInto('sync_run')
    .values({
      kind: 'sync',
      started_at: 'y',
      ended_at: null,
      mode: 'full',
      streams: '[]',
      outcome: 'ok',
      error_code: null,
      error: null,
      pid: 9,
      requests: 0,
      retries: 0,
      host: 'h',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  expect(next.id).toBe(4);

  const back = await sqliteDb('back.sqlite');
  await copyMirror(pg, back, sqliteDdl);
  for (const table of ['outbox', 'sync_checkpoint', 'invoice', 'person'])
    expect(await dump(back, table), table).toEqual(await dump(source, table));
  expect((await dump(back, 'sync_run')).length).toBe(4);

  await expect(copyMirror(source, pg, postgresDdl)).rejects.toBeInstanceOf(MirrorCopyError);
});
