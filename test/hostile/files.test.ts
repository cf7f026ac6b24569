import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { reportCli } from '../helpers/report-cli.js';
import { withSim } from '../helpers/sim.js';

const mode = (f: string) => statSync(f).mode & 0o777;

/**
 * Files cannot be turned against the user. A mirror path that is a symbolic link is
 * refused (nothing followed, no mode changed), a file that is not a mirror keeps its mode, a new
 * mirror is 0600, and bad --out paths fail with a clear error, not INTERNAL. SQLite only: these
 * are about paths on disk (a PostgreSQL mirror is a URL).
 */
describe('mirror and output paths', () => {
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-files-');

  const sync = (db: string, dir: string) =>
    runOhs(['sync', '--db', db, '--config', cliConfig(dir)], { env: cliEnv(sim()), timeoutMs: 90_000 });

  it('refuses a mirror path that is a symbolic link, live or dangling: nothing followed, nothing chmodded', async () => {
    const dir = dirname(tmp());
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'root:x:0:0\n', { mode: 0o644 });
    const link = join(dir, 'mirror.sqlite');
    symlinkSync(victim, link);
    const live = await sync(link, dir);
    expect(live.code).not.toBe(0);
    expect(live.stderr).toMatch(/ohs: MIRROR_OPEN_FAILED: .*mirror\.sqlite is a symbolic link/);
    expect(mode(victim)).toBe(0o644);
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0\n');

    const dangling = join(dir, 'dangling.sqlite');
    const elsewhere = join(dir, 'elsewhere.sqlite');
    symlinkSync(elsewhere, dangling);
    const r = await sync(dangling, dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/dangling\.sqlite is a symbolic link/);
    expect(existsSync(elsewhere)).toBe(false);

    // A link at the -wal file is refused as well.
    const db = join(dir, 'wal.sqlite');
    symlinkSync(victim, `${db}-wal`);
    const wal = await sync(db, dir);
    expect(wal.stderr).toMatch(/wal\.sqlite-wal is a symbolic link/);
    expect(readFileSync(victim, 'utf8')).toBe('root:x:0:0\n');
  });

  it('a file that is not a mirror keeps its mode; a new mirror is created 0600', async () => {
    const dir = dirname(tmp());
    const notes = join(dir, 'notes.sqlite');
    writeFileSync(notes, 'my notes\n', { mode: 0o644 });
    const r = await sync(notes, dir);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/notes\.sqlite is not a SQLite file/);
    expect(mode(notes)).toBe(0o644);
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');

    const fresh = join(dir, 'fresh.sqlite');
    const ok = await sync(fresh, dir);
    expect(ok.code, ok.stderr).toBe(0);
    expect(mode(fresh)).toBe(0o600);
  });

  it('a bad --out names the path and the reason (OUTPUT_INVALID, exit 2), never INTERNAL', async () => {
    const dir = dirname(tmp());
    const db = join(dir, 'ok.sqlite');
    expect((await sync(db, dir)).code).toBe(0);
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o500 });
    const cases = [file, join(file, 'sub')];
    if (process.getuid?.() !== 0) cases.push(locked); // root may write anywhere
    for (const out of cases) {
      const r = await reportCli(sim(), db, dir, out);
      expect(r.code, out).toBe(2);
      expect(r.stderr.trim(), out).toMatch(/^ohs: OUTPUT_INVALID: --out .*: cannot write reports there: /);
    }
  });
});
