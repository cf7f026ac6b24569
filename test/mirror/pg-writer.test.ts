import { sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { migrate } from '../../src/mirror/migrations/index.js';
import { connectPostgres, createPool } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import type { PgClientLike } from '../../src/mirror/postgres/page.js';
import { PgStatements } from '../../src/mirror/postgres/writer.js';
import { seedData } from '../../src/sim/seed.js';
import { engines, pgAdminUrl, withTargets } from '../helpers/engines.js';

/**
 * The PostgreSQL engine's writes on a real server, with the SQLite writer's semantics: counts,
 * an unchanged record not rewritten, a soft-deleted row seen again restored, audit rows, status
 * history, child rows replaced, pass staging, masking, a page with an id twice.
 */
type Rec = Record<string, unknown>;
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
let pool: pg.Pool;
const seed = seedData({ seed: 7, scale: 0.01, anchorDate: '2026-06-15' }).tables;
const items = seed.OrderItem.all().slice(0, 20) as unknown as Rec[];
const applicants = (seed.Applicant.all() as unknown as Rec[])
  .filter((a) => Array.isArray(a.info) && a.info.length > 0)
  .slice(0, 3);
const T1 = '2026-01-01T00:00:00.000Z';
const T2 = '2026-01-02T00:00:00.000Z';
const T3 = '2026-01-03T00:00:00.000Z';

beforeAll(async () => {
  if (noPg) return;
  const url = await newDatabase();
  const c = await connectPostgres(url);
  await migrate(c.db, postgresDdl);
  await c.db.destroy();
  pool = createPool(url);
});
afterAll(async () => {
  await pool?.end();
});

/** One write transaction on one connection, as PgMirror.write runs it. */
async function tx<T>(fn: (c: PgClientLike) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const out = await fn(client);
    await client.query('COMMIT');
    return out;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
}

async function rows<R>(text: string, values: unknown[] = []): Promise<R[]> {
  return (await pool.query(text, values)).rows as R[];
}

describe.skipIf(noPg)('PostgreSQL page writes', () => {
  const s = new PgStatements(false);

  test('insert, unchanged (not rewritten), changed, soft delete with audit, restore', async () => {
    expect(await tx((c) => s.upsert(c, 'OrderItem', items, { now: T1 }))).toEqual({
      inserted: 20,
      updated: 0,
      unchanged: 0,
    });
    const before = await rows<{ id: number; xmin: string; synced_at: string }>(
      'SELECT id, xmin::text, synced_at FROM orderitem ORDER BY id',
    );
    expect(before).toHaveLength(20);
    expect(await tx((c) => s.upsert(c, 'OrderItem', items, { now: T2 }))).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 20,
    });
    // Not rewritten: same row versions, same sync time.
    expect(await rows('SELECT id, xmin::text, synced_at FROM orderitem ORDER BY id')).toEqual(before);

    const changed = items.map((r, i) =>
      i < 5 ? { ...r, c_productName: `${String(r.c_productName)} v2` } : r,
    );
    expect(await tx((c) => s.upsert(c, 'OrderItem', changed, { now: T2 }))).toEqual({
      inserted: 0,
      updated: 5,
      unchanged: 15,
    });
    const first = items[0] as Rec;
    const row = (await rows<Rec>('SELECT * FROM orderitem WHERE id = $1', [first.id]))[0] ?? {};
    expect(row.c_productName).toBe(`${String(first.c_productName)} v2`);
    expect(row.synced_at).toBe(T2);
    expect(row.OrgId).toBe(first.OrgId);
    expect(row.isNotModifiable).toBe(first.isNotModifiable === true ? 1 : 0);
    expect(JSON.parse(String(row.raw))).toEqual({
      ...first,
      c_productName: `${String(first.c_productName)} v2`,
    });

    const gone = [first.id as number, (items[1] as Rec).id as number];
    expect(
      await tx((c) =>
        s.softDelete(c, 'OrderItem', [...gone, 999_999_999], { runId: 7, stream: 'orderitem', now: T3 }),
      ),
    ).toBe(2);
    // Deleting again changes nothing and writes no second audit row.
    expect(
      await tx((c) => s.softDelete(c, 'OrderItem', gone, { runId: 8, stream: 'orderitem', now: T3 })),
    ).toBe(0);
    expect(
      await rows('SELECT run_id, stream, table_name, row_id, deleted_at FROM sync_deletion ORDER BY row_id'),
    ).toEqual(
      gone
        .map((id) => ({
          run_id: 7,
          stream: 'orderitem',
          table_name: 'orderitem',
          row_id: String(id),
          deleted_at: T3,
        }))
        .sort((a, b) => a.row_id.localeCompare(b.row_id)),
    );
    // Seen again unchanged: restored, counted unchanged, its sync time refreshed.
    const again = await tx((c) => s.upsert(c, 'OrderItem', [changed[1] as Rec], { now: T3 }));
    expect(again).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(await rows('SELECT deleted_at, synced_at FROM orderitem WHERE id = $1', [gone[1]])).toEqual([
      { deleted_at: null, synced_at: T3 },
    ]);
    // A pass marks unchanged rows too.
    await tx((c) => s.upsert(c, 'OrderItem', [items[2] as Rec], { now: T3, pass: 'p1' }));
    expect(await rows('SELECT seen_pass FROM orderitem WHERE id = $1', [(items[2] as Rec).id])).toEqual([
      { seen_pass: 'p1' },
    ]);
  });

  test('a page with an id twice ends as written one by one', async () => {
    const a: Rec = { ...(items[3] as Rec), c_productName: 'twice-1' };
    const b: Rec = { ...(items[3] as Rec), c_productName: 'twice-2' };
    expect(await tx((c) => s.upsert(c, 'OrderItem', [a, b], { now: T3 }))).toEqual({
      inserted: 0,
      updated: 2,
      unchanged: 0,
    });
    expect(await rows('SELECT "c_productName" FROM orderitem WHERE id = $1', [a.id])).toEqual([
      { c_productName: 'twice-2' },
    ]);
  });

  test('status history: a row per status, touched while it stays, a new one when it moves back', async () => {
    const item: Rec = {
      ...(items[4] as Rec),
      CurrentStatusId: 101,
      c_currentStatusCodeId: 'A',
      c_currentStatusCodeName: 'Alpha',
    };
    const moved = {
      ...item,
      CurrentStatusId: 102,
      c_currentStatusCodeId: 'B',
      c_currentStatusCodeName: 'Beta',
    };
    await tx((c) => s.recordStatus(c, [item], T1));
    await tx((c) => s.recordStatus(c, [item], T2));
    await tx((c) => s.recordStatus(c, [moved], T2));
    await tx((c) => s.recordStatus(c, [item, moved], T3)); // back, then forward again, in one page
    expect(
      await rows(
        'SELECT status_id, status_code, status_name, first_seen_at, last_seen_at FROM orderitem_status_history WHERE orderitem_id = $1 ORDER BY id',
        [item.id],
      ),
    ).toEqual([
      { status_id: 101, status_code: 'A', status_name: 'Alpha', first_seen_at: T1, last_seen_at: T2 },
      { status_id: 102, status_code: 'B', status_name: 'Beta', first_seen_at: T2, last_seen_at: T2 },
      { status_id: 101, status_code: 'A', status_name: 'Alpha', first_seen_at: T3, last_seen_at: T3 },
      { status_id: 102, status_code: 'B', status_name: 'Beta', first_seen_at: T3, last_seen_at: T3 },
    ]);
  });

  test('applicants: sensitive fields masked, child rows written and replaced when the record changes', async () => {
    expect(await tx((c) => s.upsert(c, 'Applicant', applicants, { now: T1 }))).toMatchObject({ inserted: 3 });
    const a = applicants[0] as Rec;
    const raw = JSON.parse(
      (await rows<{ raw: string }>('SELECT raw FROM applicant WHERE id = $1', [a.id]))[0]?.raw ?? '{}',
    );
    expect(raw.ssn).not.toBe(a.ssn);
    expect(JSON.stringify(raw)).not.toContain(String(a.ssn));
    const info = a.info as Rec[];
    const infoRows = await rows<Rec>(
      'SELECT id, applicant_id FROM applicant_info WHERE applicant_id = $1 ORDER BY id',
      [a.id],
    );
    expect(infoRows.map((r) => r.id)).toEqual(info.map((i) => i.id).sort((x, y) => Number(x) - Number(y)));
    const itemCount = info.reduce((n, i) => n + ((i.infoItem as unknown[] | undefined)?.length ?? 0), 0);
    const itemRows = await rows<{ n: number }>(
      'SELECT count(*)::int AS n FROM applicant_info_item WHERE applicant_id = $1',
      [a.id],
    );
    expect(itemRows[0]?.n).toBe(itemCount);
    // Changed: one info left, without items.
    const one: Rec = { ...(info[0] as Rec), infoItem: [] };
    expect(await tx((c) => s.upsert(c, 'Applicant', [{ ...a, info: [one] }], { now: T2 }))).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(await rows('SELECT id FROM applicant_info WHERE applicant_id = $1', [a.id])).toEqual([
      { id: one.id },
    ]);
    expect(
      (
        await rows<{ n: number }>(
          'SELECT count(*)::int AS n FROM applicant_info_item WHERE applicant_id = $1',
          [a.id],
        )
      )[0]?.n,
    ).toBe(0);
  });

  test('a pass: pages staged (unchanged ones not), ids seen, then applied and forgotten', async () => {
    const stream = 'orderitem';
    await tx((c) => s.clearPassIds(c, stream));
    const page = items.slice(5, 10).map((r, i) => (i === 0 ? { ...r, c_productName: 'staged change' } : r));
    const fresh = { ...(items[0] as Rec), id: 888_001 };
    const counts = await tx((c) =>
      s.stagePage(c, 'OrderItem', stream, [...page, fresh], T3, { statusHistory: true }),
    );
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 4 });
    expect(await tx((c) => s.stagedCount(c, stream))).toBe(2);
    expect((await tx((c) => s.seenIds(c, stream, 1))).sort()).toEqual(
      [...page, fresh].map((r) => String(r.id)).sort(),
    );
    await tx((c) => s.markSeen(c, stream, [777], 0));
    expect(await tx((c) => s.seenIds(c, stream, 0))).toEqual(['777']);
    // Nothing written before the pass is applied.
    expect(await rows('SELECT id FROM orderitem WHERE id = 888001')).toEqual([]);
    await tx((c) => s.applyPass(c, 'OrderItem', stream, T3, { statusHistory: true }));
    expect(await rows('SELECT "c_productName" FROM orderitem WHERE id = $1', [page[0]?.id])).toEqual([
      { c_productName: 'staged change' },
    ]);
    expect(await rows('SELECT synced_at FROM orderitem WHERE id = 888001')).toEqual([{ synced_at: T3 }]);
    expect(
      (
        await rows<{ n: number }>(
          'SELECT count(*)::int AS n FROM orderitem_status_history WHERE orderitem_id = 888001',
        )
      )[0]?.n,
    ).toBe(1);
    expect(await tx((c) => s.stagedCount(c, stream))).toBe(0);
    expect(await tx((c) => s.seenIds(c, stream, 1))).toEqual([]);
  });

  test('checkpoints and pass state', async () => {
    await tx((c) =>
      s.saveCheckpoint(
        c,
        { stream: 'x', part: 0, pass_id: 'p', mode: 'full', cursor: '10', upper: null, done: 0 },
        T1,
      ),
    );
    await tx((c) =>
      s.saveCheckpoint(
        c,
        { stream: 'x', part: 0, pass_id: 'p', mode: 'full', cursor: '20', upper: null, done: 1 },
        T2,
      ),
    );
    expect(await rows('SELECT cursor, done, updated_at FROM sync_checkpoint')).toEqual([
      { cursor: '20', done: 1, updated_at: T2 },
    ]);
    await tx((c) => s.setPass(c, 'x', 'p', T1));
    await tx((c) => s.setRereadCursor(c, 'x', '5', null));
    await tx((c) => s.setPass(c, 'x', null, T2, 'full'));
    expect(await rows('SELECT * FROM sync_checkpoint')).toEqual([]);
    expect(
      await rows('SELECT pass_id, pass_started_at, last_full_at, reread_cursor FROM sync_stream_state'),
    ).toEqual([{ pass_id: null, pass_started_at: null, last_full_at: T2, reread_cursor: '5' }]);
  });

  test('a value that does not fit its column is stored as null there, kept in raw', async () => {
    const odd = {
      ...(items[6] as Rec),
      id: 888_002,
      OrgId: 'not a number',
      isNotModifiable: 'yes',
      c_org: 42,
    };
    await tx((c) => s.upsert(c, 'OrderItem', [odd], { now: T1 }));
    const row = (
      await rows<Rec>('SELECT "OrgId", "isNotModifiable", c_org, raw FROM orderitem WHERE id = 888002')
    )[0];
    expect(row).toMatchObject({ OrgId: null, isNotModifiable: null, c_org: '42' });
    expect(JSON.parse(String(row?.raw)).OrgId).toBe('not a number');
  });
});

describe.skipIf(noPg)('values come back as on SQLite', () => {
  test('bigint and numeric are numbers, jsonb is text', async () => {
    const { db } = await connectPostgres(await pgAdminUrl());
    try {
      const r =
        await sql<Rec>`select 9007199254740991::bigint as big, 12.34::numeric(14,2) as money, '{"a": 1}'::jsonb as j, count(*) as n from (values (1)) v`.execute(
          db,
        );
      expect(r.rows[0]).toEqual({ big: 9007199254740991, money: 12.34, j: '{"a": 1}', n: 1 });
    } finally {
      await db.destroy();
    }
  });
});
