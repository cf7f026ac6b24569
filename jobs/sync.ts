import type { Config } from '../src/config/index.js';
import { InterruptedError, type RunSyncOptions, runSync } from '../src/sync/index.js';
import type { JobEnv, JobResult } from './types.js';

/** Sync options from the configuration. */
export function syncOptions(config: Config): RunSyncOptions {
  return {
    partitions: config.sync.partitions,
    probeWindow: config.sync.probeWindow,
    rereadRuns: config.sync.rereadRuns,
    massDeleteShare: config.sync.massDeleteShare,
    massDeleteMinRows: config.sync.massDeleteMinRows,
    idStart: { ...config.sync.idStart },
  };
}

/** The `sync` job: an incremental sync of every stream (or a full pass). */
export async function syncJob(env: JobEnv, full = false, kind = 'sync'): Promise<JobResult> {
  const report = await runSync(env.client(), env.mirror, env.logger, {
    ...syncOptions(env.config),
    full,
    signal: env.signal,
    progress: false,
    kind,
  });
  if (report.outcome === 'interrupted') throw new InterruptedError();
  if (report.error !== undefined) throw report.error;
  return { outputs: [], syncRunId: report.runId };
}
