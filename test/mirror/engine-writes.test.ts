import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type Mirror, openMirror, seenState } from '../../src/mirror/index.js';
import { seedData } from '../../src/sim/seed.js';
import { engines, withTargets } from '../helpers/engines.js';

/**
 * The same writes through the engine-neutral Mirror on SQLite and on PostgreSQL give the same
 * counts and the same rows (typed columns, raw, history, audit, pass state), cell for cell.
 */
type Row = Record<string, unknown>;
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ohs-engines-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const seed = seedData({ seed: 11, scale: 0.01, anchorDate: '2026-06-15' }).tables;
const items = seed.OrderItem.all().slice(0, 60) as unknown as Row[];
const applicants = (seed.Applicant.all() as unknown as Row[]).slice(0, 10);
const T = (d: number) => `2026-02-0${d}T00:00:00.000Z`;

/** A sequence of writes touching every writer method; returns every count it got. */
async function script(m: Mirror): Promise<unknown[]> {
  const out: unknown[] = [];
  out.push(await m.write((w) => w.upsert('OrderItem', items, { now: T(1) })));
  out.push(await m.write((w) => w.upsert('Applicant', applicants, { now: T(1) })));
  await m.write((w) => w.recordStatus(items, T(1)));
  const changed = items.map((r, i) =>
    i % 3 === 0 ? { ...r, CurrentStatusId: 999, c_currentStatusCodeName: 'Moved' } : r,
  );
  out.push(await m.write((w) => w.upsert('OrderItem', changed, { now: T(2) })));
  await m.write((w) => w.recordStatus(changed, T(2)));
  out.push(
    await m.write((w) =>
      w.softDelete(
        'OrderItem',
        items.slice(0, 5).map((r) => r.id as number),
        { runId: 1, stream: 'orderitem', now: T(3) },
      ),
    ),
  );
  // A full pass: pages staged, one id gone, then applied with the deletions.
  await m.write((w) => w.clearPassIds('orderitem'));
  await m.write((w) => w.setPass('orderitem', 'pass-1', T(4)));
  const pass = changed.slice(2).map((r, i) => (i % 7 === 0 ? { ...r, c_productName: 'Renamed' } : r));
  out.push(
    await m.write((w) =>
      w.stagePage('OrderItem', 'orderitem', pass.slice(0, 30), T(4), { statusHistory: true }),
    ),
  );
  out.push(
    await m.write((w) =>
      w.stagePage('OrderItem', 'orderitem', pass.slice(30), T(4), { statusHistory: true }),
    ),
  );
  await m.write((w) => w.markSeen('orderitem', [items[1]?.id as number], seenState.missing));
  out.push(await m.stagedCount('orderitem'));
  out.push((await m.seenIds('orderitem', seenState.missing)).sort());
  await m.write(async (w) => {
    await w.softDelete('OrderItem', [items[1]?.id as number], { runId: 2, stream: 'orderitem', now: T(5) });
    await w.applyPass('OrderItem', 'orderitem', T(5), { statusHistory: true });
    await w.saveCheckpoint(
      { stream: 'orderitem', part: 0, pass_id: 'pass-1', mode: 'full', cursor: '42', upper: null, done: 1 },
      T(5),
    );
    await w.setPass('orderitem', null, T(5), 'full');
    await w.setRereadCursor('orderitem', '17', T(5));
  });
  const apps = applicants.map((a, i) => (i === 0 ? { ...a, info: [] } : a));
  out.push(await m.write((w) => w.upsert('Applicant', apps, { now: T(6) })));
  // The same id twice in one call compares with what the first wrote: one new version, and a
  // soft-deleted row restored once.
  const twice = { ...items[10], c_productName: 'Twice' } as Row;
  out.push(await m.write((w) => w.upsert('OrderItem', [twice, twice], { now: T(7) })));
  out.push(
    await m.write((w) => w.upsert('OrderItem', [changed[0] as Row, changed[0] as Row], { now: T(7) })),
  );
  return out;
}

test('SQLite: an id twice in one upsert makes one version, and restores a deleted row once', async () => {
  const m = await openMirror(join(dir, 'twice.sqlite'));
  try {
    const out = await script(m);
    expect(out.slice(-2)).toEqual([
      { inserted: 0, updated: 1, unchanged: 1 },
      { inserted: 0, updated: 0, unchanged: 2 },
    ]);
    const versions = async (id: unknown) =>
      (await dump(m, 'h_orderitem'))
        .filter((v) => v.id === id)
        .map((v) => [v.valid_from, v.valid_to])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(await versions(items[10]?.id)).toEqual([
      [T(1), T(7)],
      [T(7), null],
    ]);
    expect(await versions(items[0]?.id)).toEqual([
      [T(1), T(2)],
      [T(2), T(3)],
      [T(7), null],
    ]);
    const row = await m.db
      .selectFrom('orderitem')
      .select('deleted_at')
      .where('id', '=', items[0]?.id as number)
      .executeTakeFirst();
    expect(row?.deleted_at).toBeNull();
  } finally {
    await m.close();
  }
});

const tables = [
  'orderitem',
  'applicant',
  'applicant_info',
  'applicant_info_item',
  'orderitem_status_history',
  'h_orderitem',
  'h_applicant',
  'sync_deletion',
  'sync_checkpoint',
  'sync_stream_state',
  'sync_pass_seen',
  'sync_pass_stage',
];

async function dump(m: Mirror, table: string): Promise<Row[]> {
  const rows = (await m.db
    .selectFrom(table as 'orderitem')
    .selectAll()
    .execute()) as Row[];
  return rows
    .map((r) => ({ ...r, ...(typeof r.raw === 'string' ? { raw: JSON.parse(r.raw) } : {}) }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

test.skipIf(noPg)('SQLite and PostgreSQL: the same counts and the same rows', async () => {
  const sqlite = await openMirror(join(dir, 'a.sqlite'));
  const pg = await openMirror(await newDatabase());
  try {
    expect(pg.engine).toBe('postgres');
    const a = await script(sqlite);
    const b = await script(pg);
    expect(b).toEqual(a);
    for (const t of tables) expect(await dump(pg, t), t).toEqual(await dump(sqlite, t));
  } finally {
    await sqlite.close();
    await pg.close();
  }
});
