import type { Command } from 'commander';
import { sql } from 'kysely';
import type { Config } from '../config/index.js';
import type { Mirror, ResourceTableName } from '../mirror/index.js';
import { deadRunMessage, readSyncLock, runIsLive } from '../sync/dead-runs.js';
import { type StreamEconomy, streamEconomy } from '../sync/economy.js';
import { streams } from '../sync/streams.js';
import { commandContext, openMirrorToRead } from './context.js';
import { DB_OPTION_HELP, intArg } from './parse.js';
import { CheckState, durationArg, lastJobRuns, parseDuration, statusCheck } from './status-check.js';

export interface StatusReport {
  db: string;
  runs: {
    id: number;
    kind: string;
    started_at: string;
    ended_at: string | null;
    mode: string;
    outcome: string;
    requests: number;
    retries: number;
    error_code: string | null;
    error: string | null;
  }[];
  streams: ({
    stream: string;
    rows: number;
    deleted: number;
    last_success_at: string | null;
    last_full_at: string | null;
    pass_in_progress: boolean;
    last_outcome: string | null;
    /** Records of the stream's last run kept with a field of the wrong type, per field. */
    type_errors: Record<string, number>;
  } & StreamEconomy)[];
}

/** The last runs and each stream's freshness, from the mirror (read-only). */
export async function statusReport(mirror: Mirror, runs = 10): Promise<StatusReport> {
  const lastRuns = await mirror.db
    .selectFrom('sync_run')
    .select([
      'id',
      'kind',
      'started_at',
      'ended_at',
      'mode',
      'outcome',
      'requests',
      'retries',
      'error_code',
      'error',
      'pid',
      'host',
    ])
    .orderBy('id', 'desc')
    .limit(runs)
    .execute();
  // A run still recorded `running` whose process is gone (SIGKILL) is shown as what it is.
  const lock = await readSyncLock(mirror.db);
  const shownRuns = lastRuns.map(({ pid, host, ...run }) =>
    run.outcome === 'running' && !runIsLive({ pid, host }, lock)
      ? { ...run, outcome: 'interrupted', error_code: 'KILLED', error: deadRunMessage({ pid, host }) }
      : run,
  );
  const state = await mirror.db.selectFrom('sync_stream_state').selectAll().execute();
  const out: StatusReport['streams'] = [];
  for (const s of streams) {
    const table = s.name as ResourceTableName;
    const counts = await mirror.db
      .selectFrom(table)
      .select([
        sql<number>`count(*)`.as('all'),
        sql<number>`sum(case when deleted_at is null then 0 else 1 end)`.as('deleted'),
      ])
      .executeTakeFirst();
    const st = state.find((x) => x.stream === s.name);
    const last = await mirror.db
      .selectFrom('sync_stream_run')
      .innerJoin('sync_run', 'sync_run.id', 'sync_stream_run.run_id')
      .select(['sync_stream_run.outcome', 'sync_stream_run.run_id', 'sync_run.pid', 'sync_run.host'])
      .where('sync_stream_run.stream', '=', s.name)
      .orderBy('sync_stream_run.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    out.push({
      stream: s.name,
      rows: Number(counts?.all ?? 0) - Number(counts?.deleted ?? 0),
      deleted: Number(counts?.deleted ?? 0),
      last_success_at: st?.last_success_at ?? null,
      last_full_at: st?.last_full_at ?? null,
      pass_in_progress: st?.pass_id != null,
      last_outcome:
        last?.outcome === 'running' && !runIsLive(last, lock) ? 'interrupted' : (last?.outcome ?? null),
      type_errors: await typeErrors(mirror, s.name, last?.run_id),
      ...(await streamEconomy(mirror, s.name)),
    });
  }
  return { db: mirror.location, runs: shownRuns, streams: out };
}

/** Fields of the wrong type in a stream's run (sync_type_error), with their record counts. */
export async function typeErrors(
  mirror: Mirror,
  stream: string,
  runId: number | undefined,
): Promise<Record<string, number>> {
  if (runId === undefined) return {};
  const rows = await mirror.db
    .selectFrom('sync_type_error')
    .select(['field', 'count'])
    .where('stream', '=', stream)
    .where('run_id', '=', runId)
    .orderBy('field')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.field, r.count]));
}

function ago(iso: string | null): string {
  if (iso === null) return 'never';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 120) return `${s}s ago`;
  if (s < 7200) return `${Math.round(s / 60)}m ago`;
  if (s < 172_800) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86_400)}d ago`;
}

function grid(rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

interface StatusFlags {
  runs: number;
  json: boolean;
  check: boolean;
  maxAge?: number;
  warnAge?: number;
}

/** `status --check`: prints the status line, returns the exit code; a mirror it cannot read is UNKNOWN. */
async function check(config: Config, o: { maxAgeMs: number; warnAgeMs?: number }): Promise<number> {
  let mirror: Mirror | undefined;
  try {
    mirror = await openMirrorToRead(config);
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
      const { config } = commandContext(cmd);
      if (flags.check) {
        process.exitCode = await check(config, {
          maxAgeMs: flags.maxAge ?? parseDuration(config.monitor.maxAge) ?? 0,
          ...(flags.warnAge === undefined ? {} : { warnAgeMs: flags.warnAge }),
        });
        return;
      }
      const mirror = await openMirrorToRead(config);
      try {
        const r = await statusReport(mirror, flags.runs);
        if (flags.json) {
          process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
          return;
        }
        const runs = grid([
          ['run', 'kind', 'started', 'took', 'mode', 'outcome', 'requests', 'retries', 'error'],
          ...r.runs.map((x) => [
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
        ]);
        const fresh = grid([
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
          ...r.streams.map((x) => [
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
        ]);
        process.stdout.write(`mirror ${r.db}\n\n${runs}\n\n${fresh}\n`);
      } finally {
        await mirror.close();
      }
    });
}
