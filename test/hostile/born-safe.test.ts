import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_LEAD } from '../../src/app/dashboard.js';
import { writeSnapshot } from '../../src/app/snapshot.js';
import { writeTextfile } from '../../src/app/watch.js';
import { saveFindings } from '../../src/commands/probe.js';
import { openMirror } from '../../src/mirror/index.js';
import { writeDashboard } from '../../src/render/html/dashboard.js';
import { writeReport } from '../../src/render/index.js';
import { temporaryName } from '../../src/util/safe-file.js';
import { runOhs } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { withTmpDir } from '../helpers/mirror.js';
import { report } from '../render/fixtures.js';

const mode = (f: string) => statSync(f).mode & 0o777;
/** JSON, so that probe's read of its config through the link gets as far as the write. */
const VICTIM = '{"victim": "never written through a link"}\n';

/**
 * Every file the tool writes is born safe (src/util/safe-file.ts): a symbolic link planted at
 * each temporary name the tool uses, and at each final name, is refused with OUTPUT_INVALID (or
 * SNAPSHOT_FAILED) and the file it points at keeps its bytes and its mode. The snapshot is made
 * in a private folder and never exists with a mode wider than its configured one, whatever the
 * umask. SQLite: these are paths on disk.
 */
describe('files born safe', () => {
  const tmp = withTmpDir('ohs-born-safe-');

  /** A folder with a 0600 victim file beside it. */
  const setUp = () => {
    const dir = join(dirname(tmp()), `case-${Math.random().toString(36).slice(2, 8)}`);
    mkdirSync(dir);
    const victim = join(dirname(tmp()), `victim-${Math.random().toString(36).slice(2, 8)}.txt`);
    writeFileSync(victim, VICTIM, { mode: 0o600 });
    return { dir, victim };
  };
  const untouched = (victim: string) => {
    expect(readFileSync(victim, 'utf8')).toBe(VICTIM);
    expect(mode(victim)).toBe(0o600);
  };

  /** Each writer the tool has, with the final path it writes in `dir`. */
  const writers: [string, (dir: string) => { file: string; write: () => Promise<unknown> }][] = [
    [
      'the report files (xlsx, csv, html)',
      (dir) => ({
        file: join(dir, 'unpaid-invoices-2025-06-30.csv'),
        write: () =>
          writeReport(report(), {
            outDir: dir,
            name: 'unpaid-invoices',
            asOf: '2025-06-30',
            title: 'Unpaid invoices',
            csv: defaults.reports.csv,
            formats: ['xlsx', 'csv', 'html'],
          }),
      }),
    ],
    [
      'the dashboard',
      (dir) => ({
        file: join(dir, 'index.html'),
        write: () =>
          writeDashboard(dir, {
            mirror: 'm',
            streams: [],
            jobs: [],
            maxAgeMs: 3_600_000,
            lead: DASHBOARD_LEAD,
          }),
      }),
    ],
    [
      'the Prometheus textfile',
      (dir) => ({
        file: join(dir, 'ohs.prom'),
        write: async () => {
          const mirror = await openMirror(join(dir, 'm.sqlite'));
          try {
            await writeTextfile(join(dir, 'ohs.prom'), mirror);
          } finally {
            await mirror.close();
          }
        },
      }),
    ],
    [
      'the probe findings (config/local.json)',
      (dir) => ({
        file: join(dir, 'local.json'),
        write: async () =>
          saveFindings(
            join(dir, 'local.json'),
            {
              envelope: 'array',
              envelopeKey: undefined,
              totalKey: undefined,
              pageCap: 100,
              defaultOrder: 'id-asc',
              defaultOmits: [],
              fieldsParam: undefined,
              stringCase: 'sensitive',
              listContains: 'any-of',
            },
            'http://127.0.0.1:1',
          ),
      }),
    ],
  ];

  it.each(writers)(
    '%s: a link at the temporary name or at the final name is refused, its target untouched',
    async (_name, make) => {
      // At every temporary name: each format's for the reports.
      const { dir, victim } = setUp();
      const { file, write } = make(dir);
      const finals = file.endsWith('.csv')
        ? ['csv', 'xlsx', 'html'].map((e) => file.replace(/csv$/, e))
        : [file];
      for (const final of finals) {
        const temp = temporaryName(final);
        symlinkSync(victim, temp);
        await expect(write()).rejects.toMatchObject({ code: 'OUTPUT_INVALID' });
        untouched(victim);
        expect(lstatSync(temp).isSymbolicLink()).toBe(true);
        unlinkSync(temp);
      }
      // At the final name.
      symlinkSync(victim, file);
      await expect(write()).rejects.toMatchObject({
        code: 'OUTPUT_INVALID',
        message: expect.stringContaining('is a symbolic link'),
      });
      untouched(victim);
      unlinkSync(file);
      // Nothing in the way: written, with its mode, and no temporary file left.
      await write();
      expect(lstatSync(file).isFile()).toBe(true);
      expect(mode(file)).toBe(file.endsWith('.prom') ? 0o644 : 0o600);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    },
  );

  it('the snapshot: made in a private folder, never wider than its mode under umask 000; a link at its name refused; operational tables empty', async () => {
    const { dir, victim } = setUp();
    const db = join(dir, 'm.sqlite');
    const mirror = await openMirror(db);
    const old = process.umask(0);
    try {
      await sql`INSERT INTO rate_budget (key, rate, w_max, cut_at, tat, version, updated_ms)
        VALUES (${'k'}, ${5}, ${5}, ${0}, ${0}, ${1}, ${0})`.execute(mirror.db);
      const path = join(dir, 'bi.sqlite');
      const config = { path, mode: '0640', group: null };
      symlinkSync(victim, path);
      await expect(writeSnapshot(mirror, config, false)).rejects.toMatchObject({ code: 'SNAPSHOT_FAILED' });
      untouched(victim);
      unlinkSync(path);
      expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);

      // Watch the folder while it is written: every name that appears is the private folder
      // (0700) or the snapshot at its final mode.
      const seen: string[] = [];
      const { watch } = await import('node:fs');
      const watcher = watch(dir, (_e, name) => {
        if (name === null) return;
        try {
          seen.push(`${name} ${(statSync(join(dir, name)).mode & 0o777).toString(8)}`);
        } catch {
          // gone already (the private folder after the rename)
        }
      });
      await writeSnapshot(mirror, config, false);
      await new Promise((r) => setTimeout(r, 200));
      watcher.close();
      expect(mode(path)).toBe(0o640);
      for (const s of seen) expect(s).toMatch(/^(\.bi\.sqlite\.\w+ 700|bi\.sqlite 640|m\.sqlite.*)$/);
      expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
      const snap = await openMirror(path, { readonly: true });
      try {
        for (const t of ['outbox', 'sync_lock', 'rate_budget'])
          expect(
            Number(
              (await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t)}`.execute(snap.db)).rows[0]
                ?.n,
            ),
          ).toBe(0);
        const secret = await sql<{
          n: number;
        }>`SELECT count(*) AS n FROM mirror_meta WHERE key = 'rate.key_secret'`.execute(snap.db);
        expect(Number(secret.rows[0]?.n)).toBe(0);
      } finally {
        await snap.close();
      }
    } finally {
      process.umask(old);
      await mirror.close();
    }
  });

  it('a password in a URL is never echoed in an error', async () => {
    const r = await runOhs(['status', '--base-url', 'ftp://x:PWSECRET@host/']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CONFIG_INVALID/);
    expect(r.stderr).toContain('ftp://x:***@host/');
    expect(r.stdout + r.stderr).not.toContain('PWSECRET');
  });
});
