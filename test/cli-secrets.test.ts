import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../src/cli.js';
import { type RunningSim, startSim } from '../src/sim/index.js';
import { type CliResult, runOhs } from './helpers/cli.js';
import { ID_START } from './helpers/mirror.js';
import { TEST_ANCHOR } from './helpers/sim.js';

/**
 * No output of the CLI ever holds the bearer token. Every error path the CLI has is
 * run with the token set (environment, token file, even misplaced in config/local.json) and
 * its whole output, stdout and stderr, is searched for it.
 */
const TOKEN = 's3cret-prod-token-7f3a9c21d4';
/** A second secret-named value: a key named like a secret is never shown either. */
const PASSWORD = 'hunter2-very-private-value';

const root = mkdtempSync(join(tmpdir(), 'ohs-secrets-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

/** A fresh working directory, with config/local.json when given. */
function workdir(local?: string | object): string {
  const dir = join(root, `w${++n}`);
  mkdirSync(join(dir, 'config'), { recursive: true });
  if (local !== undefined)
    writeFileSync(
      join(dir, 'config', 'local.json'),
      typeof local === 'string' ? local : JSON.stringify(local),
    );
  return dir;
}

/** A fast client that gives up at once (these runs are about errors, not resilience). */
const quick = {
  api: { requestsPerSecond: 5000, maxRetries: 0, retryBaseMs: 1, retryMaxMs: 5, timeoutMs: 3000 },
  sync: { idStart: { ...ID_START } },
};

/** Every run of this file (the help test counts its own). */
const seen: { what: string; result: CliResult }[] = [];

async function ohs(what: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const result = await runOhs(args, {
    cwd,
    env: { OHS_TOKEN: TOKEN, OHS_BASE_URL: '', OHS_DB: '', OHS_LOG_LEVEL: '', OHS_TOKEN_FILE: '', ...env },
    timeoutMs: 120_000,
  });
  seen.push({ what, result });
  expectClean(what, result);
  return result;
}

function expectClean(what: string, r: CliResult) {
  for (const secret of [TOKEN, PASSWORD]) {
    expect(r.stdout, `${what}: stdout`).not.toContain(secret);
    expect(r.stderr, `${what}: stderr`).not.toContain(secret);
  }
}

describe('the token never reaches the output', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({
      port: 0,
      token: TOKEN,
      readonlyToken: 'read-only-token',
      scale: 0.03,
      anchorDate: TEST_ANCHOR,
    });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('a misspelt key names the key, its file and the closest valid key, never the merged config', {
    timeout: 300_000,
  }, async () => {
    const dir = workdir({ syncc: {} });
    const r = await ohs('config typo', ['status'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('ohs: CONFIG_INVALID: unknown configuration key syncc');
    expect(r.stderr).toContain(join(dir, 'config', 'local.json'));
    expect(r.stderr).toContain('did you mean sync?');
    expect(r.stderr).not.toMatch(/got \{/);
    const nested = await ohs('nested typo', ['status'], workdir({ api: { concurency: 2 } }));
    expect(nested.stderr).toContain('unknown configuration key api.concurency');
    expect(nested.stderr).toContain('did you mean api.concurrency?');
    // A secret-looking unknown key: named, its value never shown.
    const pw = await ohs('unknown secret key', ['status'], workdir({ password: PASSWORD }));
    expect(pw.stderr).toContain('unknown configuration key password');
  });

  it('bad values: shown shortened when the key is not secret-like, never when it is', {
    timeout: 300_000,
  }, async () => {
    const cases: [object, RegExp, NodeJS.ProcessEnv?][] = [
      [
        { token: TOKEN, api: { concurrency: 0 } },
        /api\.concurrency is invalid: .*\(got 0\); set in .*local\.json/,
      ],
      [{ token: [TOKEN] }, /configuration value token is invalid: .*\(got \(hidden\)\)/, { OHS_TOKEN: '' }],
      [{ tokenFile: 42 }, /configuration value tokenFile is invalid: .*\(got \(hidden\)\)/],
      [
        { token: TOKEN, timezone: 'Mars/Olympus_Mons' },
        /timezone is invalid: not an IANA time zone .*\(got "Mars\/Olympus_Mons"\)/,
      ],
      [
        { token: TOKEN, baseUrl: `ftp://x/${'a'.repeat(80)}` },
        /baseUrl is invalid: .*\(got "ftp:\/\/x\/a+…\)/,
      ],
      [
        { token: TOKEN, jobs: { schedules: { nightly: 'every night' } } },
        /jobs\.schedules\.nightly is invalid: not a valid cron/,
      ],
      [{ token: TOKEN, api: TOKEN }, /configuration value api is invalid: .*\(got \(hidden\)\)/],
      [{ api: { fieldsParam: '' } }, /api\.fieldsParam is invalid: .*\(got ""\)/],
      [
        { token: TOKEN, sync: { idStart: { invoice: { secret: PASSWORD } } } },
        /sync\.idStart\.invoice is invalid/,
      ],
    ];
    const results = await Promise.all(
      cases.map(([local, , env]) =>
        ohs(`bad value ${JSON.stringify(Object.keys(local))}`, ['status'], workdir(local), env),
      ),
    );
    results.forEach((r, i) => {
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(cases[i]?.[1] ?? /never/);
    });
    const env = await ohs('bad env value', ['status'], workdir(), { OHS_LOG_LEVEL: 'loud' });
    expect(env.stderr).toMatch(/logLevel is invalid: .*\(got "loud"\); set in environment OHS_LOG_LEVEL/);
  });

  it('broken JSON is reported by line and column, without an excerpt of the file', {
    timeout: 300_000,
  }, async () => {
    const dir = workdir(`{\n  "token": "${TOKEN}" "db": "x.sqlite"\n}`);
    const r = await ohs('broken JSON', ['status'], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/local\.json is not valid JSON: .* at line 2, column \d+/);
    const other = await ohs('broken JSON 2', ['status'], workdir(`{"token": "${TOKEN}", x}`));
    expect(other.stderr).toContain('is not valid JSON');
  });

  it('an unreachable service and a rejected token, at trace level', { timeout: 300_000 }, async () => {
    const dir = workdir(quick);
    const down = await ohs('unreachable', ['sync', '--db', 'm.sqlite', '--log-level', 'trace'], dir, {
      OHS_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/ohs: [A-Z_]+: /);
    const rejected = await ohs('rejected token', ['sync', '--db', 'r.sqlite', '--log-level', 'trace'], dir, {
      OHS_BASE_URL: sim.url,
      OHS_TOKEN: `${TOKEN}-revoked`,
    });
    expect(rejected.code).not.toBe(0);
    expect(rejected.stderr).toMatch(/401|AUTH|token/i);
    for (const probe of ['probe'])
      await ohs(`${probe} rejected`, [probe, '--log-level', 'trace'], dir, {
        OHS_BASE_URL: sim.url,
        OHS_TOKEN: `${TOKEN}-revoked`,
      });
  });

  it('trace-level logs of a successful sync and a token file readable by others', {
    timeout: 300_000,
  }, async () => {
    const dir = workdir(quick);
    const ok = await ohs('trace sync', ['sync', '--db', 'ok.sqlite', '--log-level', 'trace'], dir, {
      OHS_BASE_URL: sim.url,
    });
    expect(ok.code).toBe(0);
    expect(ok.stderr.length).toBeGreaterThan(1000); // trace really logged
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n`);
    chmodSync(file, 0o644);
    const loose = await ohs('loose token file', ['status', '--db', 'ok.sqlite'], dir, {
      OHS_TOKEN: '',
      OHS_TOKEN_FILE: file,
    });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain('is accessible by group or others (mode 0644)');
    expect(loose.stderr).toContain(`chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const tight = await ohs('tight token file', ['status', '--db', 'ok.sqlite'], dir, {
      OHS_TOKEN: '',
      OHS_TOKEN_FILE: file,
    });
    expect(tight.stderr).not.toContain('accessible by group or others');
    await ohs('token file, probe at trace', ['probe', '--log-level', 'trace'], dir, {
      OHS_TOKEN: '',
      OHS_TOKEN_FILE: file,
      OHS_BASE_URL: sim.url,
    });
  });

  it('--help of every command, usage errors, missing files', { timeout: 600_000 }, async () => {
    const dir = workdir();
    await ohs('help', ['--help'], dir);
    const lines: string[][] = [];
    const walk = (path: string[], cmd: Awaited<ReturnType<typeof buildProgram>>) => {
      for (const sub of cmd.commands) {
        lines.push([...path, sub.name()]);
        walk([...path, sub.name()], sub);
      }
    };
    walk([], await buildProgram());
    // Four at a time: each is a whole node start-up.
    for (let i = 0; i < lines.length; i += 4)
      await Promise.all(
        lines.slice(i, i + 4).map((line) => ohs(`help ${line.join(' ')}`, [...line, '--help'], dir)),
      );
    await ohs('unknown command', ['frobnicate'], dir);
    await ohs('unknown option', ['status', '--frob'], dir);
    await ohs('missing mirror', ['status', '--db', 'missing.sqlite'], dir);
    await ohs('missing mirror apply', ['apply', '--db', 'missing.sqlite'], dir);
    await ohs('missing input', ['plan', 'missing.csv', '--db', 'missing.sqlite'], dir);
    await ohs('missing config', ['status', '--config', 'missing.json'], dir);
    await ohs('missing token file', ['probe'], dir, { OHS_TOKEN: '', OHS_TOKEN_FILE: join(dir, 'nope') });
    expect(seen.filter((s) => s.what.startsWith('help ')).length).toBeGreaterThanOrEqual(13);
  });
});
