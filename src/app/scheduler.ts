import cron from 'node-cron';
import type { Config } from '../config/index.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import { errorCode } from '../mirror/index.js';
import { type JobEnv, type JobName, type JobRunReport, runJob } from './jobs.js';

/** Whether a text is a cron expression the scheduler takes (a seconds field allowed). */
export const isCronExpression = (expression: string): boolean => cron.validate(expression);

/** What the scheduler asks of its caller (the command): the process and the terminal are its. */
export interface SchedulerHooks {
  /** A job's environment, opened for each run (a failure to open fails that run only). */
  open(signal: AbortSignal): Promise<JobEnv & { close: () => Promise<void> }>;
  /** Listens for the stop signal and resolves with it; called before the start is announced. */
  untilStopped(): Promise<NodeJS.Signals>;
  /** The worker started: `next` says when each job runs next. */
  started(next: string): void;
  /** A run ended (ok, failed or interrupted): `next`, as above. */
  ran(run: { job: JobName; report: JobRunReport; env: JobEnv; seconds: number; next: string }): Promise<void>;
  /** A run failed before it ran (its environment could not be opened, say). */
  failed(run: { job: JobName; error: unknown; failures: number; next: string }): void;
  /** The worker stopped on `signal`, its run under way (if any) stopped and recorded: its last word. */
  stopped(signal: NodeJS.Signals): void;
}

/**
 * The long-running worker (`ohs cron`): each job on its cron schedule in the configured zone. A
 * tick while a run is still going is skipped and logged (one run at a time, whatever the job); a
 * failed run is logged with its error code and the worker keeps its schedule. On the stop signal
 * the run under way stops after its current page (checkpointed: the next run resumes) and the
 * promise resolves once it has.
 */
export async function runScheduler(
  config: Config,
  logger: Logger,
  schedules: Partial<Record<JobName, string>>,
  hooks: SchedulerHooks,
): Promise<void> {
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  /** Runs that threw (a mirror that could not be opened, say): counted in their log lines. */
  let failures = 0;
  const tick = async (job: JobName) => {
    // Opening the mirror is part of the job: a mirror that cannot be opened (a full disk, a
    // broken file, a share gone) fails this run, logged; the worker keeps its schedule and tries
    // again at the next tick.
    let env: Awaited<ReturnType<SchedulerHooks['open']>> | undefined;
    const started = Date.now();
    try {
      env = await hooks.open(abort.signal);
      const report = await runJob(job, env, 'cron');
      await hooks.ran({
        job,
        report,
        env,
        seconds: (Date.now() - started) / 1000,
        next: `the ${nextRuns()}`,
      });
      logOutcome(logger, job, report);
    } catch (err) {
      failures++;
      logger.error({ job, code: errorCode(err), error: describeError(err), failures }, 'job failed');
      hooks.failed({ job, error: err, failures, next: `the ${nextRuns()}` });
    } finally {
      logNextRuns();
      await env
        ?.close()
        .catch((err: unknown) =>
          logger.warn({ job, error: describeError(err) }, 'closing the job environment failed'),
        );
    }
  };
  const tasks = Object.entries(schedules).map(([job, expression]) =>
    cron.schedule(
      expression,
      () => {
        if (running !== undefined) {
          logger.warn({ job }, 'previous run still going: this tick is skipped');
          return;
        }
        running = tick(job as JobName).finally(() => {
          running = undefined;
        });
      },
      { timezone: config.timezone, name: job },
    ),
  );
  /** When each job runs next, in words (the worker says it at start and after each run). */
  const next = () => tasks.map((t) => ({ job: t.name ?? '?', at: t.getNextRun()?.toISOString() ?? null }));
  // Once stopping, no job runs next here (the schedules are stopped): the line says so.
  const nextRuns = () =>
    abort.signal.aborted
      ? 'next run: none here: the worker is stopping (an interrupted run resumes when a job runs again)'
      : `next run: ${next()
          .map((x) => `${x.job} at ${x.at ?? 'never'}`)
          .join(', ')}`;
  const logNextRuns = () => logger.info({ next: next() }, nextRuns());
  // Listening before saying so: a SIGTERM right after the line must stop the worker cleanly.
  const stopped = hooks.untilStopped();
  logger.info({ schedules, timezone: config.timezone }, 'cron worker started (stop with SIGTERM)');
  logNextRuns();
  hooks.started(tasks.length === 0 ? 'next run: none (every schedule is off)' : nextRuns());
  const signal = await stopped;
  logger.info({ signal }, 'stopping: the run under way stops after its current page');
  abort.abort();
  for (const t of tasks) await t.stop();
  if (running !== undefined) await running;
  for (const t of tasks) await t.destroy();
  logger.info({ signal }, 'cron worker stopped');
  hooks.stopped(signal);
}

/** A run's outcome in the log: interrupted (the next resumes), failed with its code, or ok. */
function logOutcome(logger: Logger, job: JobName, r: JobRunReport): void {
  if (r.outcome === 'interrupted')
    logger.warn({ job, run: r.runId }, 'job interrupted; the next run resumes');
  else if (r.error !== undefined)
    logger.error(
      { job, run: r.runId, outcome: r.outcome, code: errorCode(r.error), error: describeError(r.error) },
      `job ${r.outcome}`,
    );
  else logger.info({ job, run: r.runId, outcome: r.outcome, outputs: r.outputs.length }, 'job ok');
}
