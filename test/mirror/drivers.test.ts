import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  availableDrivers,
  chooseDriver,
  SQLITE_DRIVER_ENV,
  type SqliteDriverName,
  sqliteDriverNames,
  supportedDrivers,
} from '../../src/mirror/index.js';
import { runOhs } from '../helpers/cli.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  syncInto,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';

/**
 * The mirror's SQLite driver is chosen at run time (src/mirror/sqlite/driver.ts): better-sqlite3
 * 13 where Node-API 10 exists (Node 22.14+, 24), 12 on Node 20 and early 22. The engine's tests
 * run on every driver usable on the Node running them; `.ci/run` runs the suite on Node 20 and
 * Node 24, so both drivers are covered.
 */
const node20 = { version: '20.20.2', napi: '9' };
const node22early = { version: '22.12.0', napi: '9' };
const node22 = { version: '22.21.1', napi: '10' };
const node24 = { version: '24.21.0', napi: '10' };

describe('which driver runs where', () => {
  it('chooses 13 where Node-API 10 exists, 12 on Node 20 and early 22; never 12 on Node 24', () => {
    expect(chooseDriver(undefined, node20)).toBe('better-sqlite3-12');
    expect(chooseDriver('auto', node22early)).toBe('better-sqlite3-12');
    expect(chooseDriver('', node22)).toBe('better-sqlite3-13');
    expect(chooseDriver(undefined, node24)).toBe('better-sqlite3-13');
    expect(supportedDrivers(node22)).toEqual(['better-sqlite3-13', 'better-sqlite3-12']);
    expect(supportedDrivers(node24)).toEqual(['better-sqlite3-13']);
    expect(supportedDrivers(node20)).toEqual(['better-sqlite3-12']);
  });

  it('OHS_SQLITE_DRIVER forces a driver, and refuses one that would crash on this Node', () => {
    expect(chooseDriver('better-sqlite3-12', node22)).toBe('better-sqlite3-12');
    expect(() => chooseDriver('better-sqlite3-12', node24)).toThrow(
      expect.objectContaining({ code: 'SQLITE_DRIVER', message: expect.stringMatching(/aborts on Node 24/) }),
    );
    expect(() => chooseDriver('better-sqlite3-13', node20)).toThrow(
      expect.objectContaining({ code: 'SQLITE_DRIVER', message: expect.stringMatching(/needs Node-API 10/) }),
    );
    expect(() => chooseDriver('sqlite3', node24)).toThrow(
      expect.objectContaining({
        code: 'SQLITE_DRIVER',
        message: `${SQLITE_DRIVER_ENV}="sqlite3" is not a driver (use auto, better-sqlite3-13, better-sqlite3-12)`,
      }),
    );
  });

  it('this Node has the driver it chooses installed', () => {
    const chosen = chooseDriver(undefined);
    expect(availableDrivers()).toContain(chosen);
    expect(availableDrivers()[0]).toBe(chosen);
  });
});

describe.each(availableDrivers())('the mirror on %s', (driver: SqliteDriverName) => {
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir('ohs-driver-');
  const env = () => ({ ...cliEnv(sim()), [SQLITE_DRIVER_ENV]: driver });

  it('an in-process sync fills a mirror equal to the sandbox truth', async () => {
    const saved = process.env[SQLITE_DRIVER_ENV];
    process.env[SQLITE_DRIVER_ENV] = driver;
    try {
      const file = tmp();
      const report = await syncInto(sim(), file);
      expect(report.outcome).toBe('ok');
      await withMirror(file, async (m) => {
        expect(m.driver).toBe(driver);
        await expectMirrorEqualsTruth(m, sim().truth());
      });
    } finally {
      if (saved === undefined) delete process.env[SQLITE_DRIVER_ENV];
      else process.env[SQLITE_DRIVER_ENV] = saved;
    }
  });

  it('ohs sync, a second (incremental) sync and ohs report run through the CLI and exit 0', async () => {
    const file = tmp();
    const dir = mkdtempSync(join(tmpdir(), 'ohs-driver-cli-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const config = cliConfig(dir);
    for (let i = 0; i < 2; i++) {
      const sync = await runOhs(['sync', '--db', file, '--config', config], {
        env: env(),
        timeoutMs: 120_000,
      });
      expect(sync, sync.stderr).toMatchObject({ code: 0, stderr: '' });
    }
    const report = await runOhs(
      [
        'report',
        'unpaid-invoices',
        '--as-of',
        TEST_ANCHOR,
        '--present',
        '--db',
        file,
        '--config',
        config,
        '--out',
        dir,
      ],
      {
        env: env(),
        timeoutMs: 120_000,
      },
    );
    expect(report, report.stderr).toMatchObject({ code: 0 });
    expect(existsSync(join(dir, `unpaid-invoices-${TEST_ANCHOR}.xlsx`))).toBe(true);
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth());
      const runs = await m.db.selectFrom('sync_run').select(['outcome', 'mode']).orderBy('id').execute();
      expect(runs.map((r) => r.outcome)).toEqual(['ok', 'ok']);
    });
  });
});

describe('a driver that cannot run here is refused with one line, before any file is made', () => {
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-driver-bad-');
  const unusable = sqliteDriverNames.filter((d) => !supportedDrivers().includes(d));

  it.each(['no-such-driver', ...unusable])(
    'OHS_SQLITE_DRIVER=%s: exit 2, SQLITE_DRIVER, no mirror',
    async (name) => {
      const file = tmp();
      const r = await runOhs(['sync', '--db', file], {
        env: { ...cliEnv(sim()), [SQLITE_DRIVER_ENV]: name },
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(`^ohs: SQLITE_DRIVER: ${SQLITE_DRIVER_ENV}=\\S+ (is not a driver|cannot be used)`),
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(existsSync(file)).toBe(false);
    },
  );
});
