import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import { writeDashboard } from '../render/html/dashboard.js';
import { mirrorIdentity } from '../reports/sync-info.js';
import { lastJobRuns, parseDuration, statusReport } from './status.js';

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
): Promise<string> {
  const status = await statusReport(mirror, 1);
  const { file, unreadable } = await writeDashboard(dir, {
    // Named by its service and sync runs, as the reports' About lines name it (not a path).
    mirror: await mirrorIdentity(mirror.db, mirror.engine),
    streams: status.streams,
    jobs: await lastJobRuns(mirror),
    maxAgeMs: parseDuration(maxAge) ?? 0,
  });
  for (const u of unreadable)
    logger.warn(
      { file: u.file },
      `dashboard: ${u.file}: ${u.problem}: its report is not shown; run the report again`,
    );
  return file;
}
