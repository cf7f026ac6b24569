import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { reports } from '../reports/index.js';
import type { ReportDefinition } from '../reports/types.js';
import type { Config } from '../src/config/index.js';
import { endOfDay } from '../src/dates.js';
import type { Logger } from '../src/log.js';
import type { Mirror } from '../src/mirror/index.js';
import { type ReportFormat, writeReport } from '../src/render/index.js';
import type { JobEnv, JobResult } from './types.js';

export interface WriteReportsOptions {
  asOf: string;
  orgIds: number[];
  options: Record<string, unknown>;
  outDir: string;
  formats: ReportFormat[];
}

/**
 * Runs reports on the mirror and writes their files: the one path for `ohs report` and the
 * reports and nightly jobs. Returns the files written, in order.
 */
export async function writeReports(
  mirror: Mirror,
  config: Config,
  logger: Logger,
  chosen: readonly ReportDefinition[],
  o: WriteReportsOptions,
): Promise<string[]> {
  const files: string[] = [];
  for (const report of chosen) {
    const started = Date.now();
    const result = await report.run({
      db: mirror.db,
      params: {
        asOf: o.asOf,
        asOfTimestamp: endOfDay(o.asOf, config.timezone),
        orgIds: o.orgIds,
        timezone: config.timezone,
        options: o.options,
      },
    });
    const written = await writeReport(result, {
      outDir: o.outDir,
      name: report.name,
      asOf: o.asOf,
      title: report.title,
      formats: o.formats,
      about: [
        ['Mirror', mirror.file],
        ['Organizations', o.orgIds.length === 0 ? 'all' : o.orgIds.join(', ')],
        ['Time zone', config.timezone],
        ['Parameters', JSON.stringify(o.options)],
      ],
    });
    logger.info(
      { report: report.name, rows: written.rows, files: written.files, ms: Date.now() - started },
      'report written',
    );
    files.push(...written.files);
  }
  return files;
}

/** The `reports` job: every report for the as-of date into `jobs.outDir`. */
export async function reportsJob(env: JobEnv): Promise<JobResult> {
  const { config } = env;
  const outputs = await writeReports(env.mirror, config, env.logger, reports, {
    asOf: env.asOf,
    orgIds: [],
    options: {},
    outDir: config.jobs.outDir,
    formats: config.jobs.formats,
  });
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
