import { describeError, isOhsError } from '../errors.js';
import { acquireLock, InterruptedError } from '../sync/index.js';
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
  outcome: 'ok' | 'failed' | 'interrupted';
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
    const { id } = await env.mirror.db
      .insertInto('job_run')
      .values({
        job: name,
        trigger,
        started_at: new Date().toISOString(),
        ended_at: null,
        outcome: 'running',
        error_code: null,
        error: null,
        outputs: '[]',
        sync_run_id: null,
        pid: process.pid,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let result: JobResult = { outputs: [] };
    let outcome: JobRunReport['outcome'] = 'ok';
    let error: Error | undefined;
    try {
      result = await jobs[name](env);
    } catch (err) {
      error = err instanceof Error ? err : new Error(String(err));
      outcome = err instanceof InterruptedError ? 'interrupted' : 'failed';
    }
    await env.mirror.db
      .updateTable('job_run')
      .set({
        ended_at: new Date().toISOString(),
        outcome,
        error_code: error === undefined ? null : isOhsError(error) ? error.code : 'INTERNAL',
        error: error === undefined ? null : describeError(error),
        outputs: JSON.stringify(result.outputs),
        sync_run_id: result.syncRunId ?? null,
      })
      .where('id', '=', id)
      .execute();
    await afterJobRun(env.mirror, env.config.monitor, env.logger, id);
    return { runId: id, outcome, ...result, ...(error === undefined ? {} : { error }) };
  } finally {
    await lock.release();
  }
}
