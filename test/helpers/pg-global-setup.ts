import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { enginesFromEnv } from './engine-names.js';
import { freePort, type PgServer, startPgServer } from './pg-server.js';

/**
 * vitest globalSetup: the one PostgreSQL server of a test run, when PostgreSQL is among the
 * engines under test (`OHS_TEST_ENGINES`, see engines.ts). It starts in the background (initdb
 * and pg_ctl take about 1.6 s of CPU) while vitest loads the first test files; the workers learn
 * its URL at once (`inject('ohsPg')`) and wait for the `ready` file only when a test first needs
 * a database. Stopped, and its folder removed, when the run ends.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!enginesFromEnv(process.env.OHS_TEST_ENGINES).includes('postgres')) {
    project.provide('ohsPg', null);
    return async () => {};
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'ohs-pg-state-'));
  const port = await freePort();
  project.provide('ohsPg', { url: `postgres://ohs@127.0.0.1:${port}/postgres`, stateDir });
  const started: Promise<PgServer | undefined> = startPgServer({ port }).then(
    (server) => {
      writeFileSync(join(stateDir, 'ready'), server.url);
      return server;
    },
    (err: unknown) => {
      writeFileSync(join(stateDir, 'failed'), err instanceof Error ? err.message : String(err));
      return undefined;
    },
  );
  return async () => {
    (await started)?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  };
}
