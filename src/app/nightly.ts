import type { LocalDate } from '../dates.js';
import { dashboardFor } from './dashboard.js';
import { applyRetention, reportsJob } from './reports.js';
import { writeSnapshot } from './snapshot.js';
import { syncJob } from './sync.js';
import type { JobEnv, JobResult } from './types.js';

/** Day of the week (0 = Sunday) of a calendar date. */
function weekday(date: LocalDate): number {
  return new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
}

/**
 * The nightly job: an incremental sync (a full pass on `jobs.fullPassWeekday`), the BI snapshot
 * when `monitor.snapshot.path` is set (src/app/snapshot.ts; its failure fails the job), every report for
 * the as-of date, then retention of report files written more than `jobs.retentionDays` ago,
 * then (with `html` among `jobs.formats`) the folder's index.html (`ohs dashboard`). A sync that
 * fails fails the job before any report is written, so no report is made from a half-synced
 * mirror without saying so.
 */
export async function nightlyJob(env: JobEnv): Promise<JobResult> {
  const full = weekday(env.asOf.date) === env.config.jobs.fullPassWeekday;
  const synced = await syncJob(env, full, 'nightly');
  const snapshot = await writeSnapshot(
    env.mirror,
    env.config.monitor.snapshot,
    env.config.mirror.storeSensitive,
  );
  if (snapshot !== undefined) env.logger.info({ path: snapshot }, 'BI snapshot written');
  const written = await reportsJob(env);
  const removed = await applyRetention(env.config.jobs.outDir, env.config.jobs.retentionDays);
  if (removed.length > 0) env.logger.info({ removed: removed.length }, 'old report files removed');
  // With HTML pages, the folder's index.html: headlines, freshness, the last run of each job.
  if (env.config.jobs.formats.includes('html'))
    written.outputs.push(
      await dashboardFor(
        env.mirror,
        env.config.jobs.outDir,
        env.config.monitor.maxAge,
        env.logger,
        env.config.timezone,
      ),
    );
  return {
    outputs: written.outputs,
    ...(written.changes === undefined ? {} : { changes: written.changes }),
    ...(synced.syncRunId === undefined ? {} : { syncRunId: synced.syncRunId }),
  };
}
