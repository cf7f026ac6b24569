import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openMirror } from '../../src/mirror/index.js';
import { runSync } from '../../src/sync/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { clientFor } from '../helpers/client.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  ID_START,
  one,
  rows,
  syncInto,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { fakeTty } from '../helpers/screen.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { parseStrictJson } from '../helpers/strict-json.js';

/**
 * Failure paths of the sync, the
 * cron worker and `ohs status`, each proven through the real CLI or runSync against the sandbox.
 */
describe('sync failure paths', () => {
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir('ohs-paths-');
  let config = '';
  let slowConfig = '';
  beforeAll(() => {
    config = cliConfig(dirname(tmp()));
    slowConfig = cliConfig(dirname(tmp()), { requestsPerSecond: 100 });
  });
  const ohs = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runOhs(args, { env: { ...cliEnv(sim()), ...env }, timeoutMs: 60_000 });

  // One sandbox for both engines: nothing here changes its data.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('an error between taking the lock and the try releases the lock', async () => {
      const file = await target();
      process.env.OHS_TEST_FAULT = 'sync:after-lock';
      try {
        await expect(syncInto(sim(), file, { streams: ['role'] })).rejects.toThrow(
          'test fault at sync:after-lock',
        );
      } finally {
        delete process.env.OHS_TEST_FAULT;
      }
      await withMirror(file, async (m) => {
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_lock`)).toEqual({ n: 0 });
      });
      // This process is alive: a leaked lock would refuse the next sync (LOCKED).
      const next = await syncInto(sim(), file, { streams: ['role'] });
      expect(next.outcome).toBe('ok');
    });

    it('every NDJSON log line of a sync parses strictly: no duplicate key', async () => {
      const file = await target();
      const r = await ohs(['sync', 'role', 'user', 'invoice', '--db', file, '--config', config], {
        OHS_LOG_LEVEL: 'info',
      });
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr.trim().split('\n');
      const parsed = lines.map((l) => parseStrictJson(l) as Record<string, unknown>);
      const streamLines = parsed.filter((l) => l.msg === 'stream synced');
      expect(streamLines.map((l) => l.stream).sort()).toEqual(['invoice', 'role', 'user']);
    });

    it('a first run on an empty mirror is recorded "full"; a resumed full pass logs mode "full"', async () => {
      const file = await target();
      const first = await ohs(['sync', 'role', 'user', '--db', file, '--config', config]);
      expect(first.code, first.stderr).toBe(0);
      const status = JSON.parse((await ohs(['status', '--db', file, '--json'])).stdout) as {
        runs: { mode: string }[];
      };
      expect(status.runs[0]?.mode).toBe('full');

      // A full pass interrupted part-way (SIGINT's path: the signal), then an incremental run.
      const second = await target();
      const abort = new AbortController();
      const start = sim().stats.requests;
      const watch = setInterval(() => {
        if (sim().stats.requests - start > 10) abort.abort();
      }, 5);
      const cut = await syncInto(
        sim(),
        second,
        { streams: ['orderitem'], full: true, signal: abort.signal },
        // Small pages, one request at a time: many pages, so the stop falls inside the pass.
        { concurrency: 1, requestsPerSecond: 200, pageSize: 10 },
      );
      clearInterval(watch);
      expect(cut.outcome, JSON.stringify(cut.streams)).toBe('interrupted');
      const lines: Record<string, unknown>[] = [];
      const logger = createLogger({
        level: 'info',
        pretty: false,
        destination: new Writable({
          write(chunk: Buffer, _e, done) {
            lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
            done();
          },
        }),
      });
      const client = clientFor(sim(), { requestsPerSecond: 5000 });
      const mirror = await openMirror(second);
      try {
        const r = await runSync(client, mirror, logger, {
          ...defaults.sync,
          streams: ['orderitem'],
          idStart: { ...ID_START },
          progress: false,
        });
        expect(r.outcome).toBe('ok');
      } finally {
        await client.close();
        await mirror.close();
      }
      const done = lines.find((l) => l.msg === 'stream synced');
      expect(done?.stream).toBe('orderitem');
      expect(done?.mode).toBe('full');
    });

    it('progress bars count records written, not requests', async () => {
      const file = await target();
      const tty = fakeTty(120);
      const r = await syncInto(sim(), file, {
        streams: ['invoice', 'role'],
        progress: true,
        progressOut: tty,
      });
      expect(r.outcome).toBe('ok');
      const invoices = sim().truth().Invoice.length;
      const requests = r.streams.find((s) => s.stream === 'invoice')?.requests ?? 0;
      expect(requests).toBeGreaterThan(invoices); // probing past the last id asks for ids that are not there
      const screen = tty.screen.lines();
      expect(screen).toContainEqual(
        expect.stringMatching(
          new RegExp(`^ invoice +\\| ${invoices} records \\| ${requests} requests \\| \\d+s$`),
        ),
      );
      expect(screen).toContainEqual(expect.stringMatching(/^ role +\| \d+ records/));
    });

    it('a run killed with SIGKILL shows as interrupted, and is marked so by the next run', async () => {
      const file = await target();
      const child = spawn(process.execPath, [OHS_BIN, 'sync', '--db', file, '--config', slowConfig], {
        env: { ...process.env, ...cliEnv(sim()) },
        stdio: 'ignore',
      });
      const start = sim().stats.requests;
      while (sim().stats.requests - start < 20) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGKILL');
      await once(child, 'exit');
      const status = JSON.parse((await ohs(['status', '--db', file, '--json'])).stdout) as {
        runs: { outcome: string; error_code: string | null; error: string | null }[];
      };
      expect(status.runs[0]).toMatchObject({ outcome: 'interrupted', error_code: 'KILLED' });
      expect(status.runs[0]?.error).toContain(`pid ${child.pid} on `);
      const text = await ohs(['status', '--db', file]);
      expect(text.stdout).not.toMatch(/\brunning\b/);

      const next = await ohs(['sync', '--db', file, '--config', config]);
      expect(next.code, next.stderr).toBe(0);
      await withMirror(file, async (m) => {
        expect(await rows(m, sql`SELECT outcome, error_code FROM sync_run ORDER BY id`)).toEqual([
          { outcome: 'interrupted', error_code: 'KILLED' },
          { outcome: 'ok', error_code: null },
        ]);
        expect(
          await one(m, sql`SELECT count(*) AS n FROM sync_stream_run WHERE outcome = 'running'`),
        ).toEqual({
          n: 0,
        });
        await expectMirrorEqualsTruth(m, sim().truth());
      });
    });

    it('a wrong base URL fails fast, naming the host, never the token', async () => {
      const port = await closedPort();
      const file = await target();
      const refused = await ohs(['sync', '--db', file, '--config', config], {
        OHS_BASE_URL: `http://127.0.0.1:${port}/api`,
      });
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^ohs: UNREACHABLE: no service at http://127\\.0\\.0\\.1:${port} \\(connection refused\\): check baseUrl`,
          'm',
        ),
      );
      expect(refused.stderr).not.toContain(WRITE_TOKEN);
      if (engine === 'sqlite') {
        // No mirror yet: the service check ran first, and nothing was created.
        expect(existsSync(file)).toBe(false);
      } else {
        const runs = JSON.parse((await ohs(['status', '--db', file, '--json'])).stdout) as {
          runs: { requests: number }[];
        };
        // The check's one attempt, no retries: not hundreds.
        expect(runs.runs[0]?.requests).toBeLessThanOrEqual(16);
      }

      const unknown = await ohs(['sync', 'role', '--db', await target(), '--config', config], {
        OHS_BASE_URL: 'http://no-such-host.invalid:8787',
      });
      expect(unknown.code).toBe(4);
      expect(unknown.stderr).toMatch(
        /^ohs: UNREACHABLE: no service at http:\/\/no-such-host\.invalid:8787 \(unknown host\)/m,
      );
      expect(unknown.stderr).not.toContain(WRITE_TOKEN);
    });
  });

  // SQLite-only: a file that is not a SQLite database (an unopenable PostgreSQL mirror is another path).
  it('ohs cron with an unopenable mirror logs the failed job and still runs its next tick', async () => {
    const broken = tmp();
    writeFileSync(
      broken,
      'this is not a SQLite file, but it is long enough to be read as a header............',
    );
    const child = spawn(
      process.execPath,
      [OHS_BIN, 'cron', '--db', broken, '--config', config, '--schedule', 'sync=* * * * * *'],
      {
        env: { ...process.env, ...cliEnv(sim()), OHS_LOG_LEVEL: 'info' },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    const failedTicks = () =>
      stderr
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'job failed');
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = once(child, 'exit');
    // Two failed ticks: the worker survived the first.
    for (let i = 0; i < 600 && failedTicks().length < 2 && child.exitCode === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(child.exitCode, stderr).toBeNull();
    expect(failedTicks().length).toBeGreaterThanOrEqual(2);
    expect(failedTicks()[0]).toMatchObject({ job: 'sync', code: 'MIRROR_OPEN_FAILED' });
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code, stderr).toBe(0);
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
