import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SqliteDatabase, sqliteDriver } from '../../src/mirror/sqlite/driver.js';
import { runOhs } from '../helpers/cli.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * A BI tool reading the SQLite mirror while a sync writes it is never refused: readers with no
 * busy timeout at all (better-sqlite3 read-only, `timeout: 0`: SQLITE_BUSY is an error at once,
 * as in a plain `sqlite3` shell), one opening a new connection for every read and one keeping its
 * connection, read as fast as they can from the first moment the file exists, through a first
 * sync (the mirror created), a `--full` sync and an incremental one, each run by the real CLI.
 * A read that finds no file yet is no read; any `database is locked` is a refusal.
 * SQLite-only: the subject is SQLite's file locks.
 */
interface Tally {
  reads: number;
  refusals: number;
  errors: Map<string, number>;
}

const refused = (err: unknown) =>
  /SQLITE_BUSY|locked/.test(`${(err as { code?: string }).code ?? ''} ${(err as Error).message}`);

/** Reads `file` until `done` settles: every turn of the event loop, a fresh and a kept connection. */
async function readThroughout(file: string, done: Promise<unknown>): Promise<Tally> {
  const { Database } = sqliteDriver();
  const tally: Tally = { reads: 0, refusals: 0, errors: new Map() };
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let kept: SqliteDatabase | undefined;
  const read = (open: () => SqliteDatabase, close: boolean) => {
    let db: SqliteDatabase | undefined;
    try {
      db = open();
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      tally.reads++;
    } catch (err) {
      tally.reads++;
      const key = `${(err as { code?: string }).code}: ${(err as Error).message}`;
      tally.errors.set(key, (tally.errors.get(key) ?? 0) + 1);
      if (refused(err)) tally.refusals++;
      if (!close && db !== undefined) {
        db.close();
        kept = undefined;
      }
    } finally {
      if (close) db?.close();
    }
  };
  const opts = { readonly: true, fileMustExist: true, timeout: 0 };
  while (!finished) {
    if (existsSync(file)) {
      read(() => new Database(file, opts), true);
      read(() => {
        kept ??= new Database(file, opts);
        return kept;
      }, false);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  kept?.close();
  return tally;
}

describe('a BI reader during a sync (SQLite)', () => {
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-bi-reader-');

  it('is never refused: first sync, --full, incremental', async () => {
    const dir = dirname(tmp());
    const config = cliConfig(dir);
    const file = join(dir, 'bi.sqlite');
    const figures: { step: string; reads: number; refusals: number; errors: [string, number][] }[] = [];
    for (const [step, extra] of [
      ['first', []],
      ['full', ['--full']],
      ['incremental', []],
    ] as const) {
      const sync = runOhs(['sync', '--db', file, '--config', config, ...extra], {
        env: cliEnv(sim()),
        timeoutMs: 240_000,
      });
      const tally = await readThroughout(file, sync);
      const r = await sync;
      expect(r.code, r.stderr).toBe(0);
      figures.push({ step, reads: tally.reads, refusals: tally.refusals, errors: [...tally.errors] });
    }
    if (process.env.OHS_TEST_FIGURES !== undefined) console.info(JSON.stringify(figures));
    for (const f of figures) {
      expect(f.refusals, JSON.stringify(figures)).toBe(0);
      expect(f.errors, JSON.stringify(figures)).toEqual([]);
      // Enough reads to meet a lock of a few milliseconds, on a loaded machine too.
      expect(f.reads, JSON.stringify(figures)).toBeGreaterThan(200);
    }
  });
});
