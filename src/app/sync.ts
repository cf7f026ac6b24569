import type { Config } from '../config/index.js';
import type { Logger } from '../log.js';
import { type Mirror, pruneHistory } from '../mirror/index.js';
import { InterruptedError, type RunSyncOptions, runSync } from '../sync/index.js';
import type { JobEnv, JobResult } from './types.js';

/** Sync options from the configuration. */
export function syncOptions(config: Config): RunSyncOptions {
  return { ...config.sync, idStart: { ...config.sync.idStart } };
}

/** The `sync` job: an incremental sync of every stream (or a full pass). */
export async function syncJob(env: JobEnv, full = false, kind = 'sync'): Promise<JobResult> {
  const report = await runSync(env.client(), env.mirror, env.logger, {
    ...syncOptions(env.config),
    full,
    signal: env.signal,
    progress: false,
    kind,
    serviceChecked: env.serviceChecked === true,
  });
  if (report.outcome === 'interrupted') throw new InterruptedError();
  if (report.error !== undefined) throw report.error;
  await pruneAfterSync(env.mirror, env.config, env.logger);
  return { outputs: [], syncRunId: report.runId };
}

/**
 * After a successful sync: versions of the mirror's history that ended more than
 * `mirror.historyDays` ago are removed (never a current one), in one transaction.
 */
export async function pruneAfterSync(mirror: Mirror, config: Config, logger: Logger): Promise<void> {
  const days = config.mirror.historyDays;
  const pruned = await mirror.write((w) => pruneHistory(w.db, days, new Date()));
  if (pruned > 0)
    logger.info(
      { pruned, historyDays: days },
      `history: ${pruned} version(s) older than ${days} days pruned`,
    );
}
