import { type Command, InvalidArgumentError } from 'commander';
import { CheckState, lastJobRuns, parseDuration, statusCheck, statusReport } from '../app/status.js';
import { DURATION_WORDS } from '../dates.js';
import type { Mirror } from '../mirror/index.js';
import { textTable } from '../util/text-table.js';
import { type CommandContext, commandContext } from './context.js';
import { DB_OPTION_HELP, intArg } from './parse.js';

/** Commander parser of a DURATION option. */
export function durationArg(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError(`expected ${DURATION_WORDS}.`);
  return ms;
}

function ago(iso: string | null): string {
  if (iso === null) return 'never';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172_800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

/** What the freshness columns mean, under the table. */
const streamColumnsExplained = [
  'last success:   when the last run of the stream that ended without error started (its rows are at least that fresh)',
  'last full pass: when a complete re-read last ended (the first sync, ohs sync --full, the nightly job on jobs.fullPassWeekday):',
  '                only a full pass soft-deletes rows the service no longer has',
  'last outcome:   ok, failed, interrupted, or incomplete (stopped at a bound: an INCOMPLETE line says what is missing)',
  '',
].join('\n');

interface StatusFlags {
  runs: number;
  json: boolean;
  check: boolean;
  maxAge?: number;
  warnAge?: number;
}

/** `status --check`: prints the status line, returns the exit code; a mirror it cannot read is UNKNOWN. */
async function check(ctx: CommandContext, o: { maxAgeMs: number; warnAgeMs?: number }): Promise<number> {
  let mirror: Mirror | undefined;
  try {
    mirror = await ctx.mirror('read');
    const r = statusCheck(await statusReport(mirror, 1), await lastJobRuns(mirror), o);
    process.stdout.write(`${r.line}\n`);
    return r.code;
  } catch (err) {
    const what = err instanceof Error ? err.message.split('\n')[0] : String(err);
    process.stdout.write(`OHS UNKNOWN - ${what}\n`);
    return CheckState.UNKNOWN;
  } finally {
    await mirror?.close();
  }
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('the last runs and how fresh each stream of the mirror is')
    .option('--db <db>', DB_OPTION_HELP)
    .option('--runs <n>', 'how many runs to list', intArg(1, 1000), 10)
    .option('--json', 'print JSON', false)
    .option(
      '--check',
      'monitoring-plugin check: one line, exit 0 OK, 1 WARNING, 2 CRITICAL (stale stream, failed or interrupted run), 3 UNKNOWN',
      false,
    )
    .option(
      '--max-age <duration>',
      'with --check: CRITICAL when a stream is older (default config monitor.maxAge)',
      durationArg,
    )
    .option('--warn-age <duration>', 'with --check: WARNING when a stream is older than this', durationArg)
    .addHelpText('after', '\nExample: ohs status --check --max-age 26h   (docs/monitoring.md)')
    .action(async (flags: StatusFlags, cmd: Command) => {
      const ctx = commandContext(cmd);
      const { config } = ctx;
      if (flags.check) {
        process.exitCode = await check(ctx, {
          maxAgeMs: flags.maxAge ?? parseDuration(config.monitor.maxAge) ?? 0,
          ...(flags.warnAge === undefined ? {} : { warnAgeMs: flags.warnAge }),
        });
        return;
      }
      const mirror = await ctx.mirror('read');
      try {
        const r = await statusReport(mirror, flags.runs);
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        const runs = textTable(
          ['run', 'kind', 'started', 'took', 'mode', 'outcome', 'requests', 'retries', 'error'],
          r.runs.map((x) => [
            String(x.id),
            x.kind,
            x.started_at.slice(0, 19).replace('T', ' '),
            x.ended_at === null
              ? '-'
              : `${Math.round((Date.parse(x.ended_at) - Date.parse(x.started_at)) / 100) / 10}s`,
            x.mode,
            x.outcome,
            String(x.requests),
            String(x.retries),
            x.error_code ?? '',
          ]),
        );
        const fresh = textTable(
          [
            'stream',
            'rows',
            'deleted',
            'last success',
            'last full pass',
            'last outcome',
            'req/record',
            're-read round',
            'pass under way',
            'wrong types (records kept)',
          ],
          r.streams.map((x) => [
            x.stream,
            String(x.rows),
            String(x.deleted),
            ago(x.last_success_at),
            ago(x.last_full_at),
            x.last_outcome ?? '-',
            x.requests_per_record === null ? '-' : String(x.requests_per_record),
            x.reread_cursor === null ? '' : `at id ${x.reread_cursor}, last round ${ago(x.reread_round_at)}`,
            x.pass_in_progress ? 'yes (resumes next run)' : '',
            Object.entries(x.type_errors)
              .map(([field, n]) => `${field} ×${n}`)
              .join(', '),
          ]),
        );
        const incomplete = r.streams
          .filter((x) => x.incomplete !== null)
          .map((x) => `INCOMPLETE ${x.stream}: ${x.incomplete}\n`)
          .join('');
        process.stdout.write(`mirror ${r.db}\n\n${runs}\n${fresh}\n${streamColumnsExplained}${incomplete}`);
      } finally {
        await mirror.close();
      }
    });
}
