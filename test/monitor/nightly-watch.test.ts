import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobNotice } from '../../src/app/watch.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { describeEngines, engines, withTargets } from '../helpers/engines.js';
import { ID_START } from '../helpers/mirror.js';
import { openDirs } from '../helpers/open-dirs.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import {
  createSystemUser,
  removeSystemUser,
  runAs,
  type SystemUser,
  serviceEnv,
  whyNotRunnableByOthers,
} from '../helpers/system-user.js';

const newDir = openDirs('ohs-watch-');

/** A local HTTP server standing for the webhook receiver: every POST body, parsed. */
function webhookReceiver() {
  const received: { body: JobNotice; type: string | undefined; raw: string }[] = [];
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => {
        raw += d.toString();
      });
      req.on('end', () => {
        received.push({ body: JSON.parse(raw) as JobNotice, type: req.headers['content-type'], raw });
        res.writeHead(204).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/ohs?key=hook-secret`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));
  return { received, url: () => url };
}

/** Checks every line against the text format's grammar (prometheus.io exposition formats). */
function expectTextFormat(text: string): void {
  expect(text.endsWith('\n')).toBe(true);
  const name = '[a-zA-Z_:][a-zA-Z0-9_:]*';
  const labelValue = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
  const sample = new RegExp(
    `^${name}(?:\\{${'[a-zA-Z_][a-zA-Z0-9_]*'}=${labelValue}(?:,[a-zA-Z_][a-zA-Z0-9_]*=${labelValue})*\\})? (?:[-+]?(?:\\d+(?:\\.\\d*)?(?:[eE][-+]?\\d+)?|Inf)|NaN)$`,
  );
  const typed = new Set<string>();
  for (const line of text.trimEnd().split('\n')) {
    if (line.startsWith('# HELP ')) expect(line).toMatch(new RegExp(`^# HELP ${name} \\S`));
    else if (line.startsWith('# TYPE ')) {
      const m = new RegExp(`^# TYPE (${name}) (gauge|counter)$`).exec(line);
      expect(m, line).not.toBeNull();
      expect(typed.has(m?.[1] ?? ''), `${line}: TYPE twice`).toBe(false);
      typed.add(m?.[1] ?? '');
    } else {
      expect(line, 'a sample line').toMatch(sample);
      expect(typed.has(line.split(/[{ ]/)[0] ?? ''), `${line}: no TYPE before it`).toBe(true);
    }
  }
}

describeEngines('%s: the nightly job, watched', {}, (engine) => {
  // Small data (each test runs the whole nightly job, sync and reports, once or twice): what is
  // checked is what the job does with its outcome and its files, whatever their size.
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);
  const hook = webhookReceiver();

  /** A working folder whose config/local.json names a new mirror and `monitor` settings. */
  async function setUp(monitor: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    const dir = newDir();
    const db = engine === 'postgres' ? await target() : join(dir, 'ohs.sqlite');
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        db,
        logLevel: 'warn',
        api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200, maxRetries: 2 },
        sync: { idStart: ID_START },
        monitor,
        ...extra,
      }),
    );
    return { dir, db };
  }
  const nightly = (dir: string, token = WRITE_TOKEN, ...args: string[]) =>
    runOhs(['run', 'nightly', ...args], {
      cwd: dir,
      env: { OHS_TOKEN: token, OHS_DB: '', OHS_LOG_LEVEL: '', OHS_BASE_URL: '' },
      timeoutMs: 240_000,
    });

  it('notify: the webhook and the command get the JSON notice of a failed run, of a good one only with onSuccess; never the token', async () => {
    const out = join(newDir(), 'notices.ndjson');
    const notify = {
      webhook: hook.url(),
      command: ['/bin/sh', '-c', `cat >> '${out}'`],
      onSuccess: false,
      timeoutMs: 10_000,
    };
    const { dir } = await setUp({ notify });
    hook.received.length = 0;
    const failed = await nightly(dir, 'a-wrong-token');
    expect(failed.code).not.toBe(0);
    expect(hook.received).toHaveLength(1);
    const notice = hook.received[0];
    expect(notice?.type).toBe('application/json');
    expect(notice?.body).toMatchObject({
      job: 'nightly',
      runId: 1,
      trigger: 'run',
      outcome: 'failed',
      files: 0,
      sync: { runId: 1, outcome: 'failed' },
    });
    expect(notice?.body.errorCode).toMatch(/^[A-Z_]+$/);
    expect(notice?.body.errorCode).toBe(notice?.body.sync?.errorCode);
    expect(notice?.raw).not.toMatch(/a-wrong-token|test-write-token|Bearer/);
    // The command got the same notice on its stdin.
    expect(readFileSync(out, 'utf8')).toBe(notice?.raw);

    const good = await nightly(dir);
    expect(good.code, good.stderr).toBe(0);
    expect(hook.received).toHaveLength(1); // ok, and onSuccess is off

    const { dir: dir2 } = await setUp({ notify: { ...notify, onSuccess: true } });
    const ok = await nightly(dir2);
    expect(ok.code, ok.stderr).toBe(0);
    expect(hook.received).toHaveLength(2);
    const success = hook.received[1]?.body;
    // Seven reports as xlsx and csv, the Trend CSVs of unpaid-invoices and compliance, and the
    // run's controls (src/app/controls.ts) as xlsx and csv.
    expect(success).toMatchObject({ job: 'nightly', outcome: 'ok', errorCode: null, files: 18 });
    // The changes report of the run, from its result: its verdict and counts (a page or not).
    expect(success?.changes?.headline).toEqual(expect.any(String));
    expect(success?.changes?.counts?.lines).toEqual(expect.any(Number));
    // The counts are the sync's: a first run inserts every order item of the sandbox.
    expect(success?.sync?.streams.orderitem).toMatchObject({
      outcome: 'ok',
      inserted: sim().tables.OrderItem.all().length,
      deleted: 0,
    });
    expect(success?.sync?.requests).toBeGreaterThan(0);
    expect(hook.received[1]?.raw).not.toContain(WRITE_TOKEN);

    // Upstream changes, and the next nightly run: its notice counts what changed since the last
    // run, with the headline of the changes page; never an org's name or an amount.
    sim().mutate(4);
    const { dir: dir3 } = await setUp(
      { notify: { ...notify, onSuccess: true } },
      { jobs: { formats: ['csv', 'html'] } },
    );
    expect((await nightly(dir3)).code).toBe(0);
    sim().mutate(4);
    const next = await nightly(dir3);
    expect(next.code, next.stderr).toBe(0);
    const changed = hook.received.at(-1);
    expect(changed?.body.changes?.headline).toMatch(
      /^since the last run \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [^)]+\): /,
    );
    expect(changed?.body.changes?.counts?.lines).toBeGreaterThan(0);
    expect(changed?.body.changes?.level).toMatch(/^(ok|warn|bad)$/);
    for (const inv of sim().truth().Invoice.slice(0, 50))
      expect(changed?.raw).not.toContain(String(inv.c_org));
    expect(changed?.raw).not.toMatch(/\$\d/);
  }, 300_000);

  /**
   * What the job does beside the mirror (a webhook it cannot reach, report files it keeps or
   * removes) is the same whatever the engine: on the first engine under test only. The notices,
   * the textfile's figures and the BI snapshot, which read the mirror's runs, run on every engine.
   */
  const firstEngineOnly = it.runIf(engine === engines[0]);

  firstEngineOnly(
    'a webhook that cannot be reached is logged, and the run keeps its outcome',
    async () => {
      const { dir } = await setUp({
        notify: { webhook: 'http://127.0.0.1:9/down', command: null, onSuccess: true, timeoutMs: 2000 },
      });
      const r = await nightly(dir);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/notify webhook failed/);
      expect(r.stderr).not.toContain('/down');
    },
    240_000,
  );

  it('the Prometheus textfile: written atomically after each run, parsed by a text-format parser, figures from the mirror', async () => {
    const folder = newDir();
    const textfile = join(folder, 'ohs.prom');
    const { dir } = await setUp({ textfile });
    const ok = await nightly(dir);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readdirSync(folder)).toEqual(['ohs.prom']); // no temporary file left
    expect(statSync(textfile).mode & 0o777).toBe(0o644);
    const text = readFileSync(textfile, 'utf8');
    expectTextFormat(text);
    const families = parsePrometheusTextFormat(text);
    const value = (name: string, labels: Record<string, string>) =>
      families
        .find((f) => f.name === name)
        ?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value;
    expect(families.every((f) => f.type === 'GAUGE')).toBe(true);
    expect(value('ohs_job_last_run_success', { job: 'nightly' })).toBe('1');
    expect(value('ohs_job_last_run_outcome', { job: 'nightly', outcome: 'ok' })).toBe('1');
    expect(value('ohs_job_last_run_outcome', { job: 'nightly', outcome: 'failed' })).toBe('0');
    const end = Number(value('ohs_job_last_run_end_timestamp_seconds', { job: 'nightly' }));
    expect(end).toBeGreaterThanOrEqual(
      Number(value('ohs_job_last_run_start_timestamp_seconds', { job: 'nightly' })),
    );
    expect(Number(value('ohs_stream_rows', { stream: 'orderitem' }))).toBe(
      sim().tables.OrderItem.all().length,
    );
    expect(Number(value('ohs_stream_last_run_records', { stream: 'orderitem' }))).toBeGreaterThanOrEqual(
      sim().tables.OrderItem.all().length,
    );
    expect(Number(value('ohs_stream_last_run_requests', { stream: 'orderitem' }))).toBeGreaterThan(0);
    expect(Number(value('ohs_stream_last_success_timestamp_seconds', { stream: 'invoice' }))).toBeGreaterThan(
      0,
    );
    const rate = families.find((f) => f.name === 'ohs_rate_requests_per_second')?.metrics[0];
    expect(rate?.labels?.budget).toMatch(new RegExp(`^${sim().url}#[0-9a-f]{32}$`)); // a keyed hash of the token
    expect(text).not.toContain(WRITE_TOKEN);

    // A failed run is there at once.
    const failed = await nightly(dir, 'a-wrong-token');
    expect(failed.code).not.toBe(0);
    const after = parsePrometheusTextFormat(readFileSync(textfile, 'utf8'));
    const fam = (name: string) => after.find((f) => f.name === name)?.metrics ?? [];
    expect(fam('ohs_job_last_run_success').find((m) => m.labels?.job === 'nightly')?.value).toBe('0');
    expect(
      fam('ohs_job_last_run_outcome').find(
        (m) => m.labels?.job === 'nightly' && m.labels.outcome === 'failed',
      )?.value,
    ).toBe('1');
  }, 300_000);

  firstEngineOnly(
    'retention goes by when a report file was written, not by the date in its name',
    async () => {
      const { dir } = await setUp({}, { jobs: { outDir: 'out', retentionDays: 30 } });
      expect((await nightly(dir)).code).toBe(0);
      const outDir = join(dir, 'out');
      // An ad hoc report for a past date, made this morning.
      const adhoc = await runOhs(
        ['report', 'compliance', '--as-of', '2024-01-31', '--present', '--format', 'csv', '--out', 'out'],
        {
          cwd: dir,
          env: { OHS_DB: '', OHS_LOG_LEVEL: '' },
        },
      );
      expect(adhoc.code, adhoc.stderr).toBe(0);
      expect(existsSync(join(outDir, 'compliance-2024-01-31.csv'))).toBe(true);
      // One of tonight's names, last written 40 days ago (a file of an old run kept under a new name).
      const today =
        readdirSync(outDir).find((f) => f.startsWith('order-ageing-') && f.endsWith('.csv')) ?? '';
      const oldCopy = join(outDir, today.replace(/\d{4}-\d{2}-\d{2}/, '2099-01-01'));
      writeFileSync(oldCopy, 'old');
      const forty = Date.now() / 1000 - 40 * 86_400;
      utimesSync(oldCopy, forty, forty);
      // Not a report file: never touched, however old.
      writeFileSync(join(outDir, 'notes.txt'), 'mine');
      utimesSync(join(outDir, 'notes.txt'), forty, forty);
      expect((await nightly(dir)).code).toBe(0);
      const left = readdirSync(outDir);
      expect(left).toContain('compliance-2024-01-31.csv');
      expect(left).toContain('notes.txt');
      expect(left).not.toContain('order-ageing-2099-01-01.csv');
      // Tonight's sixteen (two Trend CSVs among them), the ad-hoc compliance CSV with its Trend CSV,
      // and the first run's roll-forward and changes: both are named by their period, which ends at
      // each run's instant, so the two runs' files are apart.
      expect(left).toContain('compliance-trend-2024-01-31.csv');
      expect(left.filter((f) => /^ar-rollforward-.*\.csv$/.test(f))).toHaveLength(2);
      // And the controls of the run, one name for both runs of the day (its xlsx and csv).
      expect(left.filter((f) => /\.(xlsx|csv)$/.test(f))).toHaveLength(24);
    },
    300_000,
  );

  describe('the BI snapshot, read by another Unix user', () => {
    let user: SystemUser | string | undefined;
    beforeAll(() => {
      user = createSystemUser();
    });
    afterAll(() => removeSystemUser(user));

    it('a consistent read-only SQLite file, no WAL, mode and group from config: the BI user reads it, not the live mirror', async (ctx) => {
      if (typeof user !== 'object') {
        ctx.skip(`${user}: reading as another user needs a second user`);
        return;
      }
      const closed = whyNotRunnableByOthers([process.execPath, OHS_BIN]);
      if (closed !== undefined) {
        ctx.skip(closed);
        return;
      }
      const bi = user;
      const shared = newDir(); // root's, 0755: the BI user cannot write here
      const path = join(shared, 'ohs-bi.sqlite');
      const { dir, db } = await setUp({ snapshot: { path, mode: '0640', group: bi.gid } });
      const r = await nightly(dir);
      expect(r.code, r.stderr).toBe(0);
      expect(readdirSync(shared)).toEqual(['ohs-bi.sqlite']);
      const st = statSync(path);
      expect(st.mode & 0o777).toBe(0o640);
      expect(st.gid).toBe(bi.gid);
      // Rollback journal (file format bytes 18 and 19 are 1), not WAL (2).
      const header = readFileSync(path).subarray(18, 20);
      expect([...header]).toEqual([1, 1]);

      const as = (args: string[]) =>
        runAs(bi, [process.execPath, OHS_BIN, ...args], {
          cwd: shared,
          env: serviceEnv(bi, { OHS_LOG_LEVEL: 'warn' }),
        });
      const status = await as(['status', '--db', path, '--json']);
      expect(status.stderr).toBe('');
      expect(status.code).toBe(0);
      const streams = (JSON.parse(status.stdout) as { streams: { stream: string; rows: number }[] }).streams;
      expect(streams.find((s) => s.stream === 'orderitem')?.rows).toBe(sim().tables.OrderItem.all().length);
      // The BI user's tool (a plain driver, read-only) opens it too, and writes nothing beside it.
      const query = await runAs(
        bi,
        [
          process.execPath,
          '--input-type=module',
          '-e',
          `import { sqliteDriver } from '${join(process.cwd(), 'dist', 'src', 'mirror', 'index.js')}';
           const d = new (sqliteDriver().Database)(process.argv[1], { readonly: true, fileMustExist: true });
           console.log(d.prepare('select count(*) from invoice where deleted_at is null').pluck().get());`,
          path,
        ],
        { cwd: shared, env: serviceEnv(bi) },
      );
      expect(query.stderr).toBe('');
      expect(Number(query.stdout.trim())).toBe(sim().tables.Invoice.all().length);
      expect(readdirSync(shared)).toEqual(['ohs-bi.sqlite']);
      // The live mirror stays the service account's own.
      if (engine === 'sqlite') {
        expect(statSync(db).mode & 0o777).toBe(0o600);
        const live = await as(['status', '--db', db]);
        expect(live.code).not.toBe(0);
      }
      // The next night replaces it whole.
      const again = await nightly(dir);
      expect(again.code, again.stderr).toBe(0);
      expect(statSync(path).ino).not.toBe(st.ino);
      expect(readdirSync(shared)).toEqual(['ohs-bi.sqlite']);
    }, 300_000);
  });
});
