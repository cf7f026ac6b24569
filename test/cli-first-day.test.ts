import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaKeys, readMeta, redactTarget, sqliteDriver } from '../src/mirror/index.js';
import { OHS_BIN, runOhs } from './helpers/cli.js';
import { engines, withTargets } from './helpers/engines.js';
import { cliConfig, cliEnv, withMirror } from './helpers/mirror.js';
import { withSim } from './helpers/sim.js';
import {
  createSystemUser,
  removeSystemUser,
  runAs,
  type SystemUser,
  serviceEnv,
  spawnAs,
  whyNotRunnableByOthers,
} from './helpers/system-user.js';

// The driver this Node can load (better-sqlite3 12 aborts on Node 24).
const { Database } = sqliteDriver();

/** A new user's first day: each surprise a first run can meet, through the real CLI. */
const REPO = fileURLToPath(new URL('..', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'ohs-first-day-'));
chmodSync(root, 0o755); // the service user of the tests below walks through it
let n = 0;
const newDir = () => {
  const d = join(root, `d${++n}`);
  mkdirSync(d, { mode: 0o755 });
  chmodSync(d, 0o755);
  return d;
};
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const slow = { timeout: 300_000 };

const sim = withSim({ scale: 0.03 });
let env: NodeJS.ProcessEnv;
let config: string;
/** A mirror filled by `ohs sync` from the sandbox (its base URL recorded in mirror_meta). */
let synced: string;
let user: SystemUser | string | undefined;

beforeAll(async () => {
  env = cliEnv(sim());
  config = cliConfig(root);
  synced = join(root, 'synced.sqlite');
  const r = await runOhs(['sync', '--config', config, '--db', synced], { env, timeoutMs: 240_000 });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  user = createSystemUser();
}, 300_000);

afterAll(() => {
  removeSystemUser(user);
  rmSync(root, { recursive: true, force: true });
});

/** A copy of the synced mirror, for a test that may change it. */
function copyOfSynced(dir = newDir()): string {
  const file = join(dir, 'copy.sqlite');
  copyFileSync(synced, file);
  return file;
}

/** Resolves with the first stderr line matching `pattern` (NDJSON logs), or rejects at exit. */
function stderrLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    child.stderr?.on('data', (d: Buffer) => {
      buf += d.toString();
      const line = buf.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before ${pattern}: ${buf}`)));
  });
}

describe('command line', () => {
  it(
    'takes global options before the command, and points usage errors to the command help',
    slow,
    async () => {
      const ok = await runOhs(['--db', synced, 'status'], { env });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain(`mirror ${synced}`);
      const cases: [string[], string][] = [
        [['--db', synced, 'status', '--frob'], 'ohs status --help'],
        [['--db', synced, 'policy', 'import'], 'ohs policy import --help'],
        [['report', 'all', '--as-of', '2026/01/01', '--db', synced], 'ohs report --help'],
        [['--log-level', 'warn', 'run', 'weekly'], 'ohs run --help'],
        [['frobnicate'], 'ohs --help'],
      ];
      const results = await Promise.all(cases.map(([args]) => runOhs(args, { env })));
      results.forEach((r, i) => {
        expect(r.code).toBe(2);
        expect(r.stderr.trim()).toMatch(new RegExp(`^ohs: USAGE: .*\\(see ${cases[i]?.[1]}\\)$`));
      });
    },
  );

  it('refuses an invalid time zone at start-up, before any work', slow, async () => {
    const dir = newDir();
    const bad = join(dir, 'tz.json');
    writeFileSync(bad, JSON.stringify({ timezone: 'Europe/Berln' }));
    const r = await runOhs(['report', 'all', '--config', bad, '--db', synced, '--out', join(dir, 'out')], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      `ohs: CONFIG_INVALID: configuration value timezone is invalid: not an IANA time zone name (e.g. UTC, America/Chicago) (got "Europe/Berln"); set in ${bad}`,
    );
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('switches the default nightly schedule off with null or "off"', slow, async () => {
    const dir = newDir();
    const schedulesOf = async (jobs: unknown) => {
      const file = join(dir, `c${++n}.json`);
      writeFileSync(file, JSON.stringify({ logLevel: 'info', jobs }));
      const child = spawn(process.execPath, [OHS_BIN, 'cron', '--config', file, '--db', synced], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const line = await stderrLine(child, /cron worker started/);
      // Running until told to stop, even with no schedule at all (no timer keeps it alive).
      await new Promise((r) => setTimeout(r, 300));
      expect(child.exitCode).toBe(null);
      child.kill('SIGTERM');
      const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      return (JSON.parse(line) as { schedules: unknown }).schedules;
    };
    expect(await schedulesOf({})).toEqual({ nightly: '0 2 * * *' });
    expect(await schedulesOf({ schedules: { nightly: null } })).toEqual({});
    expect(await schedulesOf({ schedules: { nightly: 'off', sync: '0 * * * *' } })).toEqual({
      sync: '0 * * * *',
    });
  });
});

describe('mirror files', () => {
  it('refuses a missing mirror in every command but those that fill one', slow, async () => {
    const dir = newDir();
    const typo = join(dir, 'typo.sqlite');
    const cases = [
      ['apply'],
      ['plan', join(REPO, 'examples', 'payment.csv'), '--op', 'payment'],
      ['outbox'],
      ['status'],
      ['report', 'all', '--out', join(dir, 'out')],
      ['policy', 'import', join(REPO, 'examples', 'org-policy.csv')],
      ['run', 'reports'],
      ['run', 'push'],
    ];
    const results = await Promise.all(
      cases.map((args) => runOhs([...args, '--db', typo], { env, cwd: dir })),
    );
    results.forEach((r, i) => {
      expect(r.code, cases[i]?.join(' ')).toBe(1);
      expect(r.stderr.trim()).toBe(
        `ohs: MIRROR_OPEN_FAILED: no mirror at ${typo}: run ohs sync first (or pass --db FILE)`,
      );
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('status and report open without writing when nothing is pending', slow, async () => {
    const dir = newDir();
    const file = copyOfSynced(dir);
    const before = sha(file);
    expect((await runOhs(['status', '--db', file], { env })).code).toBe(0);
    const report = await runOhs(['report', 'all', '--db', file, '--out', join(dir, 'out')], { env });
    expect(report.code).toBe(0);
    expect(sha(file)).toBe(before);
    expect(readdirSync(dir).sort()).toEqual(['copy.sqlite', 'out']);
  });

  it('an open still repairs what is missing: a dropped index, a stale data dictionary', slow, async () => {
    const file = copyOfSynced();
    const db = new Database(file);
    db.exec(
      `drop index orderitem_OrgId_idx; update data_dictionary set description = 'stale' where table_name = 'invoice'`,
    );
    db.close();
    expect((await runOhs(['status', '--db', file], { env })).code).toBe(0);
    const after = new Database(file, { readonly: true });
    try {
      expect(
        after.prepare(`select count(*) from sqlite_master where name = 'orderitem_OrgId_idx'`).pluck().get(),
      ).toBe(1);
      expect(
        after.prepare(`select count(*) from data_dictionary where description = 'stale'`).pluck().get(),
      ).toBe(0);
    } finally {
      after.close();
    }
  });

  it("status and report read another user's mirror in a folder they cannot write", slow, async (ctx) => {
    if (typeof user !== 'object') {
      ctx.skip(`${user}: the read-only case needs a second user`);
      return;
    }
    // CI's Node 24 lives under root's home; a private checkout keeps bin/ohs.js from others.
    const closed = whyNotRunnableByOthers([process.execPath, OHS_BIN]);
    if (closed !== undefined) {
      ctx.skip(closed);
      return;
    }
    const service = user;
    const shared = newDir(); // root's folder, 0755: the service user cannot create -wal or -shm here
    const file = copyOfSynced(shared);
    chmodSync(file, 0o644); // its owner shares it read-only
    const before = sha(file);
    const out = newDir();
    chownSync(out, service.uid, service.gid);
    const as = (args: string[]) =>
      runAs(service, [process.execPath, OHS_BIN, ...args], {
        cwd: out,
        env: serviceEnv(service, { OHS_LOG_LEVEL: 'warn' }),
      });
    const status = await as(['status', '--db', file, '--json']);
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const streams = (JSON.parse(status.stdout) as { streams: { stream: string; rows: number }[] }).streams;
    expect(streams.find((s) => s.stream === 'orderitem')?.rows).toBe(sim().tables.OrderItem.all().length);
    const report = await as(['report', 'all', '--db', file, '--out', join(out, 'r')]);
    // Its stderr holds the reports' row counts and data warnings, never a failure to write.
    expect(report.stderr).not.toMatch(/ohs: |readonly|read-only|SQLITE_/i);
    expect(report.code).toBe(0);
    // Seven reports (what changed among them) in xlsx and csv, and the Trend CSVs of A/R and compliance.
    expect(readdirSync(join(out, 'r'))).toHaveLength(18); // seven workbooks, seven CSVs, two trend CSVs, the controls (xlsx, csv)
    // Writing commands still fail, with a clear line (it is not theirs to write).
    const policy = await as(['policy', 'import', join(REPO, 'examples', 'org-policy.csv'), '--db', file]);
    expect(policy.code).not.toBe(0);
    expect(policy.stderr).toMatch(/^ohs: [A-Z_]+: /);
    expect(sha(file)).toBe(before);
    expect(readdirSync(shared)).toEqual(['copy.sqlite']);

    // A file that needs migrating cannot be upgraded by a reader: it says who must.
    const old = join(newDir(), 'old.sqlite');
    copyFileSync(synced, old);
    const db = new Database(old);
    db.exec(`delete from kysely_migration where name = '0005_mirror_meta'; drop table mirror_meta;`);
    db.close();
    chmodSync(old, 0o644);
    const stale = await as(['status', '--db', old]);
    expect(stale.code).toBe(1);
    expect(stale.stderr.trim()).toBe(
      `ohs: MIRROR_OPEN_FAILED: ${old} is read-only here and needs upgrading (migrations 0005_mirror_meta): run ohs sync once as the user who owns it`,
    );
  });
});

describe.runIf(engines.includes('postgres'))('a postgres:// mirror', () => {
  const target = withTargets('postgres');
  const SECRET = 'pw-Zq81x-secret';
  let url: string;
  beforeAll(async () => {
    url = await target();
    const r = await runOhs(['sync', '--config', config, '--db', url], { env, timeoutMs: 240_000 });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  }, 300_000);

  it('status and report work on it as on a file, naming it without a password', slow, async () => {
    const dir = newDir();
    const status = await runOhs(['status', '--db', url], { env });
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`mirror ${redactTarget(url)}`);
    const json = await runOhs(['status', '--db', url, '--json'], { env });
    const streams = (JSON.parse(json.stdout) as { streams: { stream: string; rows: number }[] }).streams;
    expect(streams.find((s) => s.stream === 'orderitem')?.rows).toBe(sim().tables.OrderItem.all().length);
    const report = await runOhs(['report', 'all', '--db', url, '--out', join(dir, 'out')], { env });
    expect(report.stderr).not.toMatch(/^ohs: /m);
    expect(report.code).toBe(0);
    expect(readdirSync(join(dir, 'out'))).toHaveLength(18); // seven workbooks, seven CSVs, two trend CSVs, the controls (xlsx, csv)
  });

  it('an unreachable server: one line naming host, port and database, never the password', slow, async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 1));
      });
    });
    const down = `postgres://ohs:${SECRET}@127.0.0.1:${port}/mirror`;
    for (const args of [['status'], ['report', 'all', '--out', join(newDir(), 'out')], ['run', 'sync']]) {
      const r = await runOhs([...args, '--db', down], { env, cwd: newDir() });
      expect(r.code, args.join(' ')).not.toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toMatch(/^ohs: PG_UNREACHABLE: /);
      expect(lines[0]).toContain(`127.0.0.1:${port}`);
      expect(lines[0]).toContain('mirror');
      expect(r.stderr + r.stdout).not.toContain(SECRET);
    }
  });

  it(
    'a role without rights: one line naming the role, host and database, never the password',
    slow,
    async () => {
      const empty = await target();
      await withMirror(url, async (m) => {
        await sql`CREATE ROLE weak_cli LOGIN PASSWORD ${sql.lit(SECRET)}`.execute(m.db);
      });
      const as = (u: string) => u.replace('postgres://ohs@', `postgres://weak_cli:${SECRET}@`);
      const database = (u: string) => new URL(u).pathname.slice(1);
      // Creating the mirror's tables in a database it may not create in.
      const sync = await runOhs(['sync', '--config', config, '--db', as(empty)], { env });
      expect(sync.code).not.toBe(0);
      const line = sync.stderr.trim().split('\n');
      expect(line).toHaveLength(1);
      expect(line[0]).toMatch(/^ohs: PG_PERMISSION_DENIED: /);
      expect(line[0]).toContain('role weak_cli');
      expect(line[0]).toContain(database(empty));
      expect(line[0]).toContain(new URL(empty).host);
      // Reading a mirror whose tables it was granted nothing on.
      const status = await runOhs(['status', '--db', as(url)], { env });
      expect(status.code).not.toBe(0);
      const lines = status.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^ohs: PG_PERMISSION_DENIED: /);
      expect(lines[0]).toContain('role weak_cli');
      expect(lines[0]).toContain(database(url));
      for (const r of [sync, status]) expect(r.stderr + r.stdout).not.toContain(SECRET);
    },
  );
});

describe('ohs policy import', () => {
  it('the example of its --help exists and imports, percents written 50% included', slow, async () => {
    const help = await runOhs(['policy', 'import', '--help']);
    const example = /Example: ohs policy import (\S+)/.exec(help.stdout)?.[1];
    expect(example).toBe('examples/org-policy.csv');
    expect(readFileSync(join(REPO, example ?? ''), 'utf8')).toContain('50%');
    const file = copyOfSynced();
    // As written in the help, from the package folder.
    const r = await runOhs(['policy', 'import', example ?? '', '--db', file], {
      env: { ...env, OHS_LOG_LEVEL: 'warn' },
      cwd: REPO,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await withMirror(file, async (m) => {
      const rows = await m.db
        .selectFrom('org_policy')
        .select(['org_id', 'program', 'agency', 'rp_min_drug', 'rp_min_alc', 'parent_org_id'])
        .orderBy('org_id')
        .execute();
      expect(rows).toEqual([
        {
          org_id: 1001,
          program: 'DOT',
          agency: 'FMCSA',
          rp_min_drug: 50,
          rp_min_alc: 10,
          parent_org_id: null,
        },
        { org_id: 1004, program: 'DOT', agency: 'FTA', rp_min_drug: 50, rp_min_alc: 10, parent_org_id: null },
        {
          org_id: 1005,
          program: 'NON_DOT',
          agency: null,
          rp_min_drug: 25,
          rp_min_alc: 0,
          parent_org_id: 1001,
        },
      ]);
    });
    // The sandbox's orgs: the example names orgs that exist there.
    for (const id of [1001, 1004, 1005]) expect(sim().tables.Org.get(id)).toBeDefined();
  });
});

describe('ohs demo', () => {
  it(
    'uses demo.sqlite and demo-out/, never the configured mirror, and reruns on its own file',
    slow,
    async () => {
      const dir = newDir();
      const demoEnv = { ...env, OHS_DB: join(dir, 'real.sqlite'), OHS_LOG_LEVEL: 'warn' };
      const first = await runOhs(['demo', '--scale', '0.03'], { cwd: dir, env: demoEnv, timeoutMs: 240_000 });
      // Report data warnings (level 40) may come; no error and no failure line.
      expect(first.stderr).not.toMatch(/"level":(50|60)|^ohs: /m);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`Mirror   ${join(dir, 'demo.sqlite')}`);
      // The next step names the command as it was invoked here (node and the bin's path).
      expect(first.stdout).toContain(`node ${OHS_BIN} status --db demo.sqlite`);
      expect(readdirSync(dir).sort()).toEqual(['demo-out', 'demo.sqlite']);
      expect(readdirSync(join(dir, 'demo-out')).length).toBeGreaterThan(0);
      await withMirror(join(dir, 'demo.sqlite'), async (m) => {
        expect(await readMeta(m.db, metaKeys.demoSandbox)).toBeDefined();
      });
      const again = await runOhs(['demo', '--scale', '0.03'], { cwd: dir, env: demoEnv, timeoutMs: 240_000 });
      expect(again.code).toBe(0);
    },
  );

  it('refuses a mirror filled from a service, leaving it as it was', slow, async () => {
    const file = copyOfSynced();
    const before = sha(file);
    for (const args of [
      ['demo', '--scale', '0.03', '--db', file],
      ['--db', file, 'demo', '--scale', '0.03'],
    ]) {
      const r = await runOhs(args, { env });
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `ohs: DEMO_MIRROR_IN_USE: ${file} holds data synced from ${sim().url}, not from the demo's sandbox: the demo will not write into it (leave out --db to use demo.sqlite, or give another file)`,
      );
    }
    expect(sha(file)).toBe(before);
  });

  it(
    'a mirror in a missing folder: MIRROR_OPEN_FAILED, the sandbox stopped, exits non-zero on its own',
    slow,
    async () => {
      const dir = newDir();
      const file = join(dir, 'missing', 'folder', 'x.sqlite');
      // runOhs kills the command after its timeout: a code of null would be that kill (the hang).
      const r = await runOhs(['demo', '--scale', '0.01', '--db', file], {
        cwd: dir,
        env,
        timeoutMs: 120_000,
      });
      expect(r.stderr).toMatch(/^ohs: MIRROR_OPEN_FAILED: /m);
      expect(r.code).not.toBeNull();
      expect(r.code).not.toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

describe('examples/ohs-cron.service', () => {
  const unit = readFileSync(join(REPO, 'examples', 'ohs-cron.service'), 'utf8');
  const setting = (key: string) =>
    unit
      .split('\n')
      .filter((l) => l.startsWith(`${key}=`))
      .map((l) => l.slice(key.length + 1));

  it('passes systemd-analyze verify', slow, async (ctx) => {
    const analyze = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));
    if (analyze === undefined) {
      ctx.skip('systemd-analyze is not installed here: the unit file is not verified');
      return;
    }
    const dir = newDir();
    // The node binary where this machine has it, if not at the unit's /usr/bin/node.
    const text = existsSync('/usr/bin/node') ? unit : unit.replaceAll('/usr/bin/node', process.execPath);
    writeFileSync(join(dir, 'ohs-cron.service'), text);
    let output = '';
    try {
      output = execFileSync(analyze, ['verify', join(dir, 'ohs-cron.service')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`systemd-analyze verify failed: ${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
    expect(output).not.toContain('ohs-cron.service:');
  });

  it('its ExecStart runs as a system user without a home, syncs, and stops on SIGTERM', slow, async (ctx) => {
    if (typeof user !== 'object') {
      ctx.skip(`${user}: running the unit's ExecStart needs a system user`);
      return;
    }
    const service = user;
    const [execStart] = setting('ExecStart');
    expect(execStart).toBe('/usr/bin/node /srv/ohs/bin/ohs.js cron');
    expect(setting('ExecStart').join('\n')).not.toMatch(/npx/);
    // /srv/ohs is the package folder (this checkout) for the code, a folder of the user's for data.
    const home = newDir();
    chownSync(home, service.uid, service.gid);
    const argv = (execStart ?? '')
      .split(' ')
      .map((a) => a.replace('/srv/ohs/bin/', join(REPO, 'bin/')))
      .map((a) => (a === '/usr/bin/node' && !existsSync(a) ? process.execPath : a));
    // A private checkout (or a Node under root's home) keeps the service user from the code.
    const closed = whyNotRunnableByOthers(argv.slice(0, 2));
    if (closed !== undefined) {
      ctx.skip(closed);
      return;
    }
    const unitEnv = Object.fromEntries(
      setting('Environment').map((e) => {
        const [k, v] = e.split('=', 2) as [string, string];
        return [k, v.replace('/srv/ohs', home)];
      }),
    );
    const token = join(home, '.token');
    writeFileSync(token, `${String(env.OHS_TOKEN)}\n`, { mode: 0o600 });
    chownSync(token, service.uid, service.gid);
    mkdirSync(join(home, 'config'));
    writeFileSync(
      join(home, 'config', 'local.json'),
      JSON.stringify({
        ...JSON.parse(readFileSync(config, 'utf8')),
        baseUrl: sim().url,
        logLevel: 'info',
        jobs: { schedules: { nightly: 'off', sync: '*/2 * * * * *' } },
      }),
    );
    const child = spawnAs(service, argv, { cwd: home, env: serviceEnv(service, unitEnv) });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    try {
      // The unit's journal gets the worker's text summary (config logFormat, default text).
      await new Promise<void>((resolve, reject) => {
        let buf = '';
        child.stdout?.on('data', (d: Buffer) => {
          buf += d.toString();
          if (/^sync job run \d+ ok in /m.test(buf)) resolve();
        });
        child.once('exit', (c) => reject(new Error(`exited ${c} before a run's summary: ${buf}`)));
      });
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).not.toMatch(/EACCES|nonexistent/);
    expect(code).toBe(0);
    const mirror = unitEnv.OHS_DB ?? '';
    expect(mirror).toBe(join(home, 'ohs.sqlite'));
    await withMirror(mirror, async (m) => {
      const runs = await m.db.selectFrom('job_run').select(['job', 'outcome']).execute();
      expect(runs).toContainEqual({ job: 'sync', outcome: 'ok' });
    });
  });
});
