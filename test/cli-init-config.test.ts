import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportOptionsSchema, reports } from '../src/reports/index.js';
import { type CliResult, OHS_BIN, runOhs } from './helpers/cli.js';
import { WRITE_TOKEN, withSim } from './helpers/sim.js';

/**
 * `ohs init` and `ohs config`, as an operator meets them in a fresh folder: init writes a
 * commented config and a 0600 token file from the token on standard input after checking the
 * service, its next three commands sync the sandbox and write the reports, and `ohs config`
 * names the source of every key, never the token.
 */
const sim = withSim({ scale: 0.02 });
const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-init-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The environment of a new shell: no OHS_* of the test run. */
const clean = (): NodeJS.ProcessEnv => ({ OHS_DB: '', OHS_BASE_URL: '', OHS_TOKEN: '', OHS_TOKEN_FILE: '' });

/** `ohs ARGS < input`: the CLI with `input` on standard input. */
async function ohsWithInput(args: readonly string[], input: string, cwd: string): Promise<CliResult> {
  const child = spawn(process.execPath, [OHS_BIN, ...args], {
    cwd,
    env: { ...process.env, ...clean() },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdin.end(input);
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

describe('ohs init, then the next commands it prints', () => {
  const dir = fresh();
  let init: CliResult;
  beforeAll(async () => {
    init = await ohsWithInput(['init', '--base-url', sim().url], `${WRITE_TOKEN}\n`, dir);
  }, 120_000);

  it('checks the service, writes a commented config and a 0600 token file, prints the next three commands', () => {
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`found the service at ${sim().url}`);
    const config = readFileSync(join(dir, 'config', 'local.json'), 'utf8');
    expect(config).toMatch(/^\/\/ /m);
    expect(config).not.toContain(WRITE_TOKEN);
    // The rate: the one in effect at init, and what "auto" means (no limit set).
    expect(config).toMatch(/"auto" \(no limit set\)[^\n]*\n[^\n]*\n\s*"requestsPerSecond": "auto"/);
    expect(statSync(join(dir, '.token')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'config', 'local.json')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, '.token'), 'utf8').trim()).toBe(WRITE_TOKEN);
    const next = init.stdout.split('\n').filter((l) => l.startsWith('  '));
    expect(next).toHaveLength(3);
  });

  it('the next commands, run as printed, sync the sandbox and write the reports', async () => {
    const next = init.stdout
      .split('\n')
      .filter((l) => l.startsWith('  '))
      .map((l) => l.replace(/\s+#.*$/, '').trim());
    for (const line of next) {
      // `node /path/bin/ohs.js sync`: the words after the launcher.
      const words = line.split(/\s+/);
      const args = words.slice(words.findIndex((w) => w.endsWith('ohs.js')) + 1);
      const r = await runOhs(args, { cwd: dir, env: clean(), timeoutMs: 280_000 });
      expect(r.code, `${line}: ${r.stderr}`).toBe(0);
    }
    expect(existsSync(join(dir, 'ohs.sqlite'))).toBe(true);
    const written = readdirSync(join(dir, 'out'));
    expect(written.filter((f) => f.endsWith('.xlsx')).length).toBeGreaterThan(3);
  }, 600_000);

  it('refuses to replace the config without --force (one line, INIT_EXISTS, the file unchanged)', async () => {
    const before = readFileSync(join(dir, 'config', 'local.json'), 'utf8');
    const r = await ohsWithInput(['init', '--base-url', sim().url], `${WRITE_TOKEN}\n`, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ohs: INIT_EXISTS: .*local\.json is there already.*--force\)\n$/);
    expect(readFileSync(join(dir, 'config', 'local.json'), 'utf8')).toBe(before);
    const forced = await ohsWithInput(['init', '--force', '--base-url', sim().url], `${WRITE_TOKEN}\n`, dir);
    expect(forced.code, forced.stderr).toBe(0);
  });
});

describe('ohs init refuses bad input in one line, writing nothing', () => {
  it.each([
    ['a base URL that is no URL', ['--base-url', 'ohs.example.com'], 'CONFIG_INVALID'],
    ['nothing listening', ['--base-url', 'http://127.0.0.1:9'], 'UNREACHABLE'],
    ['a refused token', [], 'UNAUTHORIZED'],
  ])('%s', async (_what, flags, code) => {
    const dir = fresh();
    const args = flags.length > 0 ? flags : ['--base-url', sim().url];
    const r = await ohsWithInput(['init', ...args], 'not-the-token\n', dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^ohs: ${code}: `));
    expect(r.stderr).not.toContain('not-the-token');
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('ohs config', () => {
  const dir = fresh();
  const env = { ...clean(), OHS_DB: join(dir, 'from-env.sqlite'), OHS_TOKEN: 'a-secret-token-value' };
  beforeAll(() => {
    const config = join(dir, 'mine.json');
    writeFileSync(
      config,
      '// a comment\n{ "baseUrl": "https://ohs.example.com/", "api": { "pageSize": 200 } }\n',
    );
  });

  it('--json: every key of the defaults with its value and source; the token only by its source', async () => {
    const r = await runOhs(['config', '--json', '--config', 'mine.json', '--log-level', 'debug'], {
      cwd: dir,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('a-secret-token-value');
    const shown = JSON.parse(r.stdout) as Record<string, { value: unknown; source: string; from?: string }>;
    const leaves = (v: unknown, path: string[]): string[] =>
      typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0
        ? Object.entries(v).flatMap(([k, w]) => leaves(w, [...path, k]))
        : [path.join('.')];
    const defaults = JSON.parse(readFileSync(join(OHS_BIN, '..', '..', 'config', 'default.json'), 'utf8'));
    for (const key of leaves(defaults, []))
      expect(shown[key]?.source, key).toMatch(/default|file|environment|flag/);
    expect(shown.baseUrl).toEqual({
      value: 'https://ohs.example.com',
      source: 'file',
      from: join(dir, 'mine.json'),
    });
    expect(shown['api.pageSize']?.source).toBe('file');
    expect(shown['api.concurrency']?.source).toBe('default');
    expect(shown.db).toMatchObject({ source: 'environment', from: 'environment OHS_DB' });
    expect(shown.logLevel).toEqual({ value: 'debug', source: 'flag', from: 'flag --log-level' });
    expect(shown.token).toEqual({ value: '(hidden)', source: 'environment', from: 'environment OHS_TOKEN' });
  });

  it('prints a table: every key, its value and its source', async () => {
    const r = await runOhs(['config', '--config', 'mine.json'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('a-secret-token-value');
    expect(r.stdout).toMatch(/^baseUrl +https:\/\/ohs\.example\.com +file .*mine\.json$/m);
    expect(r.stdout).toMatch(/^token +\(hidden\) +environment OHS_TOKEN$/m);
    expect(r.stdout).toMatch(/^db +\S+from-env\.sqlite +environment OHS_DB$/m);
    expect(r.stdout).toMatch(/^api\.concurrency +8 +default /m);
  });
});

describe('ohs report NAME --help', () => {
  it('lists the report’s options with type, default and meaning, from its declaration', async () => {
    const r = await runOhs(['report', 'compliance', '--help']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: ohs report compliance /);
    const schema = reportOptionsSchema('compliance');
    const keys = Object.keys(schema?.shape ?? {});
    expect(keys.length).toBeGreaterThan(5);
    for (const key of keys)
      expect(r.stdout, key).toMatch(new RegExp(`^ {2}${key}: .+; default: .+\\n {6}\\S`, 'm'));
    expect(r.stdout).toMatch(/^ {2}program: DOT \| NON_DOT \| all; default: all$/m);
    expect(r.stdout).toMatch(/^ {2}throughMonth: whole number 1 to 12; default: the last full month/m);
    // The options every report takes follow.
    expect(r.stdout).toMatch(/^ {2}--as-of <date> /m);
  });

  it('every option of every report says what it means', () => {
    const missing = reports.flatMap((report) =>
      Object.entries(reportOptionsSchema(report.name)?.shape ?? {})
        .filter(([, s]) => (s as { description?: string }).description === undefined)
        .map(([key]) => `${report.name}.${key}`),
    );
    expect(missing).toEqual([]);
  });
});
