import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/app/reports.js';
import { asOfDate, reportTime } from '../../src/dates.js';
import { openMirror } from '../../src/mirror/index.js';
import { ReportRun, reports } from '../../src/reports/index.js';
import { runOhs } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { silentLogger } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';
import { env } from './synced-sandbox.js';

/**
 * One run, one instant. A run builds each report once: compliance's walk of the year is done once
 * per `report all` (compliance, catch-up and accounts at risk share it; docs/reports.md, All
 * reports). One instant is one as-of, however it is written (docs/reports.md, All reports: the as-of): the
 * same instant as `Z`, `+09:00`, `-05:00`, `+14:00` and `-12:00` gives byte-identical CSVs of every
 * report. The instant is the second after the sync (a report may not end a period in the future,
 * nor read before the mirror's history): at any hour of the day one of its spellings starts with
 * another day than its UTC date (the date is the instant's in the reporting zone, never the first
 * ten characters typed).
 */
const sim = withSim({ scale: 0.02 });

const pad = (n: number) => String(n).padStart(2, '0');
/** `ms` written as wall time at a fixed offset of `hours` (`+09:00`, `-05:00`, or `Z` for 0). */
function spelled(ms: number, hours: number): string {
  const d = new Date(ms + hours * 3_600_000);
  const wall = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return hours === 0 ? `${wall}Z` : `${wall}${hours > 0 ? '+' : '-'}${pad(Math.abs(hours))}:00`;
}

describe.each(engines)('%s: one instant in three spellings', (engine) => {
  const target = withTargets(engine);
  let dir = '';
  let db = '';
  beforeAll(async () => {
    db = await target();
    dir = mkdtempSync(join(tmpdir(), `ohs-as-of-spellings-${engine}-`));
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        db,
        api: { requestsPerSecond: 5000 },
        sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
      }),
    );
    const synced = await runOhs(['sync'], { cwd: dir, env, timeoutMs: 240_000 });
    expect(synced.code, synced.stderr).toBe(0);
  }, 300_000);

  it('gives byte-identical CSVs of every report (ohs report all --format csv)', async () => {
    // The next whole second, once it has passed: after the history's start, not in the future.
    const instant = Math.ceil(Date.now() / 1000) * 1000;
    await new Promise((done) => setTimeout(done, instant - Date.now() + 50));
    const spellings = [0, 9, -5, 14, -12].map((hours) => spelled(instant, hours));
    // One spelling at least starts with another day than the UTC one.
    expect(new Set(spellings.map((s) => s.slice(0, 10))).size).toBeGreaterThan(1);
    const outputs: Map<string, Buffer>[] = [];
    for (const [i, at] of spellings.entries()) {
      const out = `out-${i}`;
      const r = await runOhs(
        ['report', 'all', '--as-of-time', at, '--format', 'csv', '--out', out, '--quiet'],
        { cwd: dir, env },
      );
      expect(r.code, r.stderr).toBe(0);
      const names = readdirSync(join(dir, out)).filter((f) => f.endsWith('.csv'));
      outputs.push(new Map(names.map((n) => [n, readFileSync(join(dir, out, n))])));
    }
    const [first, ...rest] = outputs as [Map<string, Buffer>, ...Map<string, Buffer>[]];
    // Every report wrote its CSV, named by the as-of date of the instant in the zone (UTC).
    const date = spellings[0]?.slice(0, 10) ?? '';
    for (const report of [
      'compliance',
      'unpaid-invoices',
      'order-ageing',
      'catch-up',
      'ar-rollforward',
      'accounts-at-risk',
    ])
      expect(
        // The roll-forward is named by its period's two ends.
        [...first.keys()].some((n) =>
          n.startsWith(report === 'ar-rollforward' ? `${report}-` : `${report}-${date}-at-`),
        ),
        report,
      ).toBe(true);
    for (const other of rest) {
      expect([...other.keys()].sort()).toEqual([...first.keys()].sort());
      for (const [name, bytes] of first) expect(other.get(name)?.equals(bytes), name).toBe(true);
    }
  }, 300_000);

  it('builds each shared figure once per run of every report, and once for a report asked alone', async () => {
    const mirror = await openMirror(db);
    try {
      const run = new ReportRun();
      const asOf = asOfDate({ year: 2026, month: 6, day: 15 }, 'UTC');
      const out = mkdtempSync(join(tmpdir(), 'ohs-report-run-'));
      const time = reportTime(asOf, { present: true });
      const common = { time, orgIds: [], options: {}, outDir: out, formats: ['csv' as const] };
      const files = await writeReports(mirror, defaults, silentLogger, reports, { ...common, run });
      expect(files.length).toBeGreaterThanOrEqual(reports.length);
      expect(run.built.get('compliance-walk')).toBe(1);
      expect(run.built.get('unpaid-invoices')).toBe(1);
      // Accounts at risk reads the order ageing's items (terminal ones too) once, typed.
      expect(run.built.get('order-ageing-facts')).toBe(1);
      // The changes report reads the base reports' typed figures, the run's own at its instant:
      // no base report is built or kept again for it.
      expect([...run.built.keys()].filter((k) => k.startsWith('changes'))).toEqual([]);
      const alone = new ReportRun();
      const catchUp = reports.filter((r) => r.name === 'catch-up');
      await writeReports(mirror, defaults, silentLogger, catchUp, { ...common, run: alone });
      expect(alone.built.get('compliance-walk')).toBe(1);
      // Accounts at risk asked alone builds each of the three it joins once.
      const risk = new ReportRun();
      const atRisk = reports.filter((r) => r.name === 'accounts-at-risk');
      await writeReports(mirror, defaults, silentLogger, atRisk, { ...common, run: risk });
      expect(Object.fromEntries(risk.built)).toEqual({
        'compliance-walk': 1,
        'unpaid-invoices': 1,
        'order-ageing-facts': 1,
        'org-names': 1,
      });
    } finally {
      await mirror.close();
    }
  }, 300_000);
});
