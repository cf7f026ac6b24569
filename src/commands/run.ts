import type { Command } from 'commander';
import { checkReportOptions } from '../app/config-check.js';
import { jobNames, runJob } from '../app/jobs.js';
import type { Config } from '../config/index.js';
import { resolveAsOf } from '../dates.js';
import { UsageError } from '../errors.js';
import { didYouMean } from '../util/closest.js';
import { commandContext, mirrorMayExist } from './context.js';
import { openJobEnv } from './job-env.js';
import { DB_OPTION_HELP } from './parse.js';
import { asInvoked, jobLines, printClosingSummary, withSummary } from './summary.js';

/** The jobs that sync, and so may create the mirror. */
const fillsMirror: readonly string[] = ['nightly', 'sync'];
/** The jobs that talk to the service: the service check runs before anything is opened. */
const talksToService: readonly string[] = ['nightly', 'sync', 'push'];

/**
 * Whether a job's runs are watched (a notification or a Prometheus textfile after each run): a
 * failed run must then be recorded and told even on the first run, when no mirror exists yet.
 */
function monitored(monitor: Config['monitor']): boolean {
  return monitor.textfile !== null || monitor.notify.webhook !== null || monitor.notify.command !== null;
}

/** `ohs run JOB`: runs one job now, with the code the cron worker runs. */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description(`run a job now: ${jobNames.join(', ')}`)
    .argument('<job>', jobNames.join(' | '))
    .option('--db <db>', DB_OPTION_HELP)
    .option('--as-of <date>', 'as-of date of the reports (default today)')
    .addHelpText('after', '\nExample: ohs run nightly')
    .action(async (job: string, flags: { asOf?: string }, cmd: Command) => {
      if (!(jobNames as string[]).includes(job))
        throw new UsageError(
          `unknown job '${job}'${didYouMean(job, jobNames)} (jobs: ${jobNames.join(', ')})`,
        );
      const { config, logger } = commandContext(cmd);
      checkReportOptions(config);
      withSummary();
      const started = Date.now();
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      // Only the jobs that sync fill a mirror; reports and push on a mistyped --db would answer
      // from a new, empty one.
      const env = await openJobEnv(
        config,
        logger,
        abort.signal,
        fillsMirror.includes(job) ? 'fill' : 'write',
        flags.asOf === undefined ? undefined : resolveAsOf({ date: flags.asOf }, config.timezone),
        // No mirror yet: the service check first (nothing created for a wrong URL or token); on a
        // mirror, or for a monitored job, the job's run makes the check itself and records its
        // failure, so the notice, the textfile and `status --check` see a failed run.
        talksToService.includes(job) && !mirrorMayExist(config.db) && !monitored(config.monitor),
      );
      try {
        const r = await runJob(job as (typeof jobNames)[number], env, 'run');
        logger.info({ job, run: r.runId, outcome: r.outcome, outputs: r.outputs }, `job ${r.outcome}`);
        if (r.error !== undefined) throw r.error;
        const lines = await jobLines(env.mirror, { job, ...r }, (Date.now() - started) / 1000);
        printClosingSummary({
          did: lines.did,
          attention: lines.attention,
          next: [
            lines.attention.some((a) => a.includes(' incomplete: '))
              ? `${asInvoked('sync')} (it goes on where this run stopped)`
              : '',
            lines.dashboard !== undefined
              ? `open ${lines.dashboard} in a browser`
              : lines.folders.length > 0
                ? `open the reports in ${lines.folders.join(', ')}`
                : '',
            asInvoked('status'),
          ]
            .filter((x) => x !== '')
            .join('; '),
        });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        await env.close();
      }
    });
}
