import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { enginesFromEnv } from './engine-names.js';
import { freePort, type PgServer, startPgServer, stopCluster } from './pg-server.js';

/**
 * vitest globalSetup: the one PostgreSQL server of a test run, when PostgreSQL is among the
 * engines under test (`OHS_TEST_ENGINES`, see engines.ts). It starts in the background (initdb
 * and pg_ctl take about 1.4 s of CPU) while vitest loads the first test files; the workers learn
 * its URL at once (`inject('ohsPg')`) and wait for the `ready` file only when a test first needs
 * a database. Stopped, and its folder removed, when the run ends (also when it is interrupted).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!enginesFromEnv(process.env.OHS_TEST_ENGINES).includes('postgres')) {
    project.provide('ohsPg', null);
    return async () => {};
  }
  // One folder for everything: the state files for the workers and the cluster itself.
  const base = mkdtempSync(join(tmpdir(), 'ohs-pg-run-'));
  chmodSync(base, 0o711); // the cluster inside belongs to the postgres user when run as root
  const stateDir = join(base, 'state');
  const clusterDir = join(base, 'cluster');
  mkdirSync(stateDir);
  mkdirSync(clusterDir);
  const port = await freePort();
  project.provide('ohsPg', { url: `postgres://ohs@127.0.0.1:${port}/postgres`, stateDir });
  let server: PgServer | undefined;
  const started: Promise<PgServer | undefined> = startPgServer({ port, dir: clusterDir }).then(
    (s) => {
      server = s;
      writeFileSync(join(stateDir, 'ready'), s.url);
      return s;
    },
    (err: unknown) => {
      writeFileSync(join(stateDir, 'failed'), err instanceof Error ? err.message : String(err));
      return undefined;
    },
  );
  const stop = () => {
    if (server !== undefined) server.stop();
    else stopCluster(clusterDir); // interrupted while it was starting
    try {
      rmSync(base, { recursive: true, force: true, maxRetries: 5 });
    } catch {
      // Interrupted during initdb, which may still be writing there: best effort on the way out.
    }
  };
  // Interrupted (Ctrl-C), vitest exits without running the teardown: stop the server on the way out.
  process.once('exit', stop);
  return async () => {
    await started;
    process.removeListener('exit', stop);
    stop();
  };
}
