import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sqliteDriver } from '../../src/mirror/index.js';
import { startSim } from '../../src/sim/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { READ_TOKEN, WRITE_TOKEN, withSim } from '../helpers/sim.js';

/** The mirror's own driver for this Node (better-sqlite3 12 aborts on Node 24). */
const { Database } = sqliteDriver();

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

function jobRuns(db: string): JobRow[] {
  if (!existsSync(db)) return [];
  const sqlite = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return sqlite
      .prepare('SELECT id, job, outcome, error_code, outputs, sync_run_id FROM job_run ORDER BY id')
      .all() as JobRow[];
  } catch {
    return [];
  } finally {
    sqlite.close();
  }
}

async function waitFor<T>(what: string, fn: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
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

describe('ohs demo', () => {
  it('from a clean folder: syncs the built-in sandbox into demo.sqlite, writes every report to demo-out/, prints where', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-demo-'));
    const r = await runOhs(['demo', '--scale', '0.1'], { cwd: dir, timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    const db = join(dir, 'demo.sqlite');
    expect(r.stdout).toContain(`Mirror   ${db}  (mode 600;`);
    expect(statSync(db).mode & 0o777).toBe(0o600);
    const printed = r.stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith(join(dir, 'demo-out')));
    const files = readdirSync(join(dir, 'demo-out')).map((f) => join(dir, 'demo-out', f));
    expect(printed.sort()).toEqual(files.sort());
    for (const name of ['compliance', 'unpaid-invoices', 'order-ageing']) {
      for (const ext of ['xlsx', 'csv'])
        expect(files.some((f) => f.includes(`${name}-`) && f.endsWith(ext))).toBe(true);
    }
    expect(r.stdout).toContain('sqlite3 demo.sqlite "select org, count(*) as open_orders from v_orderitem');

    // The demo's sandbox is deterministic (seed 1, today's date): the mirror equals a twin's truth.
    const today = new Date().toISOString().slice(0, 10);
    const twin = await startSim({
      scale: 0.1,
      anchorDate: today,
      token: WRITE_TOKEN,
      readonlyToken: READ_TOKEN,
    });
    const truth = twin.truth();
    await twin.close();
    const sqlite = new Database(db, { readonly: true });
    try {
      for (const [table, resource] of [
        ['orderitem', 'OrderItem'],
        ['invoice', 'Invoice'],
        ['orgmonth', 'OrgMonth'],
        ['user', 'User'],
        ['staff', 'Staff'],
        ['applicant', 'Applicant'],
      ] as const) {
        const ids = (
          sqlite.prepare(`SELECT id FROM "${table}" WHERE deleted_at IS NULL ORDER BY id`).pluck().all() as (
            | number
            | string
          )[]
        ).map(String);
        expect(ids.sort(), table).toEqual(truth[resource].map((r) => String(r.id)).sort());
      }
      const run = sqlite.prepare('SELECT job, trigger, outcome, outputs FROM job_run').get() as Record<
        string,
        string
      >;
      expect(run).toMatchObject({ job: 'nightly', trigger: 'demo', outcome: 'ok' });
      expect(JSON.parse(run.outputs ?? '[]')).toHaveLength(6);
      const csv = sqlite
        .prepare("SELECT count(*) FROM data_dictionary WHERE table_name = 'orderitem'")
        .pluck()
        .get() as number;
      expect(csv).toBeGreaterThan(16);
    } finally {
      sqlite.close();
    }
  }, 180_000);
});

describe('ohs run and ohs cron', () => {
  const sim = withSim({ scale: 0.1, latencyMs: 15 });

  it('two overlapping `ohs run nightly`: one runs, the other exits at once with LOCKED', async () => {
    const dir = workdir(sim().url);
    const db = join(dir, 'ohs.sqlite');
    const first = spawnOhs(['run', 'nightly'], dir);
    await waitFor('the first run to start', () =>
      jobRuns(db).some((r) => r.outcome === 'running') ? true : undefined,
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
    expect(lines[0]).toMatch(
      /^ohs: LOCKED: another job is running on .*ohs\.sqlite \(pid \d+ on .*\); wait for it to finish$/,
    );
    const [code] = (await once(first.child, 'exit')) as [number | null];
    expect(code, first.err()).toBe(0);
    const runs = jobRuns(db);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ job: 'nightly', outcome: 'ok' });
    expect(first.out().trim().split('\n')).toHaveLength(6);
  }, 120_000);

  it('cron: two scheduled runs complete, SIGTERM during the third stops it, recorded as interrupted, exit 0', async () => {
    const dir = workdir(sim().url);
    const db = join(dir, 'ohs.sqlite');
    const worker = spawnOhs(['cron', '--schedule', 'sync=*/2 * * * * *'], dir);
    try {
      await waitFor(
        'two completed runs',
        () => (jobRuns(db).filter((r) => r.outcome === 'ok').length >= 2 ? true : undefined),
        90_000,
      );
      // Make the next run slow, so that SIGTERM lands in the middle of it.
      sim().configure({ latencyMs: 300 });
      await waitFor(
        'a third run under way',
        () => (jobRuns(db).length >= 3 && jobRuns(db).at(-1)?.outcome === 'running' ? true : undefined),
        30_000,
      );
      await new Promise((r) => setTimeout(r, 700));
      const stopping = Date.now();
      worker.child.kill('SIGTERM');
      const [code] = (await once(worker.child, 'exit')) as [number | null];
      expect(code, worker.err()).toBe(0);
      // Loose on purpose: a loaded machine is slow; what matters is the run recorded interrupted.
      expect(Date.now() - stopping).toBeLessThan(30_000);
    } finally {
      sim().configure({ latencyMs: 15 });
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
    }
    const runs = jobRuns(db);
    expect(runs.slice(0, 2).map((r) => r.outcome)).toEqual(['ok', 'ok']);
    expect(runs[2]).toMatchObject({ job: 'sync', outcome: 'interrupted', error_code: 'INTERRUPTED' });
    expect(runs.every((r) => r.outcome !== 'running')).toBe(true);
    const sqlite = new Database(db, { readonly: true });
    try {
      expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      const syncRuns = sqlite.prepare('SELECT outcome FROM sync_run ORDER BY id').pluck().all();
      expect(syncRuns.at(-1)).toBe('interrupted');
      expect(syncRuns).not.toContain('running');
      expect(sqlite.prepare('SELECT count(*) FROM sync_lock').pluck().get()).toBe(0);
    } finally {
      sqlite.close();
    }
    // The next run resumes and ends with the mirror equal to the sandbox.
    const again = await runOhs(['run', 'sync'], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
    expect(again.code, again.stderr).toBe(0);
    const sqlite2 = new Database(db, { readonly: true });
    try {
      const ids = sqlite2
        .prepare('SELECT id FROM orderitem WHERE deleted_at IS NULL ORDER BY id')
        .pluck()
        .all();
      expect(ids).toEqual(
        sim()
          .truth()
          .OrderItem.map((r) => r.id),
      );
    } finally {
      sqlite2.close();
    }
  }, 180_000);
});
