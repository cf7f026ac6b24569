import { sql } from 'kysely';
import { parseDuration as durationOf } from '../dates.js';
import { alive, type Mirror, metaKeys, type ResourceTableName, readMeta } from '../mirror/index.js';
import { lastStreamRuns } from '../reports/core/sync-info.js';
import { deadRunMessage, readSyncLock, runIsLive } from '../sync/dead-runs.js';
import { type StreamEconomy, streamEconomy } from '../sync/economy.js';
import { streams } from '../sync/streams.js';

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
    /** The last run stopped this stream at a bound: what it left unread and what to do. */
    incomplete: string | null;
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
  // Each stream's last run: the one state the dashboard and the changes report read too.
  const lastOfStream = await lastStreamRuns(mirror.db, undefined);
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
    const last = lastOfStream.get(s.name);
    out.push({
      stream: s.name,
      rows: Number(counts?.all ?? 0) - Number(counts?.deleted ?? 0),
      deleted: Number(counts?.deleted ?? 0),
      last_success_at: st?.last_success_at ?? null,
      last_full_at: st?.last_full_at ?? null,
      pass_in_progress: st?.pass_id != null,
      last_outcome:
        last?.outcome === 'running' && !runIsLive(last, lock) ? 'interrupted' : (last?.outcome ?? null),
      incomplete:
        last?.outcome === 'incomplete'
          ? (last.error ?? 'stopped at a bound').replace(/^INCOMPLETE: /, '')
          : null,
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
/** Monitoring-plugin exit codes (Nagios, Icinga, Sensu, Zabbix's nagios checks). */
export const CheckState = { OK: 0, WARNING: 1, CRITICAL: 2, UNKNOWN: 3 } as const;
export type CheckStateName = keyof typeof CheckState;

/** A duration in milliseconds by the one duration grammar (dates.ts), or undefined when not one. */
export function parseDuration(text: string): number | undefined {
  return durationOf(text) ?? undefined;
}

/** A duration in the largest whole-ish unit, for the status line: 93m, 30h, 3d. */
export function formatAge(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

export interface JobRunState {
  id: number;
  job: string;
  /** `running` also for a run a BI snapshot was taken during (see `snapshot`). */
  outcome: string;
  /** This mirror is a BI snapshot taken while the run was going: when it was taken. */
  snapshotTakenAt?: string;
  error_code: string | null;
  started_at: string;
  ended_at: string | null;
}

/**
 * The last run of each job, a `running` one whose process is gone shown as `interrupted`
 * (the job lock, like the sync lock, is held by the running process).
 */
export async function lastJobRuns(mirror: Mirror): Promise<JobRunState[]> {
  const runs = await mirror.db
    .selectFrom('job_run')
    .select(['id', 'job', 'outcome', 'error_code', 'started_at', 'ended_at', 'pid'])
    .where(
      'id',
      'in',
      mirror.db
        .selectFrom('job_run')
        .select((eb) => eb.fn.max('id').as('id'))
        .groupBy('job'),
    )
    .orderBy('id')
    .execute();
  const lock = await mirror.db
    .selectFrom('sync_lock')
    .select(['pid'])
    .where('name', '=', 'job')
    .executeTakeFirst();
  // In a BI snapshot, the runs going when it was taken are that, not runs that died.
  const takenAt = await readMeta(mirror.db, metaKeys.snapshotTakenAt);
  const during = new Set<number>(JSON.parse((await readMeta(mirror.db, metaKeys.snapshotJobRuns)) ?? '[]'));
  return runs.map(({ pid, ...run }) =>
    run.outcome === 'running' && takenAt !== undefined && during.has(Number(run.id))
      ? { ...run, snapshotTakenAt: takenAt }
      : run.outcome === 'running' && !(lock?.pid === pid && alive(pid))
        ? { ...run, outcome: 'interrupted', error_code: run.error_code ?? 'KILLED' }
        : run,
  );
}

export interface CheckOptions {
  /** A stream whose last success is older than this is CRITICAL. */
  maxAgeMs: number;
  /** ... older than this (and younger than maxAgeMs) is a WARNING; absent: no warning by age. */
  warnAgeMs?: number;
  now?: number;
}

/**
 * `ohs status --check`: one line and an exit code, by the monitoring-plugin convention.
 * CRITICAL: a stream never synced or staler than `maxAgeMs`, the last sync run or the last run
 * of a job failed or interrupted. WARNING: a stream staler than `warnAgeMs`, records kept with a
 * field of the wrong type, a stream whose last run stopped at a bound (incomplete), a stream
 * whose own last outcome was not ok. Performance data after
 * `|`: each stream's age in seconds with the thresholds.
 */
export function statusCheck(
  report: StatusReport,
  jobs: readonly JobRunState[],
  o: CheckOptions,
): { state: CheckStateName; code: number; line: string } {
  const now = o.now ?? Date.now();
  const critical: string[] = [];
  const warning: string[] = [];
  const last = report.runs[0];
  if (last === undefined) critical.push('no sync run recorded');
  else if (last.outcome === 'failed' || last.outcome === 'interrupted')
    critical.push(
      `last sync run ${last.id} ${last.outcome}${last.error_code ? ` (${last.error_code})` : ''}`,
    );
  for (const j of jobs)
    if (j.outcome === 'failed' || j.outcome === 'interrupted')
      critical.push(`last ${j.job} job run ${j.id} ${j.outcome}${j.error_code ? ` (${j.error_code})` : ''}`);
  const perf: string[] = [];
  let oldest: { stream: string; age: number } | undefined;
  for (const s of report.streams) {
    if (s.last_success_at === null) {
      critical.push(`${s.stream} never synced`);
      continue;
    }
    const age = Math.max(0, now - Date.parse(s.last_success_at));
    if (oldest === undefined || age > oldest.age) oldest = { stream: s.stream, age };
    perf.push(
      `'${s.stream}_age'=${Math.round(age / 1000)}s;${o.warnAgeMs === undefined ? '' : Math.round(o.warnAgeMs / 1000)};${Math.round(o.maxAgeMs / 1000)};0`,
    );
    if (age > o.maxAgeMs)
      critical.push(`${s.stream} last synced ${formatAge(age)} ago (max ${formatAge(o.maxAgeMs)})`);
    else if (o.warnAgeMs !== undefined && age > o.warnAgeMs)
      warning.push(`${s.stream} last synced ${formatAge(age)} ago (warn ${formatAge(o.warnAgeMs)})`);
    // A stream stopped at a bound holds part of the service: never an all-clear.
    if (s.incomplete !== null) warning.push(`${s.stream} incomplete: ${s.incomplete}`);
    // A stream's own failure shows here when a later run of other streams (--streams) went well.
    else if (critical.length === 0 && s.last_outcome !== null && !['ok', 'running'].includes(s.last_outcome))
      warning.push(`${s.stream} last stream outcome ${s.last_outcome}`);
    const wrong = Object.values(s.type_errors).reduce((a, b) => a + b, 0);
    if (wrong > 0) warning.push(`${s.stream} ${wrong} record(s) kept with a field of the wrong type`);
  }
  const state: CheckStateName = critical.length > 0 ? 'CRITICAL' : warning.length > 0 ? 'WARNING' : 'OK';
  // What a BI snapshot is: a copy taken during a job, whose outcome only the live mirror holds.
  const during = jobs.find((j) => j.snapshotTakenAt !== undefined);
  const snapshot =
    during === undefined
      ? ''
      : `; BI snapshot taken ${during.snapshotTakenAt} during ${during.job} job run ${during.id} (its outcome is in the live mirror)`;
  const text =
    state === 'OK'
      ? `${report.streams.length} streams fresh${oldest === undefined ? '' : ` (oldest ${oldest.stream}, ${formatAge(oldest.age)} ago)`}, last sync run ${last?.id} ${last?.outcome}${snapshot}`
      : `${[...critical, ...warning].join('; ')}${snapshot}`;
  return {
    state,
    code: CheckState[state],
    line: `OHS ${state} - ${text}${perf.length > 0 ? ` | ${perf.join(' ')}` : ''}`,
  };
}
