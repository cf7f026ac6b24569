import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engineOf, type Mirror, openMirror, redactTarget, sqliteDriver } from '../../src/mirror/index.js';
import type { ResourceName } from '../../src/schema/index.js';
import { type SimRecord, startSim } from '../../src/sim/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { rows, values, withMirror } from '../helpers/mirror.js';
import { READ_TOKEN, WRITE_TOKEN, withSim } from '../helpers/sim.js';

/** The mirror's own driver for this Node (better-sqlite3 12 aborts on Node 24). */
const { Database } = sqliteDriver();

/** A regular expression matching `text` literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A clean working folder with a config/local.json pointing at the sandbox. */
function workdir(url: string, extra: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-jobs-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      baseUrl: url,
      api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200 },
      sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
      ...extra,
    }),
  );
  return dir;
}

type JobRow = {
  id: number;
  job: string;
  outcome: string;
  error_code: string | null;
  outputs: string;
  sync_run_id: number | null;
};

/** The job runs recorded in the mirror so far (none while it does not exist yet). */
async function jobRuns(db: string): Promise<JobRow[]> {
  if (engineOf(db) === 'sqlite' && !existsSync(db)) return [];
  let m: Mirror;
  try {
    m = await openMirror(db, { readonly: true, mustExist: true });
  } catch {
    return [];
  }
  try {
    return await rows<JobRow>(
      m,
      sql`SELECT id, job, outcome, error_code, outputs, sync_run_id FROM job_run ORDER BY id`,
    );
  } catch {
    return [];
  } finally {
    await m.close();
  }
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function spawnOhs(
  args: string[],
  cwd: string,
): { child: ChildProcess; out: () => string; err: () => string } {
  const child = spawn(process.execPath, [OHS_BIN, ...args], {
    cwd,
    env: { ...process.env, OHS_TOKEN: WRITE_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  return { child, out: () => out, err: () => err };
}

/** The demo's sandbox is deterministic (seed 1, today's date): a twin's truth, made once. */
let twinTruth: Promise<Record<ResourceName, SimRecord[]>> | undefined;
function demoTruth(): Promise<Record<ResourceName, SimRecord[]>> {
  twinTruth ??= (async () => {
    const twin = await startSim({
      scale: 0.1,
      anchorDate: new Date().toISOString().slice(0, 10),
      token: WRITE_TOKEN,
      readonlyToken: READ_TOKEN,
    });
    const truth = twin.truth();
    await twin.close();
    return truth;
  })();
  return twinTruth;
}

describe.each(engines)('%s: ohs demo', (engine) => {
  const target = withTargets(engine);

  it('from a clean folder: syncs the built-in sandbox into its mirror, writes every report to demo-out/, prints where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-demo-'));
    // SQLite: the default demo.sqlite in the folder; PostgreSQL: --db names a new database.
    const url = engine === 'postgres' ? await target() : undefined;
    // As a user runs it: the terminal's text format (the suite's default is NDJSON).
    const r = await runOhs(['demo', '--scale', '0.1', ...(url === undefined ? [] : ['--db', url])], {
      cwd: dir,
      env: { OHS_LOG_FORMAT: 'text' },
      timeoutMs: 240_000,
    });
    expect(r.code, r.stderr).toBe(0);
    // Short: the summary on stdout, under 40 lines as docs/commands.md says (the files counted by
    // kind, six verdicts, the warnings grouped); nothing on stderr; where to look; the next step
    // as it was invoked here (node and the bin's path).
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n').length, r.stdout).toBeLessThan(40);
    expect(r.stdout).toMatch(/^attention/m);
    expect(r.stdout).toContain(`next: node ${OHS_BIN} status --db `);
    // The dashboard it leaves lists its own job as ended, not running.
    expect(readFileSync(join(dir, 'demo-out', 'index.html'), 'utf8')).not.toMatch(/<\/span>running</);
    const db = url ?? join(dir, 'demo.sqlite');
    if (url === undefined) {
      // The SQLite file itself: created private (0600), in the folder.
      expect(r.stdout).toContain(`Mirror   ${db}  (mode 600;`);
      expect(statSync(db).mode & 0o777).toBe(0o600);
      expect(r.stdout).toContain('sqlite3 demo.sqlite "select org, count(*) as open_orders from v_orderitem');
    } else {
      expect(r.stdout).toContain(`Mirror   ${redactTarget(url)}  (PostgreSQL;`);
      expect(r.stdout).toContain(
        `psql '${redactTarget(url)}' -c "select org, count(*) as open_orders from v_orderitem`,
      );
      expect(readdirSync(dir)).toEqual(['demo-out']);
    }
    // The folder and every file in it, named in the summary.
    const files = readdirSync(join(dir, 'demo-out')).map((f) => join(dir, 'demo-out', f));
    expect(r.stdout).toContain(`Reports  ${join(dir, 'demo-out')}/ (${files.length} files: `);
    // Counted by kind (a line, not a list of every name).
    expect(r.stdout).toContain(`${files.filter((f) => f.endsWith('.xlsx')).length} xlsx`);
    expect(files).toContain(join(dir, 'demo-out', 'index.html'));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      `Open the dashboard in a browser: ${join(dir, 'demo-out', 'index.html')}`,
    );
    for (const name of ['compliance', 'unpaid-invoices', 'order-ageing']) {
      for (const ext of ['xlsx', 'csv', 'html'])
        expect(files.some((f) => f.includes(`${name}-`) && f.endsWith(ext))).toBe(true);
    }

    // The mirror equals a twin's truth.
    const truth = await demoTruth();
    await withMirror(db, async (m) => {
      for (const [table, resource] of [
        ['orderitem', 'OrderItem'],
        ['invoice', 'Invoice'],
        ['orgmonth', 'OrgMonth'],
        ['user', 'User'],
        ['staff', 'Staff'],
        ['applicant', 'Applicant'],
      ] as const) {
        const ids = (
          await values<number | string>(
            m,
            sql`SELECT id FROM ${sql.table(table)} WHERE deleted_at IS NULL ORDER BY id`,
          )
        ).map(String);
        expect(ids.sort(), table).toEqual(truth[resource].map((r) => String(r.id)).sort());
      }
      const [run] = await rows<Record<string, string>>(
        m,
        sql`SELECT job, ${sql.ref('trigger')}, outcome, outputs FROM job_run`,
      );
      expect(run).toMatchObject({ job: 'nightly', trigger: 'demo', outcome: 'ok' });
      // Seven reports (what changed among them) in xlsx, csv and html with each page's verdict file, the Trend CSVs of A/R
      // and compliance, the dashboard: every file of the folder, and only those.
      expect((JSON.parse(run?.outputs ?? '[]') as string[]).map((f) => basename(f)).sort()).toEqual(
        files.map((f) => basename(f)).sort(),
      );
      // And the run's controls (src/app/controls.ts): xlsx, csv, html and its verdict file.
      expect(files).toHaveLength(35);
      const described = await values(
        m,
        sql`SELECT count(*) FROM data_dictionary WHERE table_name = 'orderitem'`,
      );
      expect(Number(described[0])).toBeGreaterThan(16);
    });
  }, 300_000);
});

describe.concurrent.each(engines)('%s: ohs run and ohs cron', (engine) => {
  /** Set by a test to hold the sandbox's service requests (docs/sandbox.md, holdRequest). */
  let holdRequest: (() => Promise<void> | undefined) | undefined;
  const sim = withSim({ scale: 0.1, latencyMs: 15, holdRequest: () => holdRequest?.() });
  const target = withTargets(engine);
  /** A working folder whose config names a new mirror of the engine. */
  const setUp = async () => {
    const url = engine === 'postgres' ? await target() : undefined;
    const dir = workdir(sim().url, url === undefined ? {} : { db: url });
    return { dir, db: url ?? join(dir, 'ohs.sqlite') };
  };

  // The engines run at once, each with its own sandbox (the tests mostly wait on slow answers
  // and child processes); an engine's tests run in turn, since they configure its sandbox.
  describe.sequential('in turn', () => {
    it('two overlapping `ohs run nightly`: one runs, the other exits at once with LOCKED', async () => {
      const { dir, db } = await setUp();
      const first = spawnOhs(['run', 'nightly'], dir);
      await waitFor('the first run to start', async () =>
        (await jobRuns(db)).some((r) => r.outcome === 'running') ? true : undefined,
      );
      // Hold the first run there (slow answers) while the second starts: on a loaded machine the
      // second `node` may take seconds to start, and the first must not be done by then.
      sim().configure({ latencyMs: 1_000 });
      let second: Awaited<ReturnType<typeof runOhs>>;
      try {
        second = await runOhs(['run', 'nightly'], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
      } finally {
        sim().configure({ latencyMs: 15 });
      }
      expect(second.code).toBe(6);
      const lines = second.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      // The mirror by its path, or its connection string (never a password).
      expect(lines[0]).toMatch(
        new RegExp(
          `^ohs: LOCKED: another job is running on ${literal(engine === 'sqlite' ? 'ohs.sqlite' : redactTarget(db))} \\(pid \\d+ on .*\\); wait for it to finish$`,
        ),
      );
      const [code] = (await once(first.child, 'exit')) as [number | null];
      expect(code, first.err()).toBe(0);
      const runs = await jobRuns(db);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ job: 'nightly', outcome: 'ok' });
      // The closing summary: what the job did, what needs attention, the next step.
      expect(first.out()).toMatch(/^nightly job run 1 ok in [\d.]+ s$/m);
      expect(first.out()).toMatch(/^reports: 18 files in .* \(csv, xlsx\)$/m);
      expect(first.out()).toMatch(/^next: /m);
    }, 180_000);

    it('cron: two scheduled runs complete, SIGTERM during the third stops it, recorded as interrupted, exit 0', async () => {
      const { dir, db } = await setUp();
      const worker = spawnOhs(['cron', '--schedule', 'sync=*/2 * * * * *'], dir);
      try {
        await waitFor(
          'two completed runs',
          async () => ((await jobRuns(db)).filter((r) => r.outcome === 'ok').length >= 2 ? true : undefined),
          90_000,
        );
        // Make the next run slow, so that SIGTERM lands in the middle of it.
        sim().configure({ latencyMs: 300 });
        await waitFor(
          'a third run under way',
          async () => {
            const runs = await jobRuns(db);
            return runs.length >= 3 && runs.at(-1)?.outcome === 'running' ? true : undefined;
          },
          30_000,
        );
        // Hold its next request: SIGTERM lands while the run waits on the service, then it goes on.
        let release = () => {};
        const gate = new Promise<void>((r) => {
          release = r;
        });
        await new Promise<void>((heldOne) => {
          holdRequest = () => {
            heldOne();
            return gate;
          };
        });
        const stopping = Date.now();
        worker.child.kill('SIGTERM');
        holdRequest = undefined;
        release();
        const [code] = (await once(worker.child, 'exit')) as [number | null];
        expect(code, worker.err()).toBe(0);
        // Loose on purpose: a loaded machine is slow; what matters is the run recorded interrupted.
        expect(Date.now() - stopping).toBeLessThan(30_000);
      } finally {
        sim().configure({ latencyMs: 15 });
        if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      }
      // The worker says when each job runs next: at start and after each run (its summary).
      const next = worker
        .out()
        .split('\n')
        .filter((l) => /^(next: the )?next run: .*sync at \d{4}-\d\d-\d\dT/.test(l));
      expect(next.length, worker.out()).toBeGreaterThanOrEqual(3);
      expect(worker.out()).toMatch(/^cron worker started: .*sync '\*\/2 \* \* \* \* \*'/m);
      expect(worker.out()).toMatch(/^sync job run 1 ok in [\d.]+ s$/m);
      const runs = await jobRuns(db);
      expect(runs.slice(0, 2).map((r) => r.outcome)).toEqual(['ok', 'ok']);
      expect(runs[2]).toMatchObject({ job: 'sync', outcome: 'interrupted', error_code: 'INTERRUPTED' });
      expect(runs.every((r) => r.outcome !== 'running')).toBe(true);
      if (engine === 'sqlite') {
        // SQLite only: the file itself survived the interruption intact.
        const file = new Database(db, { readonly: true });
        try {
          expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
        } finally {
          file.close();
        }
      }
      await withMirror(db, async (m) => {
        const syncRuns = await values(m, sql`SELECT outcome FROM sync_run ORDER BY id`);
        expect(syncRuns.at(-1)).toBe('interrupted');
        expect(syncRuns).not.toContain('running');
        expect(Number((await values(m, sql`SELECT count(*) FROM sync_lock`))[0])).toBe(0);
      });
      // The next run resumes and ends with the mirror equal to the sandbox.
      const again = await runOhs(['run', 'sync'], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
      expect(again.code, again.stderr).toBe(0);
      await withMirror(db, async (m) => {
        const ids = await values(m, sql`SELECT id FROM orderitem WHERE deleted_at IS NULL ORDER BY id`);
        expect(ids).toEqual(
          sim()
            .truth()
            .OrderItem.map((r) => r.id),
        );
      });
    }, 240_000);
  });
});
