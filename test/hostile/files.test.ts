import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OutputError } from '../../src/errors.js';
import { openLogFile, PrivateFolder } from '../../src/util/safe-file.js';
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

  const sync = (db: string, dir: string, ...more: string[]) =>
    runOhs(['sync', '--db', db, '--config', cliConfig(dir), ...more], {
      env: cliEnv(sim()),
      timeoutMs: 90_000,
    });

  it('the log file: a planted link refused, 0600 whatever was there, another user refused, pretty writes it too', async () => {
    const dir = dirname(tmp());
    const db = join(dir, 'log.sqlite');
    const victim = join(dir, 'victim.log');
    writeFileSync(victim, 'theirs\n', { mode: 0o644 });
    const link = join(dir, 'ohs.log');
    symlinkSync(victim, link);
    const linked = await sync(db, dir, '--log-file', link);
    expect(linked.code).toBe(2);
    expect(linked.stderr.trim().split('\n')[0]).toMatch(
      /^ohs: OUTPUT_INVALID: logFile .*ohs\.log: is a symbolic link/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('theirs\n');
    expect(mode(victim)).toBe(0o644);

    // An existing 0644 log is tightened to 0600, and the pretty format writes it too (as JSON).
    const log = join(dir, 'pretty.log');
    writeFileSync(log, '', { mode: 0o644 });
    const pretty = await sync(db, dir, '--log-format', 'pretty', '--log-level', 'info', '--log-file', log);
    expect(pretty.code, pretty.stderr).toBe(0);
    expect(mode(log)).toBe(0o600);
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    // A new log file is created 0600.
    const fresh = join(dir, 'fresh.log');
    expect((await sync(db, dir, '--log-file', fresh)).code).toBe(0);
    expect(mode(fresh)).toBe(0o600);

    // Another user's file is not appended to (root can hand a file to another user to show it).
    if (process.getuid?.() === 0) {
      const other = join(dir, 'other.log');
      writeFileSync(other, 'not ours\n', { mode: 0o600 });
      chownSync(other, 65534, 65534);
      const r = await sync(db, dir, '--log-file', other);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/OUTPUT_INVALID: logFile .*other\.log: belongs to another user/);
      expect(readFileSync(other, 'utf8')).toBe('not ours\n');
    }
  });

  it('the log file: a hard link and a FIFO refused in under a second, nothing appended, the command never waits', async () => {
    const dir = dirname(tmp());
    const db = join(dir, 'log.sqlite');
    const refusal = (path: string) => {
      const started = performance.now();
      try {
        openLogFile(path);
        return { what: 'opened', ms: performance.now() - started };
      } catch (err) {
        return {
          what: err instanceof OutputError ? `${err.code}: ${err.message}` : String(err),
          ms: performance.now() - started,
        };
      }
    };

    // A hard link: the file is known by another name too; refused, not appended to.
    const theirs = join(dir, 'theirs.log');
    writeFileSync(theirs, 'theirs\n', { mode: 0o600 });
    const hard = join(dir, 'hard.log');
    linkSync(theirs, hard);
    const linked = refusal(hard);
    expect(linked.what).toMatch(/^OUTPUT_INVALID: logFile .*hard\.log: has 2 links/);
    expect(linked.ms).toBeLessThan(1000);

    // A FIFO with no reader: an open that would wait for a reader forever is refused at once.
    const fifo = join(dir, 'fifo.log');
    execFileSync('mkfifo', ['-m', '600', fifo]);
    const piped = refusal(fifo);
    expect(piped.what).toMatch(/^OUTPUT_INVALID: logFile .*fifo\.log: not a regular file/);
    expect(piped.ms).toBeLessThan(1000);

    // The command: each refused with exit 2 and its one line, nothing synced, the file untouched.
    for (const [path, why] of [
      [hard, /has 2 links/],
      [fifo, /not a regular file/],
    ] as const) {
      const r = await sync(db, dir, '--log-file', path);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n')[0]).toMatch(
        new RegExp(`^ohs: OUTPUT_INVALID: logFile .*${why.source}`),
      );
    }
    expect(readFileSync(theirs, 'utf8')).toBe('theirs\n');
  });

  it("the packet's folder: a link at its temporary or final name, or the folder swapped, is OUTPUT_INVALID and nothing is written through it", async () => {
    const dir = join(dirname(tmp()), 'packets');
    mkdirSync(dir);
    const theirs = join(dirname(tmp()), 'theirs');
    mkdirSync(theirs);
    const refusal = (f: () => unknown) =>
      Promise.resolve()
        .then(f)
        .then(
          () => 'done',
          (err: unknown) =>
            err instanceof OutputError ? `${err.code}: ${err.message}` : `other: ${String(err)}`,
        );

    // A link planted at the temporary name: refused, not followed.
    const planted = join(dir, '.packet.tmp-1');
    symlinkSync(theirs, planted);
    expect(await refusal(() => PrivateFolder.make(planted))).toMatch(
      /^OUTPUT_INVALID: .*packet\.tmp-1: cannot create it/,
    );

    // Made 0700; swapped for a link to another folder before a write: found, nothing written there.
    const folder = await PrivateFolder.make(join(dir, '.packet.tmp-2'));
    expect(mode(folder.path)).toBe(0o700);
    folder.check();
    renameSync(folder.path, join(dir, 'moved-away'));
    symlinkSync(theirs, folder.path);
    expect(await refusal(() => folder.check())).toMatch(/^OUTPUT_INVALID: .*was replaced/);
    expect(await refusal(() => folder.publish(join(dir, 'packet-final')))).toMatch(
      /^OUTPUT_INVALID: .*was replaced/,
    );
    expect(existsSync(join(dir, 'packet-final'))).toBe(false);
    // Swapped for another real folder: found the same way (its inode differs).
    const second = await PrivateFolder.make(join(dir, '.packet.tmp-3'));
    renameSync(second.path, join(dir, 'moved-too'));
    mkdirSync(second.path);
    expect(await refusal(() => second.publish(join(dir, 'packet-final')))).toMatch(
      /^OUTPUT_INVALID: .*was replaced/,
    );

    // A link planted at the final name: refused, left as it was; the folder published elsewhere.
    const third = await PrivateFolder.make(join(dir, '.packet.tmp-4'));
    const final = join(dir, 'packet-linked');
    symlinkSync(theirs, final);
    expect(await refusal(() => third.publish(final))).toMatch(
      /^OUTPUT_INVALID: .*packet-linked: something is there already/,
    );
    await third.publish(join(dir, 'packet-ok'));
    expect(statSync(join(dir, 'packet-ok')).isDirectory()).toBe(true);
    // Nothing was ever written into the other folder.
    expect(readdirSync(theirs)).toEqual([]);
  });

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
