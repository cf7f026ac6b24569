import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import { type LeadReport, writeDashboard } from '../render/html/dashboard.js';
import type { CodeWords } from '../render/index.js';
import { mirrorIdentity } from '../reports/core/sync-info.js';
import { reportByName, reportNamed } from '../reports/index.js';
import { outboxAttention } from '../writeback/index.js';
import { lastJobRuns, parseDuration, statusReport } from './status.js';

/** The report whose card opens the dashboard: what changed since the last run. */
export const DASHBOARD_LEAD: LeadReport = {
  report: reportNamed('changes').name,
  command: 'ohs report changes --format html',
  what: 'writes one (what changed since the last nightly run); the nightly job writes it every run',
};

/** A report's words for its codes, by its name (none for a name the registry does not hold). */
export const reportWords = (report: string): CodeWords => reportByName(report)?.words ?? {};

/**
 * Writes `dir/index.html` from the mirror's state (also the nightly job's last step). A report's
 * verdict file that cannot be read (bad JSON, a field missing or null) is named in one warning
 * each and on the page; the other reports are shown.
 */
export async function dashboardFor(
  mirror: Mirror,
  dir: string,
  maxAge: string,
  logger: Logger,
  timezone = 'UTC',
): Promise<string> {
  const status = await statusReport(mirror, 1);
  const jobs = await lastJobRuns(mirror);
  const { file, unreadable } = await writeDashboard(dir, {
    // Named by its service and sync runs, as the reports' About lines name it (not a path).
    mirror: await mirrorIdentity(mirror.db, mirror.engine),
    streams: status.streams,
    jobs,
    maxAgeMs: parseDuration(maxAge) ?? 0,
    outbox: await outboxAttention(mirror.db),
    lead: DASHBOARD_LEAD,
    words: reportWords,
    timezone,
    ...(await writingRun(mirror, jobs)),
  });
  for (const u of unreadable)
    logger.warn(
      { file: u.file },
      `dashboard: ${u.file}: ${u.problem}: its report is not shown; run the report again`,
    );
  return file;
}

/**
 * The job run writing this page, when the dashboard is a running job's last step (the nightly
 * job's): the run is `running` in the mirror, recorded by this process, which holds the job lock.
 * The page says so rather than leave a reader the next morning a run that seems never to end.
 */
async function writingRun(
  mirror: Mirror,
  jobs: { id: number; outcome: string }[],
): Promise<{ writer?: number }> {
  const running = jobs.filter((j) => j.outcome === 'running').map((j) => j.id);
  if (running.length === 0) return {};
  const lock = await mirror.db
    .selectFrom('sync_lock')
    .select(['pid'])
    .where('name', '=', 'job')
    .executeTakeFirst();
  if (lock?.pid !== process.pid) return {};
  const mine = await mirror.db
    .selectFrom('job_run')
    .select(['id'])
    .where('id', 'in', running)
    .where('pid', '=', process.pid)
    .executeTakeFirst();
  return mine === undefined ? {} : { writer: Number(mine.id) };
}
