import type { Mirror } from '../mirror/index.js';
import { writeDashboard } from '../render/html/dashboard.js';
import { mirrorIdentity } from '../reports/sync-info.js';
import { lastJobRuns, parseDuration, statusReport } from './status.js';

/** Writes `dir/index.html` from the mirror's state (also the nightly job's last step). */
export async function dashboardFor(mirror: Mirror, dir: string, maxAge: string): Promise<string> {
  const status = await statusReport(mirror, 1);
  return writeDashboard(dir, {
    // Named by its service and sync runs, as the reports' About lines name it (not a path).
    mirror: await mirrorIdentity(mirror.db, mirror.engine),
    streams: status.streams,
    jobs: await lastJobRuns(mirror),
    maxAgeMs: parseDuration(maxAge) ?? 0,
  });
}
