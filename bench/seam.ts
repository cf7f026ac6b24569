import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMirror } from '../src/mirror/index.js';
import { sqliteDriver } from '../src/mirror/sqlite/driver.js';
import { SqliteStatements } from '../src/mirror/sqlite/writer.js';
import { seedData } from '../src/sim/seed.js';
import { table } from './sandbox.js';

/**
 * The price of the mirror seam on SQLite: page upserts of the sandbox's order items through
 * `Mirror.write` (async, Kysely's connection mutex, BEGIN IMMEDIATE ... COMMIT, one promise per
 * page) against the same engine code called synchronously in better-sqlite3's own transaction
 * (what the mirror did before the seam), and against a bare driver loop (one prepared INSERT ...
 * ON CONFLICT per row, no look-up, no masking) for scale. Interleaved rounds on fresh files, best
 * of each kept: the load of a shared machine changes from second to second.
 */
const PAGE = 500;
const ROUNDS = 5;
const NOW = '2026-06-15T00:00:00.000Z';

type Rec = Record<string, unknown>;

function pages(records: Rec[]): Rec[][] {
  const out: Rec[][] = [];
  for (let i = 0; i < records.length; i += PAGE) out.push(records.slice(i, i + PAGE));
  return out;
}

/** A fresh mirror file with the schema (migrations run by openMirror), closed. */
async function freshFile(dir: string, name: string): Promise<string> {
  const file = join(dir, `${name}.sqlite`);
  await (await openMirror(file)).close();
  return file;
}

function openRaw(file: string) {
  const db = new (sqliteDriver().Database)(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  return db;
}

/** Seconds to write every page twice (inserts, then the same records unchanged). */
const modes: Record<string, (file: string, input: Rec[][]) => Promise<number>> = {
  async seam(file, input) {
    const m = await openMirror(file);
    const t0 = performance.now();
    for (let pass = 0; pass < 2; pass++)
      for (const page of input) await m.write((w) => w.upsert('OrderItem', page, { now: NOW }));
    const s = (performance.now() - t0) / 1000;
    await m.close();
    return s;
  },
  async 'sync statements'(file, input) {
    const db = openRaw(file);
    const statements = new SqliteStatements(db, false);
    const t0 = performance.now();
    for (let pass = 0; pass < 2; pass++)
      for (const page of input)
        db.transaction(() => statements.upsert('OrderItem', page, { now: NOW })).immediate();
    const s = (performance.now() - t0) / 1000;
    db.close();
    return s;
  },
  async 'bare driver loop'(file, input) {
    const db = openRaw(file);
    const insert = db.prepare(
      `INSERT INTO orderitem (id, raw, synced_at) VALUES (?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET raw = excluded.raw, synced_at = excluded.synced_at`,
    );
    const t0 = performance.now();
    for (let pass = 0; pass < 2; pass++)
      for (const page of input)
        db.transaction(() => {
          for (const r of page) insert.run(r.id, JSON.stringify(r), NOW);
        }).immediate();
    const s = (performance.now() - t0) / 1000;
    db.close();
    return s;
  },
};

export async function benchSeam(scale: number): Promise<string> {
  const records: Rec[] = [...seedData({ seed: 1, scale, anchorDate: '2026-06-15' }).tables.OrderItem.all()];
  const input = pages(records);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-seam-'));
  const best = new Map<string, number>();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Each round in the other order than the last: no mode always runs first (or after another).
      const order = round % 2 === 0 ? Object.entries(modes) : Object.entries(modes).reverse();
      for (const [name, run] of order) {
        const file = await freshFile(dir, `${name.replace(/ /g, '-')}-${round}`);
        globalThis.gc?.();
        const seconds = await run(file, input);
        best.set(name, Math.min(best.get(name) ?? Number.POSITIVE_INFINITY, seconds));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = 2 * records.length;
  const base = best.get('sync statements') ?? Number.NaN;
  const rowsOut = [...best].map(([mode, seconds]) => ({
    mode,
    'rows/s': Math.round(rows / seconds),
    'vs sync statements': `${(base / seconds).toFixed(2)}x`,
  }));
  return [
    `Seam: ${records.length} order items upserted twice (insert, then unchanged) in pages of ${PAGE}, best of ${ROUNDS} interleaved rounds`,
    table(rowsOut),
  ].join('\n');
}
