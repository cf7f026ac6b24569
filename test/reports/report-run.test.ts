import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/app/reports.js';
import { asOfDate } from '../../src/dates.js';
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
 * same instant as `Z`, `+09:00` and `-05:00` gives byte-identical CSVs of every report. The
 * instant is tomorrow 20:30 UTC, so that its `+09:00` spelling starts with the day after (the
 * date is the instant's in the reporting zone, never the first ten characters typed).
 */
const sim = withSim({ scale: 0.02 });

const pad = (n: number) => String(n).padStart(2, '0');
/** `ms` written as wall time at a fixed offset of `hours` (`+09:00`, `-05:00`, or `Z` for 0). */
function spelled(ms: number, hours: number): string {
  const d = new Date(ms + hours * 3_600_000);
  const wall = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:00`;
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
    const now = new Date();
    const instant = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 20, 30);
    const spellings = [spelled(instant, 0), spelled(instant, 9), spelled(instant, -5)];
    // The +09:00 spelling starts with another day than the others.
    expect(new Set(spellings.map((s) => s.slice(0, 10))).size).toBe(2);
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
        [...first.keys()].some((n) => n.startsWith(`${report}-${date}-at-`)),
        report,
      ).toBe(true);
    for (const other of rest) {
      expect([...other.keys()].sort()).toEqual([...first.keys()].sort());
      for (const [name, bytes] of first) expect(other.get(name)?.equals(bytes), name).toBe(true);
    }
  }, 300_000);

  it('walks compliance once per run of every report, and once for catch-up asked alone', async () => {
    const mirror = await openMirror(db);
    try {
      const run = new ReportRun();
      const asOf = asOfDate({ year: 2026, month: 6, day: 15 }, 'UTC');
      const out = mkdtempSync(join(tmpdir(), 'ohs-report-run-'));
      const common = { asOf, orgIds: [], options: {}, outDir: out, formats: ['csv' as const], present: true };
      const files = await writeReports(mirror, defaults, silentLogger, reports, { ...common, run });
      expect(files.length).toBeGreaterThanOrEqual(reports.length);
      expect(run.built.get('compliance-walk')).toBe(1);
      expect(run.built.get('unpaid-invoices')).toBe(1);
      const alone = new ReportRun();
      const catchUp = reports.filter((r) => r.name === 'catch-up');
      await writeReports(mirror, defaults, silentLogger, catchUp, { ...common, run: alone });
      expect(alone.built.get('compliance-walk')).toBe(1);
    } finally {
      await mirror.close();
    }
  }, 300_000);
});
