import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../src/mirror/index.js';
import { runOhs } from './helpers/cli.js';
import { expectMirrorEqualsTruth, ID_START } from './helpers/mirror.js';
import { WRITE_TOKEN, withSim } from './helpers/sim.js';

/**
 * A full disk, on a real small filesystem (a tmpfs mounted for the test: it needs root and a
 * kernel that lets this process mount; the tests skip, saying so, where it does not): sync,
 * report, snapshot and apply each end with one line `ohs: DISK_FULL: ...` saying what to do,
 * nothing half-written is left, and after moving or freeing space the work completes, nothing
 * lost and nothing twice.
 */
const EXAMPLES = fileURLToPath(new URL('../examples', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'ohs-full-'));
const small = join(root, 'small');
const filler = join(small, '.filler');
let whyNot: string | undefined;

/** Fills the small filesystem until `free` bytes are left (0: to the last byte). */
function leaveFree(free: number): void {
  rmSync(filler, { force: true });
  const { bavail, bsize } = statfsSync(small);
  const size = Math.max(0, bavail * bsize - free);
  writeFileSync(filler, Buffer.alloc(size));
  if (free === 0) {
    // tmpfs rounds to pages: top it up byte by byte until the system says no.
    try {
      for (;;) writeFileSync(filler, Buffer.alloc(4096), { flag: 'a' });
    } catch {}
  }
}

const oneLine = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('ohs: '));

describe('a full disk is DISK_FULL', () => {
  const sim = withSim({ scale: 0.03 });
  const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_TOKEN_FILE: '' };
  let cwd: string;

  beforeAll(() => {
    mkdirSync(small);
    const mounted =
      process.getuid?.() === 0
        ? spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', small], { encoding: 'utf8' })
        : undefined;
    if (mounted === undefined) whyNot = 'not root: mounting a small tmpfs needs root';
    else if (mounted.status !== 0) whyNot = `mount -t tmpfs refused: ${mounted.stderr.trim()}`;
    cwd = join(root, 'work');
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(
      join(cwd, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 100 },
        sync: { idStart: ID_START },
      }),
    );
  });
  afterAll(() => {
    if (whyNot === undefined) spawnSync('umount', [small]);
    rmSync(root, { recursive: true, force: true });
  });

  it('sync: DISK_FULL, then the mirror moved to a larger disk completes, equal to the truth', async (ctx) => {
    if (whyNot !== undefined) return ctx.skip(whyNot);
    leaveFree(1024 * 1024); // the scale's mirror is about 3 MB
    const db = join(small, 'ohs.sqlite');
    const r = await runOhs(['sync', '--db', db], { cwd, env });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([
      expect.stringMatching(
        /^ohs: DISK_FULL: the disk holding the mirror is full: free space there, or move the mirror .*resumes where it stopped/,
      ),
    ]);
    // Moved (the file and its write-ahead log, while nothing runs) to a disk with room: it completes.
    const moved = join(cwd, 'moved.sqlite');
    for (const s of ['', '-wal']) if (existsSync(`${db}${s}`)) copyFileSync(`${db}${s}`, `${moved}${s}`);
    const again = await runOhs(['sync', '--db', moved], { cwd, env });
    expect(again.code, again.stderr).toBe(0);
    const mirror = await openMirror(moved);
    try {
      await expectMirrorEqualsTruth(mirror, sim().truth());
    } finally {
      await mirror.close();
    }
  });

  it('sync: a disk filling mid-run is DISK_FULL, no stream INTERNAL; with space freed the next sync completes', async (ctx) => {
    if (whyNot !== undefined) return ctx.skip(whyNot);
    const db = join(small, 'mid.sqlite');
    leaveFree(2 * 1024 * 1024); // room for the mirror's tables and some pages, not for the 3 MB
    const r = await runOhs(['sync', '--db', db], { cwd, env });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([expect.stringMatching(/^ohs: DISK_FULL: .*resumes where it stopped/)]);
    // Each stream that met the full disk logs it as DISK_FULL; none is a bug (INTERNAL).
    const failed = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; code?: string })
      .filter((l) => l.msg === 'stream failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((l) => l.code !== 'DISK_FULL')).toEqual([]);
    expect(r.stderr).not.toMatch(/INTERNAL/);
    rmSync(filler, { force: true });
    const mirror = await openMirror(db);
    try {
      // What the full disk let the run record (a row it could not end stays `running`): the
      // streams that met it failed DISK_FULL, the others stopped; no error without its code.
      const rows = await mirror.db
        .selectFrom('sync_stream_run')
        .select(['stream', 'outcome', 'error'])
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(
        rows.filter((row) => row.error !== null && !/^(DISK_FULL|INTERRUPTED): /.test(row.error)),
      ).toEqual([]);
    } finally {
      await mirror.close();
    }
    // Space freed: the next sync resumes in place and completes, equal to the truth.
    const again = await runOhs(['sync', '--db', db], { cwd, env });
    expect(again.code, again.stderr).toBe(0);
    const status = await runOhs(['status', '--db', db], { cwd, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).not.toMatch(/INTERNAL/);
    const after = await openMirror(db);
    try {
      await expectMirrorEqualsTruth(after, sim().truth());
    } finally {
      await after.close();
    }
    for (const s of ['', '-wal', '-shm']) rmSync(`${db}${s}`, { force: true });
  });

  it('report and snapshot: DISK_FULL, no file half-written', async (ctx) => {
    if (whyNot !== undefined) return ctx.skip(whyNot);
    const db = join(cwd, 'moved.sqlite');
    rmSync(join(small, 'ohs.sqlite'), { force: true });
    rmSync(join(small, 'ohs.sqlite-wal'), { force: true });
    rmSync(join(small, 'ohs.sqlite-shm'), { force: true });
    const out = join(small, 'out');
    mkdirSync(out);
    leaveFree(16 * 1024);
    const r = await runOhs(['report', 'all', '--db', db, '--out', out], { cwd, env });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([
      expect.stringMatching(
        /^ohs: DISK_FULL: no space left on the disk.*write the reports to another disk \(--out DIR\)/,
      ),
    ]);
    expect(readdirSync(out)).toEqual([]);

    const config = join(cwd, 'config', 'snapshot.json');
    writeFileSync(
      config,
      JSON.stringify({
        baseUrl: sim().url,
        db,
        api: { requestsPerSecond: 5000 },
        jobs: { outDir: join(cwd, 'out') },
        monitor: { snapshot: { path: join(small, 'bi.sqlite') } },
      }),
    );
    const n = await runOhs(['--config', config, 'run', 'nightly'], { cwd, env });
    expect(n.code).toBe(1);
    expect(oneLine(n.stderr)).toEqual([
      expect.stringMatching(/^ohs: DISK_FULL: .*free space there, or move/),
    ]);
    expect(readdirSync(small).filter((f) => f !== '.filler' && f !== 'out')).toEqual([]);
  });

  it('apply: DISK_FULL; with space freed, the next apply completes, each payment made once', async (ctx) => {
    if (whyNot !== undefined) return ctx.skip(whyNot);
    rmSync(filler, { force: true });
    rmSync(join(small, 'out'), { recursive: true, force: true });
    const db = join(small, 'apply.sqlite');
    copyFileSync(join(cwd, 'moved.sqlite'), db);
    const planned = await runOhs(['plan', join(EXAMPLES, 'payment.csv'), '--op', 'payment', '--db', db], {
      cwd,
      env,
    });
    expect(planned.code, planned.stderr).toBe(0);
    const balance = (id: string) =>
      Number(
        sim()
          .truth()
          .Invoice.find((i) => i.id === id)?.balance,
      );
    const before = balance('240019');
    // Room for the shared-memory index SQLite opens the mirror with (32 KiB), none for its log.
    leaveFree(32 * 1024);
    const r = await runOhs(['apply', '--db', db], { cwd, env });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toEqual([
      expect.stringMatching(/^ohs: DISK_FULL: .*apply resumes and sends nothing twice/),
    ]);
    rmSync(filler, { force: true });
    const ok = await runOhs(['apply', '--db', db], { cwd, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(balance('240019')).toBeCloseTo(before - 25, 2);
  });
});
