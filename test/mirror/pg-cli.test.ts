import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';

/**
 * The CLI on a PostgreSQL mirror: sync, status and every report run unchanged with a
 * postgres:// --db; the mirror copies to SQLite, and the reports' CSVs written from the two
 * engines over the same data are equal cell for cell; the connection string's password never
 * appears in any output.
 */
const SECRET = 'Pw-7f3k-never-shown';
const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
beforeAll(async () => {});

describe.skipIf(noPg)('ohs on a PostgreSQL mirror', () => {
  const sim = withSim({ scale: 0.03 });
  const tmp = withTmpDir('ohs-pg-cli-');

  it('sync, status, report (CSVs equal to SQLite), mirror copy; no password anywhere', async () => {
    const dir = join(tmp(), '..');
    const config = cliConfig(dir);
    const env = cliEnv(sim());
    // Trust authentication ignores the password: it is there to be hidden.
    const url = (await newDatabase()).replace('postgres://ohs@', `postgres://ohs:${SECRET}@`);
    const file = join(dir, 'copied.sqlite');
    const outputs: string[] = [];
    const ohs = async (args: string[]) => {
      const r = await runOhs(['--config', config, ...args], { env, timeoutMs: 240_000 });
      outputs.push(r.stdout, r.stderr);
      expect(r.code, `ohs ${args.join(' ')}: ${r.stderr}`).toBe(0);
      return r;
    };
    await ohs(['sync', '--db', url, '--full']);
    // The same data on SQLite: the mirror copied (run times, first-seen times and ids included).
    const copy = await ohs(['mirror', 'copy', '--from', url, '--to', file]);
    expect(copy.stdout).toMatch(
      /^copied \d+ rows in \d+ tables from postgres:\/\/ohs@127\.0\.0\.1:\d+\/t_\w+ to /,
    );
    const status = await ohs(['status', '--db', url]);
    expect(status.stdout).toContain(url.replace(`:${SECRET}@`, '@'));

    const asOf = TEST_ANCHOR;
    await ohs([
      'report',
      'all',
      '--db',
      url,
      '--as-of',
      asOf,
      '--present',
      '--format',
      'csv',
      '--out',
      join(dir, 'pg-out'),
    ]);
    await ohs([
      'report',
      'all',
      '--db',
      file,
      '--as-of',
      asOf,
      '--present',
      '--format',
      'csv',
      '--out',
      join(dir, 'sqlite-out'),
    ]);
    // The roll-forward's default period on a mirror younger than a month starts at that mirror's
    // own history (these two were synced apart, seconds apart under load), and the changes
    // report's ends at each run's instant: both are compared by count, every other report byte
    // for byte.
    const periodNamed = (f: string) => f.startsWith('ar-rollforward-') || f.startsWith('changes-');
    const csvsOf = (out: string) =>
      readdirSync(join(dir, out))
        .filter((f) => f.endsWith('.csv'))
        .sort();
    const csvs = csvsOf('sqlite-out').filter((f) => !periodNamed(f));
    expect(csvs.length).toBeGreaterThan(0);
    expect(csvsOf('pg-out').filter((f) => !periodNamed(f))).toEqual(csvs);
    expect(csvsOf('pg-out').filter(periodNamed)).toHaveLength(
      csvsOf('sqlite-out').filter(periodNamed).length,
    );
    for (const f of csvs) {
      const fromPg = readFileSync(join(dir, 'pg-out', f), 'utf8');
      const fromSqlite = readFileSync(join(dir, 'sqlite-out', f), 'utf8');
      // The mirror's location is the one cell allowed to differ (the report's About lines).
      const neutral = (s: string) =>
        s
          .split(url.replace(`:${SECRET}`, ''))
          .join('<db>')
          .split(file)
          .join('<db>');
      expect(neutral(fromPg), f).toEqual(neutral(fromSqlite));
    }

    await ohs(['status', '--db', file]);
    for (const out of outputs) expect(out).not.toContain(SECRET);
  });

  it('a database without a mirror is refused by every command that does not fill one, and stays empty', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-pg-none-'));
    const url = await newDatabase();
    const location = url.replace(/\?.*$/, '');
    const cases = [
      ['status'],
      ['outbox'],
      ['plan', join(REPO, 'examples', 'payment.csv'), '--op', 'payment'],
      ['policy', 'import', join(REPO, 'examples', 'org-policy.csv')],
      ['run', 'reports', '--as-of', TEST_ANCHOR],
      ['run', 'push'],
      // Last: had any command above created the mirror's tables, status would find them.
      ['status'],
    ];
    for (const args of cases) {
      const r = await runOhs([...args, '--db', url], { env: cliEnv(sim()), cwd: dir });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim(), args.join(' ')).toBe(
        `ohs: MIRROR_OPEN_FAILED: no mirror in ${location}: run ohs sync first (or pass --db)`,
      );
    }
    expect(readdirSync(dir)).toEqual([]);
    rmSync(dir, { recursive: true });
  });

  it('an unreachable server: exit 3, PG_UNREACHABLE naming host and database, no password', async () => {
    const r = await runOhs(['status', '--db', `postgres://ohs:${SECRET}@127.0.0.1:1/mirror`], {
      env: cliEnv(sim()),
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^ohs: PG_UNREACHABLE: cannot reach PostgreSQL at 127\.0\.0\.1:1 \(database mirror\)/,
    );
    expect(r.stderr + r.stdout).not.toContain(SECRET);
  });
});
