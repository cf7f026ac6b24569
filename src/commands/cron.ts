import type { Command } from 'commander';
import cron from 'node-cron';
import { checkReportOptions } from '../app/config-check.js';
import { type JobName, jobNames, runJob } from '../app/jobs.js';
import { describeError, UsageError } from '../errors.js';
import { errorCode } from '../mirror/index.js';
import { printSummary } from '../terminal.js';
import { commandContext, untilSignal } from './context.js';
import { openJobEnv } from './job-env.js';
import { DB_OPTION_HELP } from './parse.js';
import { jobLines, printClosingSummary, withSummary } from './summary.js';

/** The configured schedules, with `--schedule JOB=CRON` overrides checked and applied. */
function schedulesOf(
  configured: Partial<Record<JobName, string>>,
  overrides: readonly string[],
): Partial<Record<JobName, string>> {
  const schedules: Partial<Record<JobName, string>> = { ...configured };
  for (const pair of overrides) {
    const m = /^([a-z]+)=(.+)$/.exec(pair);
    if (m === null || !(jobNames as string[]).includes(m[1] ?? '')) {
      throw new UsageError(`--schedule '${pair}': expected JOB=CRON with JOB one of ${jobNames.join(', ')}`);
    }
    if (!cron.validate(m[2] ?? ''))
      throw new UsageError(`--schedule '${pair}': '${m[2]}' is not a cron expression`);
    schedules[m[1] as JobName] = m[2];
  }
  return schedules;
}

/**
 * `ohs cron`: the long-running worker. Schedules and time zone from the configuration (default:
 * nightly at 02:00); a tick while a run is still going is skipped and logged; SIGTERM/SIGINT
 * stop the run under way after its current page (checkpointed) and exit 0; a failed run is
 * logged with its error code and the worker keeps going.
 */
export function registerCron(program: Command): void {
  program
    .command('cron')
    .description(
      'run the jobs on their schedules (config jobs.schedules, default nightly at 02:00) until SIGTERM',
    )
    .option('--db <db>', DB_OPTION_HELP)
    .option(
      '--schedule <job=cron...>',
      "override a schedule, e.g. --schedule 'nightly=*/10 * * * * *' (seconds field allowed)",
    )
    .addHelpText('after', '\nExample: ohs cron   (under systemd: see examples/ohs-cron.service)')
    .action(async (flags: { schedule?: string[] }, cmd: Command) => {
      const { config, logger } = commandContext(cmd);
      checkReportOptions(config);
      // Each run ends with its summary (src/commands/summary.ts); every log line goes to logFile.
      withSummary();
      const schedules = schedulesOf(config.jobs.schedules, flags.schedule ?? []);
      const abort = new AbortController();
      let running: Promise<void> | undefined;
      /** Runs that threw (a mirror that could not be opened, say): counted in their log lines. */
      let failures = 0;
      const tasks = Object.entries(schedules).map(([job, expression]) =>
        cron.schedule(
          expression,
          async () => {
            if (running !== undefined) {
              logger.warn({ job }, 'previous run still going: this tick is skipped');
              return;
            }
            running = (async () => {
              // Opening the mirror is part of the job: a mirror that cannot be opened (a full
              // disk, a broken file, a share gone) fails this run, logged; the worker keeps its
              // schedule and tries again at the next tick.
              let env: Awaited<ReturnType<typeof openJobEnv>> | undefined;
              const started = Date.now();
              try {
                env = await openJobEnv(config, logger, abort.signal, 'fill');
                const r = await runJob(job as JobName, env, 'cron');
                const lines = await jobLines(env.mirror, { job, ...r }, (Date.now() - started) / 1000);
                const attention = [
                  ...(r.error === undefined ? [] : [`${errorCode(r.error)}: ${describeError(r.error)}`]),
                  ...lines.attention,
                ];
                printClosingSummary({ did: lines.did, attention, next: `the ${nextRuns()}` });
                if (r.outcome === 'interrupted')
                  logger.warn({ job, run: r.runId }, 'job interrupted; the next run resumes');
                else if (r.error !== undefined) {
                  logger.error(
                    {
                      job,
                      run: r.runId,
                      outcome: r.outcome,
                      code: errorCode(r.error),
                      error: describeError(r.error),
                    },
                    `job ${r.outcome}`,
                  );
                } else
                  logger.info({ job, run: r.runId, outcome: r.outcome, outputs: r.outputs.length }, 'job ok');
              } catch (err) {
                failures++;
                logger.error(
                  { job, code: errorCode(err), error: describeError(err), failures },
                  'job failed',
                );
                printClosingSummary({
                  did: [`${job} job failed before it ran (${failures} such failure(s) so far)`],
                  attention: [`${errorCode(err)}: ${describeError(err)}`],
                  next: `the ${nextRuns()}`,
                });
              } finally {
                logNextRuns();
                await env
                  ?.close()
                  .catch((err: unknown) =>
                    logger.warn({ job, error: describeError(err) }, 'closing the job environment failed'),
                  );
              }
            })().finally(() => {
              running = undefined;
            });
          },
          { timezone: config.timezone, name: job },
        ),
      );
      /** When each job runs next, in words (the worker says it at start and after each run). */
      const next = () =>
        tasks.map((t) => ({ job: t.name ?? '?', at: t.getNextRun()?.toISOString() ?? null }));
      const nextRuns = () =>
        `next run: ${next()
          .map((x) => `${x.job} at ${x.at ?? 'never'}`)
          .join(', ')}`;
      const logNextRuns = () => logger.info({ next: next() }, nextRuns());
      // Listening before saying so: a SIGTERM right after the line must stop the worker cleanly.
      const stopped = untilSignal();
      logger.info({ schedules, timezone: config.timezone }, 'cron worker started (stop with SIGTERM)');
      logNextRuns();
      printSummary([
        `cron worker started: ${Object.entries(schedules)
          .map(([j, e]) => `${j} '${e}'`)
          .join(', ')} (${config.timezone}); stop with SIGTERM`,
        tasks.length === 0 ? 'next run: none (every schedule is off)' : nextRuns(),
      ]);
      const signal = await stopped;
      logger.info({ signal }, 'stopping: the run under way stops after its current page');
      abort.abort();
      for (const t of tasks) await t.stop();
      if (running !== undefined) await running;
      for (const t of tasks) await t.destroy();
      logger.info('cron worker stopped');
    });
}
