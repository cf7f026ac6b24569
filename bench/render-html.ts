import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asOfDate, reportTime } from '../src/dates.js';
import { openMirror } from '../src/mirror/index.js';
import { type ReportFormat, writeReport } from '../src/render/index.js';
import { reports } from '../src/reports/index.js';
import { defaults, measure, spawnScaledSandbox, table } from './sandbox.js';

const bin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));
const TOKEN = 'bench-token';

/**
 * The sandbox's three reports (scale × 1,000 orgs, 30,000 order items) from a mirror synced by
 * `ohs sync`, written as xlsx (the baseline), CSV and HTML, each alone, best of `rounds`
 * interleaved runs: seconds (the report's queries included, the same in every format) and peak
 * RSS. The first HTML run also pays for loading vega and vega-lite.
 */
export async function benchRenderHtml(scale: number, rounds = 2): Promise<string> {
  const sandbox = await spawnScaledSandbox(scale, TOKEN);
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-html-'));
  try {
    const db = join(dir, 'bench.sqlite');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        logLevel: 'warn',
        api: { requestsPerSecond: 100_000 },
        sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
      }),
    );
    const sync = spawn(process.execPath, [bin, 'sync', '--db', db, '--config', config], {
      env: { ...process.env, OHS_BASE_URL: sandbox.url, OHS_TOKEN: TOKEN, OHS_DB: '' },
      stdio: 'inherit',
    });
    const [code] = (await once(sync, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`ohs sync exited ${code}`);
    const mirror = await openMirror(db, { readonly: true, mustExist: true });
    const lines: Record<string, string | number>[] = [];
    try {
      for (const report of reports) {
        const best: Partial<Record<ReportFormat, { seconds: number; peak: number; mb: number }>> = {};
        for (let i = 0; i < rounds; i++)
          for (const format of ['xlsx', 'csv', 'html'] as const) {
            const out = join(dir, `${format}-${i}`);
            const m = await measure(async () => {
              const result = await report.run({
                db: mirror.db,
                params: {
                  time: reportTime(asOfDate({ year: 2026, month: 6, day: 15 }, 'UTC'), { present: true }),
                  orgIds: [],
                  options: {},
                },
              });
              return writeReport(result, {
                outDir: out,
                name: report.name,
                asOf: '2026-06-15',
                title: report.title,
                formats: [format],
                csv: defaults.reports.csv,
                html: report.html,
              });
            });
            const mb = statSync(m.result.files[0] ?? '').size / 1048576;
            const b = best[format];
            best[format] = {
              seconds: Math.min(b?.seconds ?? Number.POSITIVE_INFINITY, m.seconds),
              peak: Math.max(b?.peak ?? 0, m.peakRssMb),
              mb,
            };
            rmSync(out, { recursive: true, force: true });
          }
        const base = best.xlsx?.seconds ?? 1;
        for (const format of ['xlsx', 'csv', 'html'] as const) {
          const r = best[format];
          if (r === undefined) continue;
          lines.push({
            report: report.name,
            format,
            's (best)': r.seconds.toFixed(2),
            'of xlsx time': `${((100 * r.seconds) / base).toFixed(0)}%`,
            'peak RSS MB': r.peak,
            'file MB': r.mb.toFixed(2),
          });
        }
      }
    } finally {
      await mirror.close();
    }
    return [
      `Render, the sandbox's reports (scale ${scale}): xlsx (baseline), CSV and HTML each alone, best of ${rounds} interleaved runs, report queries included`,
      table(lines),
    ].join('\n');
  } finally {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
