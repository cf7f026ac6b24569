import { endRun, type RunOutcome, settle, startRun } from '../mirror/index.js';
import { acquireLock } from '../sync/index.js';
import { nightlyJob } from './nightly.js';
import { pushJob } from './push.js';
import { reportsJob } from './reports.js';
import { syncJob } from './sync.js';
import type { Job, JobEnv, JobName, JobResult } from './types.js';
import { afterJobRun } from './watch.js';

export type { Job, JobEnv, JobName, JobResult } from './types.js';

export const jobs: Record<JobName, Job> = {
  nightly: nightlyJob,
  sync: (env) => syncJob(env),
  reports: reportsJob,
  push: pushJob,
};

export const jobNames = Object.keys(jobs) as JobName[];

export interface JobRunReport extends JobResult {
  runId: number;
  outcome: RunOutcome;
  error?: Error;
}

/**
 * Runs a job now, the same code for `ohs run`, `ohs cron` and `ohs demo`: one job at a time per
 * mirror file (a second exits at once with LOCKED), and every run recorded in `job_run`
 * (start, end, outcome, error code, files written), interrupted runs too. After each run, the
 * Prometheus textfile and the notification of config `monitor` (src/app/watch.ts).
 */
export async function runJob(name: JobName, env: JobEnv, trigger: string): Promise<JobRunReport> {
  const lock = await acquireLock(env.mirror, 'job');
  try {
    const id = await startRun(env.mirror.db, 'job_run', {
      job: name,
      trigger,
      started_at: new Date().toISOString(),
      outputs: '[]',
      sync_run_id: null,
      pid: process.pid,
    });
    const run = await settle(() => jobs[name](env));
    const result: JobResult = run.result ?? { outputs: [] };
    await endRun(env.mirror.db, 'job_run', id, run, {
      outputs: JSON.stringify(result.outputs),
      sync_run_id: result.syncRunId ?? null,
    });
    await afterJobRun(env.mirror, env.config.monitor, env.logger, id, result.changes ?? null);
    return {
      runId: id,
      outcome: run.outcome,
      ...result,
      ...(run.error === undefined ? {} : { error: run.error }),
    };
  } finally {
    await lock.release();
  }
}
