import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, inject } from 'vitest';
import { type EngineName, enginesFromEnv } from './engine-names.js';

export { type EngineName, enginesFromEnv } from './engine-names.js';

/**
 * The mirror's engines under test, and per engine a fresh empty mirror target, so that a test of
 * anything that touches the mirror runs on every engine (as kysely's own tests loop over
 * dialects):
 *
 *     describe.each(engines)('%s', (engine) => {
 *       const target = withTargets(engine);
 *       it('…', async () => {
 *         const mirror = await openMirror(await target());
 *         …
 *       });
 *     });
 *
 * `OHS_TEST_ENGINES` (comma-separated, default `sqlite,postgres`) chooses the engines; with
 * `OHS_TEST_ENGINES=sqlite` no PostgreSQL server is started at all. The one PostgreSQL server of
 * a test run is started by `test/helpers/pg-global-setup.ts` (vitest globalSetup) in the
 * background while the first files load; a worker waits for it only when it first needs a
 * database. Each target is a new database `t_<random>` on it (a new SQLite file in a temporary
 * folder for SQLite), dropped (removed) after the test file.
 */

/** The engines under test in this run. */
export const engines: readonly EngineName[] = enginesFromEnv(process.env.OHS_TEST_ENGINES);

let adminReady: Promise<string> | undefined;

/**
 * The admin URL of the run's PostgreSQL server, once it accepts connections (waits for the
 * background start; throws its error if it failed, or if PostgreSQL is not under test).
 */
export function pgAdminUrl(): Promise<string> {
  adminReady ??= waitForPg();
  return adminReady;
}

async function waitForPg(): Promise<string> {
  const pg = inject('ohsPg');
  if (pg === null || pg === undefined) {
    throw new Error(`PostgreSQL is not under test (OHS_TEST_ENGINES=${process.env.OHS_TEST_ENGINES ?? ''})`);
  }
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (existsSync(join(pg.stateDir, 'ready'))) return pg.url;
    const failed = join(pg.stateDir, 'failed');
    if (existsSync(failed)) {
      throw new Error(
        `the test run's PostgreSQL server did not start: ${readFileSync(failed, 'utf8')}\n` +
          'Install PostgreSQL (Debian package postgresql, or set OHS_PG_BIN), or test SQLite only: OHS_TEST_ENGINES=sqlite',
      );
    }
    if (Date.now() > deadline)
      throw new Error('the PostgreSQL server of the test run was not ready within 120 s');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs one statement on the server's `postgres` database (CREATE / DROP DATABASE). */
async function admin(statement: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: await pgAdminUrl() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new, empty mirror target of `engine`, and how to remove it. */
export interface Target {
  /** A SQLite file path (not yet created), or a `postgres://` URL of a new, empty database. */
  readonly target: string;
  remove(): Promise<void>;
}

/**
 * A new mirror target of `engine`: empty, or a copy of `template` (a SQLite file, copied; a
 * PostgreSQL database on the run's server that nobody is connected to, `CREATE DATABASE ...
 * TEMPLATE`, a file-level copy).
 */
export async function createTarget(engine: EngineName, template?: string): Promise<Target> {
  if (!engines.includes(engine)) throw new Error(`engine ${engine} is not under test (OHS_TEST_ENGINES)`);
  const name = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-engine-'));
    if (template !== undefined) copyFileSync(template, join(dir, `${name}.sqlite`));
    return {
      target: join(dir, `${name}.sqlite`),
      remove: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  await admin(
    template === undefined ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${template}`,
  );
  const url = new URL(await pgAdminUrl());
  url.pathname = `/${name}`;
  return {
    target: url.toString(),
    // FORCE: a test that failed may have left a connection open.
    remove: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * For a test file or describe block (call it there, like `withTmpDir`): a factory of fresh empty
 * targets of `engine` (or copies of a template: `createTarget`), every one removed after the block.
 */
export function withTargets(engine: EngineName): (template?: string) => Promise<string> {
  const made: Target[] = [];
  afterAll(async () => {
    await Promise.all(made.splice(0).map((t) => t.remove()));
  });
  return async (template?: string) => {
    const t = await createTarget(engine, template);
    made.push(t);
    return t.target;
  };
}

/**
 * `describe.each(engines)` with the engines side by side: each engine's block (its own sandbox,
 * its own targets) runs its tests one after another, in order, while the other engine's block
 * runs at the same time. For files that mostly wait (child `ohs` processes, a sandbox's latency,
 * PostgreSQL), this halves the file's time without a worker more; the blocks must share nothing
 * that changes (declare the sandbox inside `fn`).
 */
export function describeEngines(
  title: string,
  options: { timeout?: number },
  fn: (engine: EngineName) => void,
): void {
  describe.concurrent.each(engines)(title, options, (engine) => {
    describe.sequential('in turn', () => fn(engine));
  });
}
