import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { describe, expect, test } from 'vitest';
import type { Database as MirrorDb } from '../../src/mirror/db-types.js';
import {
  AsOfBeforeHistoryError,
  asOf,
  checkAsOf,
  historyStart,
  pruneHistory,
} from '../../src/mirror/history.js';
import { type Mirror, type MirrorOptions, openMirror } from '../../src/mirror/index.js';
import { migrate, migrationsFor } from '../../src/mirror/migrations/index.js';
import { connectPostgres } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import { sqliteDdl } from '../../src/mirror/sqlite/ddl.js';
import { sqliteDriver } from '../../src/mirror/sqlite/driver.js';
import { seedData } from '../../src/sim/seed.js';
import { engines, withTargets } from '../helpers/engines.js';

/**
 * The mirror remembers, on each engine: every version of a record with the interval
 * it held, written with the page that changed it; unchanged pages add nothing; a deletion ends
 * the interval and a restoration starts one; `asOf` reads a table as it stood at an instant;
 * sensitive fields are masked in history as in the table; an existing mirror upgrades in place;
 * retention prunes ended versions only.
 */
type Row = Record<string, unknown>;
const seed = seedData({ seed: 23, scale: 0.01, anchorDate: '2026-06-15' }).tables;
const invoices = (seed.Invoice.all() as unknown as Row[]).slice(0, 12);
const applicants = (seed.Applicant.all() as unknown as Row[]).slice(0, 4);
const T = (d: number) => `2026-03-0${d}T00:00:00.000Z`;
const mid = (d: number) => `2026-03-0${d}T12:00:00.000Z`;

async function versions(m: Mirror, table: string): Promise<Row[]> {
  const r = await sql<Row>`SELECT * FROM ${sql.table(`h_${table}`)} ORDER BY id, valid_from`.execute(m.db);
  return r.rows;
}

async function idsAsOf(m: Mirror, at: string | undefined): Promise<string[]> {
  const rows = await m.db
    .selectFrom(asOf(m.db, 'invoice', at))
    .select(['id', 'balance'])
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => String(r.id)).sort();
}

describe.each(engines)('history on %s', (engine) => {
  const newTarget = withTargets(engine);
  /** A new mirror of the engine for `fn`, closed after it. */
  const withNewMirror = async (fn: (m: Mirror) => Promise<void>, options: MirrorOptions = {}) => {
    const m = await openMirror(await newTarget(), options);
    try {
      await fn(m);
    } finally {
      await m.close();
    }
  };

  test('unchanged pages add nothing; a change, a deletion and a restoration end and start intervals', async () => {
    await withNewMirror(async (m) => {
      await m.write((w) => w.upsert('Invoice', invoices, { now: T(1) }));
      expect((await versions(m, 'invoice')).length).toBe(invoices.length);
      // The same page again, and the same page through a pass: no version added.
      await m.write((w) => w.upsert('Invoice', invoices, { now: T(2) }));
      await m.write((w) => w.stagePage('Invoice', 'invoice', invoices, T(2)));
      await m.write((w) => w.applyPass('Invoice', 'invoice', T(2)));
      expect((await versions(m, 'invoice')).length).toBe(invoices.length);

      const paid = { ...invoices[0], balance: 999.99 } as Row;
      const rest = invoices.slice(1);
      await m.write((w) => w.upsert('Invoice', [paid, ...rest], { now: T(3) }));
      const paidId = String(paid.id);
      const ofPaid = (await versions(m, 'invoice')).filter((v) => String(v.id) === paidId);
      expect(ofPaid.map((v) => [v.valid_from, v.valid_to, Number(v.balance)])).toEqual([
        [T(1), T(3), Number(invoices[0]?.balance)],
        [T(3), null, 999.99],
      ]);

      const gone = String(invoices[1]?.id);
      await m.write((w) => w.softDelete('Invoice', [gone], { runId: 1, stream: 'invoice', now: T(4) }));
      // Restored by a pass that sees it again, unchanged.
      await m.write((w) => w.stagePage('Invoice', 'invoice', [invoices[1] as Row], T(5)));
      await m.write((w) => w.applyPass('Invoice', 'invoice', T(5)));
      const ofGone = (await versions(m, 'invoice')).filter((v) => String(v.id) === gone);
      expect(ofGone.map((v) => [v.valid_from, v.valid_to])).toEqual([
        [T(1), T(4)],
        [T(5), null],
      ]);
      // Each version's interval: at most one open version per id, none overlapping.
      const all = await versions(m, 'invoice');
      expect(all.length).toBe(invoices.length + 2);
      expect(all.filter((v) => v.valid_to === null).length).toBe(invoices.length);

      // As of an instant: the table as it stood then, with the table's columns.
      const everyId = invoices.map((r) => String(r.id)).sort();
      expect(await idsAsOf(m, mid(1))).toEqual(everyId);
      expect(await idsAsOf(m, mid(4))).toEqual(everyId.filter((id) => id !== gone));
      expect(await idsAsOf(m, mid(5))).toEqual(everyId);
      expect(await idsAsOf(m, undefined)).toEqual(everyId);
      const balanceAt = async (at: string | undefined) =>
        Number(
          (
            await m.db
              .selectFrom(asOf(m.db, 'invoice', at))
              .select('balance')
              .where('id', '=', paidId)
              .executeTakeFirst()
          )?.balance,
        );
      expect(await balanceAt(mid(2))).toBe(Number(invoices[0]?.balance));
      expect(await balanceAt(T(3))).toBe(999.99);
      expect(await balanceAt(undefined)).toBe(999.99);
      expect(await idsAsOf(m, '2026-02-01T00:00:00.000Z')).toEqual([]);
    });
  });

  test('sensitive fields are masked in history as in the table', async () => {
    await withNewMirror(async (m) => {
      await m.write((w) => w.upsert('Applicant', applicants, { now: T(1) }));
      const moved = applicants.map((a) => ({ ...a, ssn: '123-45-6789' }));
      await m.write((w) => w.upsert('Applicant', moved, { now: T(2) }));
      const current = await m.db.selectFrom('applicant').select(['id', 'ssn', 'raw']).orderBy('id').execute();
      const open = (await versions(m, 'applicant')).filter((v) => v.valid_to === null);
      expect(open.map((v) => [Number(v.id), v.ssn])).toEqual(current.map((r) => [Number(r.id), r.ssn]));
      expect(open.every((v) => v.ssn === '***6789')).toBe(true);
      const text = JSON.stringify(await versions(m, 'applicant'));
      expect(text).not.toContain('123-45-6789');
      expect(text).not.toContain('123456789');
    });
  });

  test('retention prunes ended versions only, and moves where history begins', async () => {
    await withNewMirror(async (m) => {
      await m.write((w) => w.upsert('Invoice', invoices, { now: T(1) }));
      await m.write((w) =>
        w.upsert(
          'Invoice',
          invoices.map((r) => ({ ...r, balance: 1 })),
          { now: T(3) },
        ),
      );
      // No successful sync yet: no history to read.
      await expect(checkAsOf(m.db, mid(1), '--as-of-time')).rejects.toThrow(/no history yet/);
      await m.db
        .insertInto('sync_run')
        .values({
          kind: 'sync',
          started_at: T(1),
          ended_at: T(1),
          mode: 'incremental',
          streams: '[]',
          outcome: 'ok',
          pid: 1,
          requests: 0,
          retries: 0,
          host: null,
        })
        .execute();
      expect(await historyStart(m.db)).toBe(T(1));
      await checkAsOf(m.db, mid(1), '--as-of-time');
      const err = await checkAsOf(m.db, '2026-02-01T00:00:00.000Z', '--as-of-time').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AsOfBeforeHistoryError);
      expect((err as AsOfBeforeHistoryError).code).toBe('AS_OF_BEFORE_HISTORY');

      const n = await m.write((w) => pruneHistory(w.db, 1, new Date(mid(5))));
      expect(n).toBe(invoices.length);
      const left = await versions(m, 'invoice');
      expect(left.length).toBe(invoices.length);
      expect(left.every((v) => v.valid_to === null && v.valid_from === T(3))).toBe(true);
      expect(await historyStart(m.db)).toBe(mid(4));
      await expect(checkAsOf(m.db, mid(3), '--as-of-time')).rejects.toBeInstanceOf(AsOfBeforeHistoryError);
    });
  });

  test('a mirror made before history upgrades in place: its present becomes the first version', async () => {
    const target = await newTarget();
    const ddl = engine === 'sqlite' ? sqliteDdl : postgresDdl;
    let db: Kysely<MirrorDb>;
    let done: () => Promise<void>;
    if (engine === 'sqlite') {
      const { Database } = sqliteDriver();
      db = new Kysely<MirrorDb>({ dialect: new SqliteDialect({ database: new Database(target) }) });
      done = () => db.destroy();
    } else {
      const c = await connectPostgres(target);
      db = c.db;
      done = () => c.db.destroy();
    }
    try {
      const older = Object.fromEntries(Object.entries(migrationsFor(ddl)).filter(([name]) => name < '0011'));
      const r = await new Migrator({ db, provider: { getMigrations: async () => older } }).migrateToLatest();
      expect(r.error).toBeUndefined();
      await db
        .insertInto('invoice')
        .values([
          { id: 'A1', balance: 5, raw: '{"id":"A1","balance":5}', synced_at: T(1), deleted_at: null },
          { id: 'A2', balance: 7, raw: '{"id":"A2","balance":7}', synced_at: T(1), deleted_at: T(2) },
        ])
        .execute();
      await db
        .insertInto('org_policy')
        .values({
          org_id: 77,
          program: 'DOT',
          agency: 'FAA',
          rp_min_drug: null,
          rp_min_alc: null,
          dot_registration_number: '1',
          parent_org_id: null,
          source: 'import',
          updated_at: T(1),
        })
        .execute();
      await migrate(db, ddl);
      // Its policies too: each in force from when it was last written.
      const policies =
        await sql<Row>`SELECT org_id, agency, valid_from, valid_to, is_current FROM org_policy_history`.execute(
          db,
        );
      expect(
        policies.rows.map((v) => [
          Number(v.org_id),
          v.agency,
          v.valid_from,
          v.valid_to,
          Number(v.is_current),
        ]),
      ).toEqual([[77, 'FAA', T(1), null, 1]]);
      const rows =
        await sql<Row>`SELECT id, balance, valid_from, valid_to FROM h_invoice ORDER BY id`.execute(db);
      expect(rows.rows.map((v) => [v.id, Number(v.balance), v.valid_from, v.valid_to])).toEqual([
        ['A1', 5, T(1), null],
        ['A2', 7, T(1), T(2)],
      ]);
      const since = await historyStart(db);
      expect(since !== null && since > T(2)).toBe(true);
      const view = await sql<Row>`SELECT id, is_current FROM invoice_history ORDER BY id`.execute(db);
      expect(view.rows.map((v) => [v.id, Number(v.is_current)])).toEqual([
        ['A1', 1],
        ['A2', 0],
      ]);
    } finally {
      await done();
    }
  });

  test('history can be switched off (for the bench): no version is written', async () => {
    await withNewMirror(
      async (m) => {
        await m.write((w) => w.upsert('Invoice', invoices, { now: T(1) }));
        await m.write((w) =>
          w.softDelete('Invoice', [String(invoices[0]?.id)], { runId: 1, stream: 'invoice', now: T(2) }),
        );
        expect((await versions(m, 'invoice')).length).toBe(0);
      },
      { history: false },
    );
  });
});
