import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { reports } from '../reports/index.js';
import { endOfDay } from '../src/dates.js';
import { writeReport } from '../src/render/index.js';
import type { JobEnv, JobResult } from './types.js';

/** The `reports` job: every report for the as-of date into `jobs.outDir`. */
export async function reportsJob(env: JobEnv): Promise<JobResult> {
  const { config, mirror, asOf } = env;
  const outputs: string[] = [];
  for (const report of reports) {
    const result = await report.run({
      db: mirror.db,
      params: {
        asOf,
        asOfTimestamp: endOfDay(asOf, config.timezone),
        orgIds: [],
        timezone: config.timezone,
        options: {},
      },
    });
    const written = await writeReport(result, {
      outDir: config.jobs.outDir,
      name: report.name,
      asOf,
      title: report.title,
      formats: config.jobs.formats,
      about: [
        ['Mirror', mirror.file],
        ['Organizations', 'all'],
        ['Time zone', config.timezone],
      ],
    });
    env.logger.info({ report: report.name, rows: written.rows, files: written.files }, 'report written');
    outputs.push(...written.files);
  }
  return { outputs };
}

const reportFile = /^(compliance|unpaid-invoices|order-ageing)-(\d{4}-\d{2}-\d{2})\.(xlsx|csv)$/;

/** Removes report files whose as-of date is more than `days` before `asOf`; returns them. */
export async function applyRetention(outDir: string, asOf: string, days: number): Promise<string[]> {
  if (days <= 0) return [];
  const cutoff = new Date(Date.parse(`${asOf}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = reportFile.exec(name);
    if (m !== null && (m[2] ?? '') < cutoff) {
      await rm(join(outDir, name), { force: true });
      removed.push(join(outDir, name));
    }
  }
  return removed;
}
