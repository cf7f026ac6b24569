import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { TestProject } from 'vitest/node';
import { openMirror } from '../../src/mirror/index.js';
import { type RunningSim, type SimOptions, simOptionsSchema, startSim } from '../../src/sim/index.js';
import { runOhs } from './cli.js';
import { enginesFromEnv } from './engine-names.js';
import { TEST_ANCHOR, testSimOptions, WRITE_TOKEN } from './sim-options.js';
import { streamTables } from './stream-tables.js';

/**
 * vitest globalSetup: the sandbox most report tests read (`SHARED_SIM`), synced once per run by
 * `ohs sync` into a mirror of each engine under test, the instants of the sync set to
 * `SYNC_TIME`. A test file whose sandbox has the same options (the data set follows from the
 * seed, scale and anchor) starts from a copy of it instead of a sync of its own
 * (`test/reports/synced-sandbox.ts`): a copy of the SQLite file, or for PostgreSQL a database
 * made with `CREATE DATABASE ... TEMPLATE`. Built in the background when a worker first asks for
 * it (a `wanted` file), which then waits for `ready`: a run of files that copy nothing builds nothing.
 */

/** The shared sandbox's own options (beside `testSimOptions`). */
export const SHARED_SIM = { scale: 0.1 } as const;

/**
 * The moment the sync saw the truth, set to one fixed instant: each engine's sync ran at its own
 * wall-clock time, and the reports read that time (order ageing: the time in status since an
 * item was first seen; the as-of instant from the last sync; unpaid invoices: whether the
 * balances are newer than the as-of date), as they read the as-of date. With both fixed, what
 * remains to differ between the engines is the engines.
 */
export const SYNC_TIME = `${TEST_ANCHOR}T02:00:00.000Z`;

export async function observedAt(db: string, at: string): Promise<void> {
  const m = await openMirror(db);
  try {
    for (const { table } of streamTables)
      await sql`UPDATE ${sql.table(table)} SET synced_at = ${at}`.execute(m.db);
    await sql`UPDATE orderitem_status_history SET first_seen_at = ${at}, last_seen_at = ${at}`.execute(m.db);
    await sql`UPDATE sync_stream_state SET last_success_at = ${at}, last_full_at = ${at}`.execute(m.db);
    await sql`UPDATE sync_run SET started_at = ${at}, ended_at = ${at}`.execute(m.db);
  } finally {
    await m.close();
  }
}

/**
 * The sandbox's options as a key: a file's sandbox with the same key holds the same data as the
 * shared one (its port and URL aside).
 */
export function optionsKey(options: SimOptions): string {
  const o = options as unknown as Record<string, unknown>;
  return JSON.stringify(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}

/** A digest of everything the sandbox holds now: a copy is taken only by a sandbox whose digest is the shared one's. */
export function truthDigest(sim: Pick<RunningSim, 'truth'>): string {
  return createHash('sha256').update(JSON.stringify(sim.truth())).digest('hex');
}

/** Writes the config `ohs sync` and `ohs report` read in a synced folder. */
export function writeSyncedConfig(dir: string, url: string, db: string): void {
  mkdirSync(join(dir, 'config'), { recursive: true });
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      baseUrl: url,
      db,
      api: { requestsPerSecond: 5000 },
      sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
    }),
  );
}

export const syncedEnv = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '' };

/**
 * What the workers learn: where the copies come from, once `ready` exists in `stateDir` (ask
 * with `wanted`); `ready` holds the `truthDigest` of the sandbox that was synced.
 */
export interface SharedSynced {
  stateDir: string;
  /** The synced SQLite file (absent when SQLite is not under test). */
  sqlite: string | null;
  /** The synced PostgreSQL database, a template (null when PostgreSQL is not under test). */
  pgTemplate: string | null;
  /** `optionsKey` of the shared sandbox. */
  key: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    ohsSynced: SharedSynced;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const engines = enginesFromEnv(process.env.OHS_TEST_ENGINES);
  const base = mkdtempSync(join(tmpdir(), 'ohs-synced-run-'));
  const stateDir = join(base, 'state');
  mkdirSync(stateDir);
  const pgTemplate = engines.includes('postgres') ? `ohs_synced_${process.pid}` : null;
  const sqlite = engines.includes('sqlite') ? join(base, 'synced.sqlite') : null;
  const { port: _port, host: _host, ...options } = testSimOptions(SHARED_SIM);
  project.provide('ohsSynced', {
    stateDir,
    sqlite,
    pgTemplate,
    key: optionsKey(simOptionsSchema.parse(options)),
  });
  const pg = project.getProvidedContext().ohsPg;
  const adminUrl = async (): Promise<string> => {
    if (pg === null || pg === undefined) throw new Error('PostgreSQL is not under test');
    for (;;) {
      if (existsSync(join(pg.stateDir, 'ready'))) return pg.url;
      if (existsSync(join(pg.stateDir, 'failed')))
        throw new Error("the test run's PostgreSQL server did not start");
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const syncInto = async (sim: RunningSim, db: string, engine: string) => {
    const dir = join(base, engine);
    writeSyncedConfig(dir, sim.url, db);
    const r = await runOhs(['sync'], { cwd: dir, env: syncedEnv, timeoutMs: 240_000 });
    if (r.code !== 0)
      throw new Error(`ohs sync of the shared sandbox into ${engine} exited ${r.code}: ${r.stderr}`);
    await observedAt(db, SYNC_TIME);
  };
  const build = async () => {
    const sim = await startSim(testSimOptions(SHARED_SIM));
    try {
      const work: Promise<void>[] = [];
      if (sqlite !== null) work.push(syncInto(sim, sqlite, 'sqlite'));
      if (pgTemplate !== null)
        work.push(
          (async () => {
            const url = new URL(await adminUrl());
            await admin(url.toString(), `CREATE DATABASE ${pgTemplate}`);
            url.pathname = `/${pgTemplate}`;
            await syncInto(sim, url.toString(), 'postgres');
          })(),
        );
      await Promise.all(work);
      writeFileSync(join(stateDir, 'ready'), truthDigest(sim));
    } catch (err) {
      writeFileSync(join(stateDir, 'failed'), err instanceof Error ? err.message : String(err));
    } finally {
      await sim.close();
    }
  };
  // Built when a worker first asks (its `wanted` file), not in a run that copies none of it.
  let built: Promise<void> | undefined;
  const asked = setInterval(() => {
    if (built === undefined && existsSync(join(stateDir, 'wanted'))) {
      clearInterval(asked);
      built = build();
    }
  }, 100);
  asked.unref();
  return async () => {
    clearInterval(asked);
    await built;
    // The PostgreSQL server (and the template in it) goes with pg-global-setup's teardown.
    rmSync(base, { recursive: true, force: true });
  };
}

async function admin(url: string, statement: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
