import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { ID_START, withMirror } from '../helpers/mirror.js';
import { openDirs } from '../helpers/open-dirs.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import {
  createSystemUser,
  removeSystemUser,
  runAs,
  type SystemUser,
  whyNotRunnableByOthers,
} from '../helpers/system-user.js';

/** The examples of examples/ as a service account would use them, word for word but the paths. */
const REPO = fileURLToPath(new URL('../..', import.meta.url));
const newDir = openDirs('ohs-examples-');
const slow = { timeout: 300_000 };

describe('examples/crontab.txt and ohs on the PATH', () => {
  const sim = withSim({ scale: 0.03 });
  let user: SystemUser | string | undefined;
  beforeAll(() => {
    user = createSystemUser();
  });
  afterAll(() => removeSystemUser(user));

  /** A folder standing for /srv/ohs: the code (bin/ linked to this checkout's) and the service's data. */
  function serviceFolder(owner?: SystemUser): string {
    const home = newDir();
    symlinkSync(join(REPO, 'bin'), join(home, 'bin'));
    mkdirSync(join(home, 'config'));
    writeFileSync(
      join(home, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200 },
        sync: { idStart: ID_START },
      }),
    );
    writeFileSync(join(home, '.token'), `${WRITE_TOKEN}\n`, { mode: 0o600 });
    if (owner !== undefined) {
      for (const p of [home, join(home, 'config'), join(home, '.token')]) chownSync(p, owner.uid, owner.gid);
    }
    return home;
  }

  it(
    "the crontab line, run by cron's shell as a system user without a home, runs the nightly job and logs",
    slow,
    async (ctx) => {
      if (typeof user !== 'object') {
        ctx.skip(`${user}: running the crontab line needs a system user`);
        return;
      }
      const node = '/usr/bin/node';
      const closed = whyNotRunnableByOthers([process.execPath, OHS_BIN]);
      if (closed !== undefined) {
        ctx.skip(closed);
        return;
      }
      const lines = readFileSync(join(REPO, 'examples', 'crontab.txt'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '' && !l.startsWith('#'));
      expect(lines).toHaveLength(1);
      const fields = (lines[0] ?? '').split(/\s+/);
      expect(fields.slice(0, 5)).toEqual(['0', '2', '*', '*', '*']);
      const home = serviceFolder(user);
      const logs = newDir(); // `install -d -o ohs /var/log/ohs`, as the comment says
      chownSync(logs, user.uid, user.gid);
      const command = fields
        .slice(5)
        .join(' ')
        .replaceAll('/srv/ohs', home)
        .replaceAll('/var/log/ohs', logs)
        .replaceAll(node, process.execPath);
      // cron runs the line with /bin/sh, PATH=/usr/bin:/bin, HOME from the account.
      const r = await runAs(user, ['/bin/sh', '-c', command], {
        cwd: '/',
        env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent', SHELL: '/bin/sh', LOGNAME: user.name },
      });
      const log = readFileSync(join(logs, 'nightly.log'), 'utf8');
      expect(r.code, log).toBe(0);
      expect(log).not.toMatch(/EACCES|nonexistent|"level":50/);
      await withMirror(join(home, 'ohs.sqlite'), async (m) => {
        const runs = await m.db.selectFrom('job_run').select(['job', 'outcome']).execute();
        expect(runs).toEqual([{ job: 'nightly', outcome: 'ok' }]);
      });
      // The check of the crontab's comment, as that user: OK.
      const check = await runAs(
        user,
        [
          process.execPath,
          OHS_BIN,
          'status',
          '--check',
          '--max-age',
          '26h',
          '--db',
          join(home, 'ohs.sqlite'),
        ],
        { cwd: home, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } },
      );
      expect(check.stdout).toMatch(/^OHS OK - /);
      expect(check.code).toBe(0);
    },
  );

  it(
    'a symlink to bin/ohs.js on the PATH runs `ohs` by its name (README "ohs on the PATH")',
    slow,
    async () => {
      const home = serviceFolder();
      const sync = await runOhs(['sync', '--db', join(home, 'ohs.sqlite')], {
        cwd: home,
        env: { OHS_TOKEN_FILE: join(home, '.token'), OHS_DB: '', OHS_LOG_LEVEL: 'warn' },
      });
      expect(sync.code, sync.stderr).toBe(0);
      const bin = newDir();
      symlinkSync(join(REPO, 'bin', 'ohs.js'), join(bin, 'ohs'));
      // `#!/usr/bin/env node`: node on the PATH too.
      const r = spawnSync('ohs', ['status', '--check', '--db', join(home, 'ohs.sqlite')], {
        cwd: newDir(),
        env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home },
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.stdout).toMatch(/^OHS OK - /);
      expect(r.status).toBe(0);
    },
  );
});
