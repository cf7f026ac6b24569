import type { Command } from 'commander';
import { checkReportOptions } from '../app/config-check.js';
import { type JobName, jobNames } from '../app/jobs.js';
import { isCronExpression, runScheduler } from '../app/scheduler.js';
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
    if (!isCronExpression(m[2] ?? ''))
      throw new UsageError(`--schedule '${pair}': '${m[2]}' is not a cron expression`);
    schedules[m[1] as JobName] = m[2];
  }
  return schedules;
}

/**
 * `ohs cron`: the long-running worker (src/app/scheduler.ts runs it). Schedules and time zone from
 * the configuration (default: nightly at 02:00), `--schedule` over them; SIGTERM/SIGINT stop the
 * run under way after its current page (checkpointed) and exit 0; each run ends with its summary.
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
      await runScheduler(config, logger, schedules, {
        open: (signal) => openJobEnv(config, logger, signal, 'fill'),
        untilStopped: untilSignal,
        started: (next) =>
          printSummary([
            `cron worker started: ${Object.entries(schedules)
              .map(([j, e]) => `${j} '${e}'`)
              .join(', ')} (${config.timezone}); stop with SIGTERM`,
            next,
          ]),
        ran: async ({ job, report, env, seconds, next }) => {
          const lines = await jobLines(env.mirror, { job, ...report }, seconds);
          const attention = [
            ...(report.error === undefined
              ? []
              : [`${errorCode(report.error)}: ${describeError(report.error)}`]),
            ...lines.attention,
          ];
          printClosingSummary({ did: lines.did, attention, next });
        },
        stopped: (signal) => printSummary([`cron worker stopped (${signal})`]),
        failed: ({ job, error, failures, next }) =>
          printClosingSummary({
            did: [`${job} job failed before it ran (${failures} such failure(s) so far)`],
            attention: [`${errorCode(error)}: ${describeError(error)}`],
            next,
          }),
      });
    });
}
