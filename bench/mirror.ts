import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import type pg from 'pg';
import { type Mirror, maskRecord, openMirror, tableOf } from '../src/mirror/index.js';
import { migrate } from '../src/mirror/migrations/index.js';
import { connectPostgres, createPool } from '../src/mirror/postgres/connect.js';
import { postgresDdl } from '../src/mirror/postgres/ddl.js';
import { type PageMethod, upsertPage } from '../src/mirror/postgres/page.js';
import { sqliteDriver } from '../src/mirror/sqlite/driver.js';
import { resources } from '../src/schema/index.js';
import { seedData } from '../src/sim/seed.js';
import { startPgServer } from '../test/helpers/pg-server.js';
import { spawnScaledSandbox, table } from './sandbox.js';

/**
 * Page upserts of the mirror on each engine, with raw JSON, against a bare driver loop doing the
 * same upserts in the same run (goal: at least 0.8 of it):
 * - SQLite: the mirror's writer (one page per transaction) against better-sqlite3's prepared
 *   statement run once per row;
 * - PostgreSQL: the mirror's page write, both ways (one `unnest` statement per page; COPY into a
 *   temporary table then merge), and the engine's whole path (Mirror.write: a pooled connection,
 *   BEGIN, the page, COMMIT), against `pg` sending one multi-row INSERT ... ON CONFLICT per
 *   page, on a server this benchmark starts (test/helpers/pg-server.ts).
 * Three passes over the sandbox's order items (pages of 500, one transaction each): into an
 * empty table, the same records again (unchanged), every record changed. Best of three rounds,
 * interleaved, as the machine's load changes from second to second.
 */
const PAGE = 500;
const ROUNDS = Number(process.env.OHS_BENCH_ROUNDS ?? 3);
const NOW = '2026-06-15T00:00:00.000Z';
type Rec = Record<string, unknown>;
type Pass = 'insert' | 'unchanged' | 'changed';
const passes: Pass[] = ['insert', 'unchanged', 'changed'];

function pagesOf(records: readonly Rec[]): Rec[][] {
  const out: Rec[][] = [];
  for (let i = 0; i < records.length; i += PAGE) out.push(records.slice(i, i + PAGE));
  return out;
}

function records(scale: number): { fresh: Rec[]; changed: Rec[] } {
  const spec = resources.OrderItem.spec;
  const fresh = seedData({ seed: 7, scale, anchorDate: '2026-06-15' })
    .tables.OrderItem.all()
    .map((r) => maskRecord(spec, r as Rec));
  return { fresh, changed: fresh.map((r) => ({ ...r, c_productName: `${String(r.c_productName)} (2)` })) };
}

const def = tableOf('OrderItem');
const sqlValue = (v: unknown) =>
  v === undefined || v === null
    ? null
    : typeof v === 'boolean'
      ? v
        ? 1
        : 0
      : typeof v === 'object'
        ? JSON.stringify(v)
        : v;

/** Seconds of `fn`, which writes `pages`. */
async function time(fn: () => Promise<void>): Promise<number> {
  const t = performance.now();
  await fn();
  return (performance.now() - t) / 1000;
}

async function sqliteRound(
  dir: string,
  data: Record<Pass, Rec[][]>,
  k: number,
): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = { bare: [], mirror: [], mirrorOff: [] };
  // The bare loop, into a mirror file of its own (same table, same indexes).
  const bareFile = join(dir, `bare-${k}.db`);
  const bare = await openMirror(bareFile);
  const { Database } = sqliteDriver();
  const handle = new Database(bareFile);
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = NORMAL');
  const cols = [...def.columns.map((c) => `"${c.name}"`), 'raw', 'synced_at'];
  const stmt = handle.prepare(
    `INSERT INTO orderitem (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${cols
       .slice(1)
       .map((c) => `${c} = excluded.${c}`)
       .join(', ')}`,
  );
  for (const p of passes) {
    out.bare?.push(
      await time(async () => {
        for (const page of data[p]) {
          handle.exec('BEGIN IMMEDIATE');
          for (const r of page)
            stmt.run(...def.columns.map((c) => sqlValue(r[c.field])), JSON.stringify(r), NOW);
          handle.exec('COMMIT');
        }
      }),
    );
  }
  handle.close();
  await bare.close();
  // The mirror with its history (the default), and without (what history costs).
  for (const [key, history] of [
    ['mirror', true],
    ['mirrorOff', false],
  ] as const) {
    const m = await openMirror(join(dir, `${key}-${k}.db`), { history });
    for (const [i, p] of passes.entries()) {
      const now = `2026-06-15T00:00:0${i}.000Z`;
      out[key]?.push(
        await time(async () => {
          for (const page of data[p])
            await m.write((w) => w.upsert('OrderItem', page, { now, prepared: true }));
        }),
      );
    }
    await m.close();
  }
  return out;
}

async function pgBare(pool: pg.Pool, pages: Rec[][]): Promise<void> {
  const cols = [...def.columns.map((c) => `"${c.name}"`), 'raw', 'synced_at'];
  const sets = cols
    .slice(1)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ');
  const client = await pool.connect();
  try {
    for (const page of pages) {
      const values: unknown[] = [];
      const rows: string[] = [];
      for (const r of page) {
        const at = values.length;
        values.push(...def.columns.map((c) => sqlValue(r[c.field])), JSON.stringify(r), NOW);
        rows.push(`(${cols.map((_, i) => `$${at + i + 1}`).join(', ')})`);
      }
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO orderitem (${cols.join(', ')}) VALUES ${rows.join(', ')} ON CONFLICT (id) DO UPDATE SET ${sets}`,
        values,
      );
      await client.query('COMMIT');
    }
  } finally {
    client.release();
  }
}

async function pgMirror(pool: pg.Pool, pages: Rec[][], method: PageMethod, history = true): Promise<void> {
  const client = await pool.connect();
  try {
    for (const page of pages) {
      await client.query('BEGIN');
      await upsertPage(client, def, page, NOW, null, method, history);
      await client.query('COMMIT');
    }
  } finally {
    client.release();
  }
}

/** The engine's own path: Mirror.write per page (a pooled connection, BEGIN, the page, COMMIT). */
async function pgMirrorWrite(m: Mirror, pages: Rec[][], now: string): Promise<void> {
  for (const page of pages) await m.write((w) => w.upsert('OrderItem', page, { now, prepared: true }));
}

async function pgRound(
  urls: { bare: string; unnest: string; copy: string; write: string; writeOff: string },
  data: Record<Pass, Rec[][]>,
): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = { bare: [], unnest: [], copy: [], write: [], writeOff: [] };
  // The engine's path with its history (the default), and without (what history costs).
  for (const [key, history] of [
    ['write', true],
    ['writeOff', false],
  ] as const) {
    const m = await openMirror(urls[key], { history }); // opened (schema checked) outside the timing
    try {
      await sql`TRUNCATE orderitem, h_orderitem`.execute(m.db);
      for (const [i, p] of passes.entries())
        out[key]?.push(await time(() => pgMirrorWrite(m, data[p], `2026-06-15T00:00:0${i}.000Z`)));
    } finally {
      await m.close();
    }
  }
  for (const variant of ['bare', 'unnest', 'copy'] as const) {
    const pool = createPool(urls[variant], { max: 1 });
    try {
      await pool.query('TRUNCATE orderitem, h_orderitem');
      for (const p of passes) {
        out[variant]?.push(
          await time(() => (variant === 'bare' ? pgBare(pool, data[p]) : pgMirror(pool, data[p], variant))),
        );
      }
    } finally {
      await pool.end();
    }
  }
  return out;
}

const best = (a: number[] | undefined, b: number[] | undefined): number[] =>
  a === undefined ? (b ?? []) : b === undefined ? a : a.map((x, i) => Math.min(x, b[i] ?? x));

const ohsBin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));
const SYNC_TOKEN = 'bench-token';

/**
 * A full `ohs sync` of the sandbox into `db` (a SQLite file or a postgres:// URL), in a child
 * process of its own under /usr/bin/time: wall seconds and the child's peak RSS (its own, not
 * this process's, so the two engines are measured alike).
 */
async function fullSync(url: string, db: string, cwd: string): Promise<{ seconds: number; peakMb: number }> {
  const { stderr } = await promisify(execFile)(
    '/usr/bin/time',
    [
      '-f',
      'OHS_TIME %e %M',
      process.execPath,
      ohsBin,
      'sync',
      '--full',
      '--db',
      db,
      '--base-url',
      url,
      '--log-level',
      'warn',
    ],
    { cwd, env: { ...process.env, OHS_TOKEN: SYNC_TOKEN }, maxBuffer: 1 << 24 },
  );
  const m = /OHS_TIME ([\d.]+) (\d+)/.exec(stderr);
  if (m === null) throw new Error(`no timing from ohs sync: ${stderr.slice(-500)}`);
  return { seconds: Number(m[1]), peakMb: Math.round(Number(m[2]) / 1024) };
}

/** A full sync of the sandbox into each engine, one after the other, same sandbox. */
async function fullSyncs(
  scale: number,
  server: { createDatabase(name: string): string },
  dir: string,
): Promise<string> {
  const sandbox = await spawnScaledSandbox(scale, SYNC_TOKEN);
  try {
    const rows: Record<string, string | number>[] = [];
    for (const [engine, db] of [
      ['sqlite', join(dir, 'full.sqlite')],
      ['postgres', server.createDatabase('fullsync')],
    ] as const) {
      const r = await fullSync(sandbox.url, db, dir);
      rows.push({ engine, 'full sync s': r.seconds.toFixed(1), 'peak RSS MB': r.peakMb });
    }
    return [
      `full sync of the sandbox (scale ${scale}) by \`ohs sync --full\` into each engine:`,
      table(rows),
    ].join('\n');
  } finally {
    await sandbox.stop();
  }
}

export async function benchMirror(scale: number): Promise<string> {
  const { fresh, changed } = records(scale);
  const data: Record<Pass, Rec[][]> = {
    insert: pagesOf(fresh),
    unchanged: pagesOf(fresh),
    changed: pagesOf(changed),
  };
  const n = fresh.length;
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-mirror-'));
  const server = await startPgServer();
  try {
    const urls = {
      bare: server.createDatabase('bare'),
      unnest: server.createDatabase('unnest'),
      copy: server.createDatabase('copy'),
      write: server.createDatabase('write'),
      writeOff: server.createDatabase('writeoff'),
    };
    for (const url of Object.values(urls)) {
      const { db } = await connectPostgres(url);
      await migrate(db, postgresDdl);
      await db.destroy();
    }
    let sqlite: Record<string, number[]> = {};
    let postgres: Record<string, number[]> = {};
    for (let k = 0; k < ROUNDS; k++) {
      const s = await sqliteRound(dir, data, k);
      sqlite = {
        bare: best(sqlite.bare, s.bare),
        mirror: best(sqlite.mirror, s.mirror),
        mirrorOff: best(sqlite.mirrorOff, s.mirrorOff),
      };
      const p = await pgRound(urls, data);
      postgres = {
        bare: best(postgres.bare, p.bare),
        unnest: best(postgres.unnest, p.unnest),
        copy: best(postgres.copy, p.copy),
        write: best(postgres.write, p.write),
        writeOff: best(postgres.writeOff, p.writeOff),
      };
    }
    const rate = (secs: number | undefined) => (secs === undefined ? 0 : Math.round(n / secs));
    const rows: Record<string, string | number>[] = [];
    const add = (engine: string, way: string, secs: number[] | undefined, base: number[] | undefined) => {
      const row: Record<string, string | number> = { engine, way };
      passes.forEach((p, i) => {
        row[`${p} rows/s`] = rate(secs?.[i]);
        row[`${p} ratio`] = base === undefined ? '-' : ((base[i] ?? 0) / (secs?.[i] ?? 1)).toFixed(2);
      });
      rows.push(row);
    };
    add('sqlite', 'bare prepared loop', sqlite.bare, sqlite.bare);
    add('sqlite', 'mirror upsert', sqlite.mirror, sqlite.bare);
    add('postgres', 'bare multi-row INSERT', postgres.bare, postgres.bare);
    add('postgres', 'mirror unnest', postgres.unnest, postgres.bare);
    add('postgres', 'mirror COPY+merge', postgres.copy, postgres.bare);
    add('postgres', 'Mirror.write (unnest)', postgres.write, postgres.bare);
    // What history costs: the mirror's own path with history on against the same path with it
    // off, same run (goals: >= 0.8 unchanged pages, >= 0.7 pages where every record changed).
    const history: Record<string, string | number>[] = [];
    const cost = (engine: string, on: number[] | undefined, off: number[] | undefined) => {
      const row: Record<string, string | number> = { engine };
      passes.forEach((p, i) => {
        row[`${p} off rows/s`] = rate(off?.[i]);
        row[`${p} on rows/s`] = rate(on?.[i]);
        row[`${p} on/off`] = ((off?.[i] ?? 0) / (on?.[i] ?? 1)).toFixed(2);
      });
      history.push(row);
    };
    cost('sqlite (mirror upsert)', sqlite.mirror, sqlite.mirrorOff);
    cost('postgres (Mirror.write)', postgres.write, postgres.writeOff);
    return [
      `mirror: ${n} order items with raw JSON, pages of ${PAGE} (one transaction each), best of ${ROUNDS} interleaved rounds; ratios against the bare driver loop of the same engine (goal >= 0.8)`,
      table(rows),
      '',
      'history: the same path with history on against off, same run (goals: unchanged >= 0.8, changed >= 0.7)',
      table(history),
      '',
      await fullSyncs(scale, server, dir),
    ].join('\n');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
