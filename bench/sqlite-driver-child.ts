import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * One SQLite driver under measurement, in its own process (`node sqlite-driver-child.js DRIVER
 * ROWS`): a fresh heap for its peak memory, and a driver that crashes (better-sqlite3 13 on
 * Node 20, 12 on Node 24) takes down only this process. Prints one JSON line of figures.
 *
 * The work is the mirror's hot path (src/mirror/sqlite/writer.ts): a file in WAL mode with
 * synchronous=NORMAL, rows upserted through one reused prepared statement in transactions of a
 * page (500 rows), then point reads by id (the "what was there before" look-up), then a scan.
 */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  iterate(...params: unknown[]): IterableIterator<unknown>;
}
interface Connection {
  exec(sql: string): unknown;
  prepare(sql: string): Statement;
  close(): unknown;
}

const require = createRequire(import.meta.url);

function open(driver: string, file: string): { db: Connection; version: string } {
  if (driver === 'node:sqlite') {
    // Not in Node 20's builtins: loaded by name so that this file compiles and runs there too.
    const { DatabaseSync } = require('node:sqlite') as { DatabaseSync: new (f: string) => Connection };
    const db = new DatabaseSync(file);
    return { db, version: `Node ${process.versions.node}` };
  }
  const pkg =
    driver === 'better-sqlite3-13'
      ? 'better-sqlite3-13'
      : (process.env.OHS_BENCH_SQLITE12 ?? 'better-sqlite3');
  const Database = require(pkg) as new (f: string) => Connection;
  const version = (require(`${pkg}/package.json`) as { version: string }).version;
  return { db: new Database(file), version };
}

function record(id: number): unknown[] {
  const raw = JSON.stringify({
    id,
    org: 1000 + (id % 97),
    status: { id: id % 11, code: `S${id % 11}`, name: 'In progress at the collection site' },
    orderedAt: new Date(1_700_000_000_000 + id * 60_000).toISOString(),
    amount: (id % 5000) / 100,
    applicant: { firstName: 'Pat', lastName: `Example${id}`, ssn: '***-**-1234' },
    notes: 'x'.repeat(120),
  });
  return [id, 1000 + (id % 97), id % 11, `S${id % 11}`, (id % 5000) / 100, raw, '2026-06-15T00:00:00Z'];
}

function main(): void {
  const [driver = '', rowsArg = '20000'] = process.argv.slice(2);
  const rows = Number(rowsArg);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-sqlite-'));
  try {
    const { db, version } = open(driver, join(dir, 'bench.sqlite'));
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec(
      'CREATE TABLE orderitem (id INTEGER PRIMARY KEY, org INTEGER, status_id INTEGER, status_code TEXT, amount REAL, raw TEXT NOT NULL, synced_at TEXT)',
    );
    const upsert = db.prepare(
      `INSERT INTO orderitem (id, org, status_id, status_code, amount, raw, synced_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET org = excluded.org, status_id = excluded.status_id, status_code = excluded.status_code,
         amount = excluded.amount, raw = excluded.raw, synced_at = excluded.synced_at`,
    );
    const select = db.prepare('SELECT raw FROM orderitem WHERE id = ?');
    const scan = db.prepare('SELECT id, amount, raw FROM orderitem ORDER BY id');

    let t = performance.now();
    for (let start = 1; start <= rows; start += 500) {
      db.exec('BEGIN IMMEDIATE');
      for (let id = start; id < Math.min(start + 500, rows + 1); id++) upsert.run(...record(id));
      db.exec('COMMIT');
    }
    const upsertSeconds = (performance.now() - t) / 1000;

    t = performance.now();
    let found = 0;
    for (let id = 1; id <= rows; id++) if (select.get(id) !== undefined) found++;
    const readSeconds = (performance.now() - t) / 1000;

    t = performance.now();
    let total = 0;
    for (const row of scan.iterate()) total += (row as { amount: number }).amount;
    const scanSeconds = (performance.now() - t) / 1000;
    db.close();

    if (found !== rows || total <= 0) throw new Error(`read back ${found} of ${rows} rows`);
    const figures = {
      driver,
      version,
      upsertPerSec: Math.round(rows / upsertSeconds),
      readPerSec: Math.round(rows / readSeconds),
      scanPerSec: Math.round(rows / scanSeconds),
      // ru_maxrss: the process's peak resident memory, in kilobytes on Linux.
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
