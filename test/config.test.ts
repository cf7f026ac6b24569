import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig, resolveToken } from '../src/config/index.js';
import { ConfigError } from '../src/errors.js';
import { createLogger } from '../src/log.js';
import { runOhs } from './helpers/cli.js';

function workdir(local?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-config-'));
  if (local !== undefined) {
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify(local));
  }
  return dir;
}

describe('configuration', () => {
  it('takes config/default.json when nothing overrides it', () => {
    const c = loadConfig({}, {}, workdir());
    expect(c.baseUrl).toBe('http://127.0.0.1:8787');
    expect(c.db).toBe('ohs.sqlite');
    expect(c.api.concurrency).toBe(8);
    expect(c.token).toBeUndefined();
  });

  it('applies local.json, then the environment, then flags, flags winning', () => {
    const dir = workdir({ baseUrl: 'http://local.example', db: 'local.sqlite', api: { concurrency: 3 } });
    const local = loadConfig({}, {}, dir);
    expect(local).toMatchObject({ baseUrl: 'http://local.example', db: 'local.sqlite' });
    expect(local.api.concurrency).toBe(3);
    expect(local.api.pageSize).toBe(500); // deep merge keeps the other api defaults

    const env = {
      OHS_BASE_URL: 'http://env.example',
      OHS_DB: 'env.sqlite',
      OHS_TOKEN: 'secret-env',
      OHS_LOG_LEVEL: 'warn',
    };
    const fromEnv = loadConfig({}, env, dir);
    expect(fromEnv.baseUrl).toBe('http://env.example');
    expect(fromEnv.db).toBe('env.sqlite');
    expect(fromEnv.logLevel).toBe('warn');
    expect(resolveToken(fromEnv)).toBe('secret-env');

    const fromFlags = loadConfig(
      { baseUrl: 'http://flag.example/api/', db: 'flag.sqlite', logLevel: 'debug' },
      env,
      dir,
    );
    expect(fromFlags.baseUrl).toBe('http://flag.example/api');
    expect(fromFlags.db).toBe('flag.sqlite');
    expect(fromFlags.logLevel).toBe('debug');
  });

  it('reads the token from OHS_TOKEN_FILE, trimmed', () => {
    const dir = workdir();
    const file = join(dir, 'token');
    writeFileSync(file, '  tok-from-file\n');
    expect(resolveToken(loadConfig({}, { OHS_TOKEN_FILE: file }, dir))).toBe('tok-from-file');
    const missing = loadConfig({}, { OHS_TOKEN_FILE: join(dir, 'nope') }, dir);
    expect(() => resolveToken(missing)).toThrow(/cannot read token file/);
  });

  it('reports a bad value by its key, with the CONFIG_INVALID code', () => {
    const dir = workdir({ api: { concurrency: 0 } });
    let err: unknown;
    try {
      loadConfig({}, {}, dir);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('CONFIG_INVALID');
    expect((err as ConfigError).message).toMatch(
      /^configuration value api\.concurrency is invalid: .*\(got 0\)/,
    );
  });

  it('rejects unknown keys and malformed values', () => {
    expect(() => loadConfig({}, {}, workdir({ api: { concurency: 2 } }))).toThrow(/api.*concurency/);
    expect(() => loadConfig({ baseUrl: 'not a url' }, {}, workdir())).toThrow(/baseUrl is invalid/);
    expect(() => loadConfig({ logLevel: 'loud' }, {}, workdir())).toThrow(/logLevel is invalid/);
    const dir = workdir();
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'local.json'), '{ not json');
    expect(() => loadConfig({}, {}, dir)).toThrow(/local\.json is not valid JSON/);
    expect(() => loadConfig({ config: 'missing.json' }, {}, dir)).toThrow(
      /cannot read config file .*missing\.json: ENOENT/,
    );
  });

  it('names a misspelt key with its source and the closest valid key, at any depth', () => {
    const dir = workdir({ jobs: { schedules: { nihgtly: '0 3 * * *' } }, Timezone: 'UTC' });
    const local = join(dir, 'config', 'local.json');
    // The top-level key first: it is the likelier cause of whatever else fails.
    expect(() => loadConfig({}, {}, dir)).toThrow(
      `unknown configuration key Timezone in ${local} (did you mean timezone?); valid keys: baseUrl, token, tokenFile, db, logLevel, logFormat, logFile, timezone, api, mirror, sync, jobs, reports, writeback, input, monitor, service`,
    );
    const nested = workdir({ jobs: { schedules: { nihgtly: '0 3 * * *' } } });
    expect(() => loadConfig({}, {}, nested)).toThrow(
      /unknown configuration key jobs\.schedules\.nihgtly in .*local\.json \(did you mean jobs\.schedules\.nightly\?\)/,
    );
    // Nothing close: no suggestion rather than a wrong one.
    expect(() => loadConfig({}, {}, workdir({ frobnicator: 1 }))).toThrow(
      /^unknown configuration key frobnicator in .*local\.json; valid keys: /,
    );
  });

  it('switches a schedule off with null or "off", and checks the time zone at load', () => {
    const off = loadConfig(
      {},
      {},
      workdir({ jobs: { schedules: { nightly: null, sync: 'OFF', reports: '0 5 * * *' } } }),
    );
    expect(off.jobs.schedules).toEqual({ reports: '0 5 * * *' });
    expect(loadConfig({}, {}, workdir({ timezone: 'America/Chicago' })).timezone).toBe('America/Chicago');
    expect(() => loadConfig({}, {}, workdir({ timezone: 'Central' }))).toThrow(
      /timezone is invalid: not an IANA/,
    );
  });

  it('never shows the token in a validation error', () => {
    const dir = workdir({ token: '' });
    expect(() => loadConfig({}, {}, dir)).toThrow(/token is invalid.*\(got \(hidden\)\)/);
  });
});

describe('logging', () => {
  it('redacts tokens and personal fields from log lines', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _enc, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    const logger = createLogger({ level: 'info', pretty: false, destination });
    logger.info(
      {
        token: 'secret-token',
        headers: { authorization: 'Bearer secret-token' },
        record: { ssn: '123-45-6789', id_birthdate: '1970-01-01' },
      },
      'hello',
    );
    const entry = JSON.parse(lines.join('')) as Record<string, unknown>;
    const text = JSON.stringify(entry);
    expect(entry.msg).toBe('hello');
    expect(text).not.toContain('secret-token');
    expect(text).not.toContain('123-45-6789');
    expect(text).not.toContain('1970-01-01');
    expect(entry.token).toBe('[redacted]');
  });
});

describe('ohs sim options', () => {
  it('rejects an out-of-range sandbox option with a USAGE line', async () => {
    const r = await runOhs(['sim', '--port', '0', '--anchor-date', '2026/01/01']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^ohs: USAGE: sandbox option anchorDate: expected YYYY-MM-DD/);
  });
});
