import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { basename } from 'node:path';
import { sql } from 'kysely';
import type { MonitorConfig } from '../config/monitor-schema.js';
import { describeError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import { streams } from '../sync/streams.js';
import { writeFileSafely } from '../util/safe-file.js';
import { type OutboxAttention, outboxAttention } from '../writeback/index.js';
import type { ChangesNotice } from './changes-notice.js';
import { lastJobRuns } from './status.js';

/**
 * What the nightly worker tells the outside after a job run (docs/monitoring.md): the JSON notice
 * of `monitor.notify` and the Prometheus textfile of `monitor.textfile`. Both are made from the
 * run tables of the mirror only: counts, outcomes and error codes, never the token, a record or
 * an error message (which may quote a record).
 */
export interface JobNotice {
  job: string;
  runId: number;
  trigger: string;
  outcome: 'ok' | 'failed' | 'interrupted';
  errorCode: string | null;
  startedAt: string;
  endedAt: string | null;
  /** Files the run wrote (reports). */
  files: number;
  /** The sync run the job made, with its counts per stream; null when it made none. */
  sync: {
    runId: number;
    outcome: string;
    errorCode: string | null;
    requests: number;
    retries: number;
    streams: Record<
      string,
      {
        outcome: string;
        records: number;
        inserted: number;
        updated: number;
        deleted: number;
        requests: number;
      }
    >;
  } | null;
  /**
   * The changes report the run wrote (the nightly job writes it every run): its headline, level
   * and headline counts, from the run's result; null when the run wrote none.
   */
  changes: ChangesNotice | null;
  /**
   * Write-back items waiting for a person, per state, after the run: `conflict` (sent, but the
   * balance read back is not its own effect: paid twice?), `held`, `unknown`, `failed`.
   */
  outbox: OutboxAttention;
}

/**
 * The notice of job run `runId`, read back from `job_run` and the sync run it made, with what the
 * run's changes report said (`changes`: from the run's result, never read back from its files).
 */
export async function jobNotice(
  mirror: Mirror,
  runId: number,
  changes: ChangesNotice | null,
): Promise<JobNotice> {
  const run = await mirror.db
    .selectFrom('job_run')
    .selectAll()
    .where('id', '=', runId)
    .executeTakeFirstOrThrow();
  // A job that failed mid-sync recorded no sync_run_id: its sync is the one its process began
  // after the job started.
  const syncRun = await mirror.db
    .selectFrom('sync_run')
    .select(['id', 'outcome', 'error_code', 'requests', 'retries'])
    .$call((q) =>
      run.sync_run_id !== null
        ? q.where('id', '=', run.sync_run_id)
        : q.where('pid', '=', run.pid).where('started_at', '>=', run.started_at),
    )
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const outputs = JSON.parse(run.outputs) as unknown[];
  let sync: JobNotice['sync'] = null;
  if (syncRun !== undefined) {
    const rows = await mirror.db
      .selectFrom('sync_stream_run')
      .select(['stream', 'outcome', 'records', 'inserted', 'updated', 'deleted', 'requests'])
      .where('run_id', '=', syncRun.id)
      .orderBy('id')
      .execute();
    sync = {
      runId: syncRun.id,
      outcome: syncRun.outcome,
      errorCode: syncRun.error_code,
      requests: Number(syncRun.requests),
      retries: Number(syncRun.retries),
      streams: Object.fromEntries(
        rows.map((r) => [
          r.stream,
          {
            outcome: r.outcome,
            records: Number(r.records),
            inserted: Number(r.inserted),
            updated: Number(r.updated),
            deleted: Number(r.deleted),
            requests: Number(r.requests),
          },
        ]),
      ),
    };
  }
  return {
    job: run.job,
    runId: run.id,
    trigger: run.trigger,
    outcome: run.outcome as JobNotice['outcome'],
    errorCode: run.error_code,
    startedAt: run.started_at,
    endedAt: run.ended_at,
    files: outputs.length,
    sync,
    changes,
    outbox: await outboxAttention(mirror.db),
  };
}

/**
 * Sends the notice to the configured command (argv, the JSON on its stdin, no shell) and webhook
 * (POST, JSON), after a failed or interrupted run, or any run with `onSuccess`. A notification
 * that fails is logged (warn) and changes nothing else: the run keeps its outcome. The webhook's
 * URL is never logged (it often carries a secret), only its host.
 */
export async function notify(
  config: MonitorConfig['notify'],
  notice: JobNotice,
  logger: Logger,
): Promise<void> {
  if (notice.outcome === 'ok' && !config.onSuccess) return;
  const body = `${JSON.stringify(notice)}\n`;
  const sends: Promise<void>[] = [];
  const { command, webhook, timeoutMs } = config;
  if (command !== null)
    sends.push(
      runNotifyCommand(command, body, timeoutMs).catch((err: unknown) =>
        logger.warn(
          { command: basename(command[0] ?? ''), error: describeError(err) },
          'notify command failed',
        ),
      ),
    );
  if (webhook !== null)
    sends.push(
      postWebhook(webhook, body, timeoutMs).catch((err: unknown) =>
        logger.warn({ webhook: new URL(webhook).host, error: describeError(err) }, 'notify webhook failed'),
      ),
    );
  await Promise.all(sends);
}

async function runNotifyCommand(argv: readonly string[], body: string, timeoutMs: number): Promise<void> {
  const [file, ...args] = argv;
  if (file === undefined) return;
  const child = spawn(file, args, { stdio: ['pipe', 'ignore', 'ignore'], timeout: timeoutMs });
  const exited = once(child, 'exit') as Promise<[number | null, string | null]>;
  child.stdin.on('error', () => {}); // a command that does not read its stdin is not an error
  child.stdin.end(body);
  const [code, signal] = await Promise.race([
    exited,
    once(child, 'error').then(([err]) => {
      throw err;
    }),
  ]);
  if (code !== 0) throw new Error(`exited ${code ?? signal}`);
}

async function postWebhook(url: string, body: string, timeoutMs: number): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(timeoutMs),
    redirect: 'error',
  });
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

/** A label value in the text format: backslash, double quote and newline escaped. */
const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

/** One metric family: HELP, TYPE, then its samples (labels → value). */
function family(name: string, help: string, samples: [Record<string, string>, number][]): string {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`];
  for (const [labels, value] of samples) {
    const ls = Object.entries(labels)
      .map(([k, v]) => `${k}="${label(v)}"`)
      .join(',');
    lines.push(`${name}${ls === '' ? '' : `{${ls}}`} ${Number.isFinite(value) ? value : 'NaN'}`);
  }
  return lines.join('\n');
}

const seconds = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso) / 1000);
const outcomes = ['ok', 'failed', 'interrupted', 'running'] as const;

/** The textfile's content: every job's last run, every stream's freshness and last run, the rate. */
export async function textfileMetrics(mirror: Mirror): Promise<string> {
  // A run recorded `running` whose process died counts as interrupted, as in `ohs status --check`.
  const jobs = [...(await lastJobRuns(mirror))].sort((a, b) => a.job.localeCompare(b.job));
  const state = await mirror.db
    .selectFrom('sync_stream_state')
    .select(['stream', 'last_success_at'])
    .execute();
  const lastStreamRuns = await mirror.db
    .selectFrom('sync_stream_run')
    .select(['stream', 'records', 'requests', 'outcome'])
    .where(
      'id',
      'in',
      mirror.db
        .selectFrom('sync_stream_run')
        .select((eb) => eb.fn.max('id').as('id'))
        .groupBy('stream'),
    )
    .execute();
  const rowCounts: [Record<string, string>, number][] = [];
  for (const s of streams) {
    const n = await sql<{
      n: number | string;
    }>`SELECT count(*) AS n FROM ${sql.table(s.name)} WHERE deleted_at IS NULL`.execute(mirror.db);
    rowCounts.push([{ stream: s.name }, Number(n.rows[0]?.n ?? 0)]);
  }
  const rates = await mirror.db.selectFrom('rate_budget').select(['key', 'rate']).orderBy('key').execute();
  const stream = (name: string) => ({ stream: name });
  return `${[
    family(
      'ohs_job_last_run_start_timestamp_seconds',
      'Start of the last run of the job (Unix time).',
      jobs.map((j) => [{ job: j.job }, seconds(j.started_at)]),
    ),
    family(
      'ohs_job_last_run_end_timestamp_seconds',
      'End of the last run of the job (Unix time; NaN while it runs).',
      jobs.map((j) => [{ job: j.job }, seconds(j.ended_at)]),
    ),
    family(
      'ohs_job_last_run_success',
      '1 when the last run of the job ended ok, else 0 (failed, interrupted, running).',
      jobs.map((j) => [{ job: j.job }, j.outcome === 'ok' ? 1 : 0]),
    ),
    family(
      'ohs_job_last_run_outcome',
      'The outcome of the last run of the job: 1 for the outcome it had, 0 for the others.',
      jobs.flatMap((j) =>
        outcomes.map((o): [Record<string, string>, number] => [
          { job: j.job, outcome: o },
          j.outcome === o ? 1 : 0,
        ]),
      ),
    ),
    family(
      'ohs_stream_last_success_timestamp_seconds',
      'When the stream last synced completely (Unix time; NaN: never).',
      streams.map((s) => [
        stream(s.name),
        seconds(state.find((x) => x.stream === s.name)?.last_success_at ?? null),
      ]),
    ),
    family('ohs_stream_rows', 'Records of the stream in the mirror (not deleted).', rowCounts),
    family(
      'ohs_stream_last_run_records',
      'Records the last run of the stream fetched.',
      lastStreamRuns.map((r) => [stream(r.stream), Number(r.records)]),
    ),
    family(
      'ohs_stream_last_run_requests',
      'Requests the last run of the stream sent.',
      lastStreamRuns.map((r) => [stream(r.stream), Number(r.requests)]),
    ),
    family(
      'ohs_stream_last_run_incomplete',
      'Whether the last run of the stream stopped at a bound (1: part of the service not mirrored; ohs status says what).',
      lastStreamRuns.map((r) => [stream(r.stream), r.outcome === 'incomplete' ? 1 : 0]),
    ),
    family(
      'ohs_rate_requests_per_second',
      'The request rate in force, shared by every process on this mirror, per service and token hash (+Inf: no limit found).',
      rates.map((r) => [{ budget: r.key }, r.rate === null ? Number.POSITIVE_INFINITY : Number(r.rate)]),
    ),
  ].join('\n')}\n`.replace(/ Infinity$/gm, ' +Inf');
}

/**
 * Writes the textfile atomically: a temporary file in the same folder, then a rename over the
 * old one, so node_exporter never reads half a file. Mode 0644: it holds no personal data and
 * node_exporter runs as another user.
 */
export async function writeTextfile(path: string, mirror: Mirror): Promise<void> {
  const text = await textfileMetrics(mirror);
  // 0644 from its creation, whatever the umask (a service's is often 077).
  await writeFileSafely(path, text, 0o644);
}

/** After every job run: the notification and the textfile, each logged (warn) when it fails. */
export async function afterJobRun(
  mirror: Mirror,
  config: MonitorConfig,
  logger: Logger,
  runId: number,
  changes: ChangesNotice | null,
): Promise<void> {
  if (config.textfile !== null) {
    const path = config.textfile;
    await writeTextfile(path, mirror).catch((err: unknown) =>
      logger.warn({ path, error: describeError(err) }, 'writing the Prometheus textfile failed'),
    );
  }
  if (config.notify.command === null && config.notify.webhook === null) return;
  try {
    await notify(config.notify, await jobNotice(mirror, runId, changes), logger);
  } catch (err) {
    logger.warn({ run: runId, error: describeError(err) }, 'notifying failed');
  }
}
