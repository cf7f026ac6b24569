import { hostname } from 'node:os';
import type { OhsClient, RequestCounter } from '../api/index.js';
import { newTypeIssueTally, type TypeIssueTally } from '../api/validate-record.js';
import { DiskFullError, diskFullError } from '../disk-full.js';
import { describeError, type OhsError, UsageError } from '../errors.js';
import type { Logger } from '../log.js';
import {
  acquireLock,
  displayBaseUrl,
  endRun,
  errorCode,
  type Mirror,
  metaKeys,
  type RunOutcome,
  type Settled,
  settle,
  startRun,
  writeMeta,
} from '../mirror/index.js';
import { didYouMean } from '../util/closest.js';
import { markDeadRuns } from './dead-runs.js';
import { runIdStream } from './id-runner.js';
import { runListStream } from './list-runner.js';
import { nowIso } from './passes.js';
import { checkService, restartPasses } from './preflight.js';
import { type ProgressBoard, progressBoard, type TtyStream } from './progress.js';
import { runQueryStream } from './query-runner.js';
import { streamNames, streams } from './streams.js';
import {
  InterruptedError,
  MassDeleteError,
  newRunEvidence,
  newStats,
  type RunEvidence,
  type StreamContext,
  type StreamDecl,
  type StreamStats,
  type SyncOptions,
} from './types.js';

/** This run's switches, off unless given (the configured values have no fallback: see SyncOptions). */
type RunSwitches = Pick<SyncOptions, 'full' | 'allowMassDelete' | 'extraIds' | 'restartPasses'>;
const switchesOff: RunSwitches = { full: false, allowMassDelete: false, extraIds: {}, restartPasses: false };

/** The configured values (config `sync`, e.g. `...config.sync`) are required; switches are optional. */
export interface RunSyncOptions extends Omit<SyncOptions, keyof RunSwitches>, Partial<RunSwitches> {
  /** Stream names to sync; default all. */
  streams?: string[];
  /** Abort to stop after the page under way (SIGINT / SIGTERM). */
  signal?: AbortSignal;
  /** Progress bars; default: when stderr is a TTY. */
  progress?: boolean;
  /** Where the bars are drawn; default stderr. */
  progressOut?: TtyStream;
  /** Kind recorded in sync_run (`sync`, or a job name). */
  kind?: string;
  /** The caller ran the service check before opening the mirror (`ohs sync`): not asked again. */
  serviceChecked?: boolean;
}

export interface StreamReport {
  stream: string;
  outcome: RunOutcome;
  /** The stream ended well but stopped at a bound: what was left unread, and what to do. */
  incomplete?: string;
  stats: StreamStats;
  requests: number;
  retries: number;
  error?: OhsError | Error;
}

export interface SyncReport {
  runId: number;
  outcome: RunOutcome;
  streams: StreamReport[];
  /** The first failure, if any (it decides the exit status). */
  error?: OhsError | Error;
}

const runners: {
  [K in StreamDecl['kind']]: (decl: Extract<StreamDecl, { kind: K }>, ctx: StreamContext) => Promise<void>;
} = {
  query: runQueryStream,
  list: runListStream,
  ids: runIdStream,
};

function runStream(decl: StreamDecl, ctx: StreamContext): Promise<void> {
  switch (decl.kind) {
    case 'query':
      return runners.query(decl, ctx);
    case 'list':
      return runners.list(decl, ctx);
    case 'ids':
      return runners.ids(decl, ctx);
  }
}

/**
 * A fault point for tests (env `OHS_TEST_FAULT=sync:NAME`): throws where named, so a test can
 * prove what an unexpected error at that spot leaves behind. Never set outside tests.
 */
function faultPoint(name: string): void {
  if (process.env.OHS_TEST_FAULT === `sync:${name}`) throw new Error(`test fault at sync:${name}`);
}

/** Refuses a stream name that is none, naming the closest (before anything is asked or opened). */
export function assertStreamNames(names: readonly string[]): void {
  for (const n of names) {
    if (!streamNames.includes(n))
      throw new UsageError(
        `unknown stream '${n}'${didYouMean(n, streamNames)} (streams: ${streamNames.join(', ')})`,
      );
  }
}

/**
 * `ohs sync`: every stream (or those named) into the mirror, one sync at a time per file, each
 * run and stream recorded in sync_run / sync_stream_run. Streams run at once and share the
 * client, its concurrency and its rate limit; a failing stream does not stop the others, but a full
 * disk does (nothing more can be written): the run ends DISK_FULL (see stopOnFullDisk).
 */
export async function runSync(
  client: OhsClient,
  mirror: Mirror,
  logger: Logger,
  options: RunSyncOptions,
): Promise<SyncReport> {
  const names = options.streams?.length ? options.streams : streamNames;
  assertStreamNames(names);
  const opts: SyncOptions = { ...switchesOff, ...stripUndefined(options) };
  const lock = await acquireLock(mirror);
  // Everything after the lock is inside this try: whatever fails, the lock is released.
  let board: ProgressBoard | undefined;
  try {
    faultPoint('after-lock');
    const dead = await markDeadRuns(mirror.db);
    if (dead > 0) logger.warn({ runs: dead }, 'earlier runs died without finishing: marked interrupted');
    const signal = options.signal ?? new AbortController().signal;
    const full = new AbortController();
    board = progressBoard(options.progress, options.progressOut);
    const before = client.metrics();
    const runId = await startRun(mirror.db, 'sync_run', {
      kind: options.kind ?? 'sync',
      started_at: nowIso(),
      mode: opts.full ? 'full' : 'incremental',
      streams: names.join(','),
      pid: process.pid,
      host: hostname(),
      requests: 0,
      retries: 0,
    });
    const chosen = streams.filter((s) => names.includes(s.name));
    // Before any stream: a service not found at this URL stops the run with one error, before
    // anything is read, written or deleted (and the URL is not recorded as the mirror's source).
    const preflight = { requests: 0, retries: 0 };
    const checked = options.serviceChecked === true ? {} : await checkService(client, chosen, preflight);
    if (checked.error !== undefined) {
      await endRun(mirror.db, 'sync_run', runId, { outcome: 'failed', error: checked.error });
      return { runId, outcome: 'failed', streams: [], error: checked.error };
    }
    const source = displayBaseUrl(client.baseUrl);
    await writeMeta(mirror.db, metaKeys.sourceBaseUrl, source, true);
    await writeMeta(mirror.db, metaKeys.lastBaseUrl, source);
    if (opts.restartPasses) await restartPasses(mirror, chosen, logger);
    const evidence = newRunEvidence();
    const env = {
      client,
      mirror,
      logger,
      runId,
      opts,
      signal: AbortSignal.any([signal, full.signal]),
      interrupted: signal,
      full,
      board,
      evidence,
      preflight: { stream: checked.stream, counter: preflight },
      rowsInOrder: inOrder(),
    };
    const reports = await Promise.all(chosen.map((decl) => syncStream(decl, env)));
    // Once per run, not per pass: a checkpoint per pass (seven per sync) cost the sync 0.2 to 0.3 s
    // here; the WAL's own auto-checkpoint still runs every 1,000 pages meanwhile. Not on a full
    // disk: a checkpoint needs room there (the next run makes it).
    if (!full.signal.aborted) await mirror.maintain();
    // A full disk decides the run's error: it is why the other streams stopped.
    const failed =
      reports.find((r) => r.error instanceof DiskFullError) ?? reports.find((r) => r.outcome === 'failed');
    const interrupted = reports.some((r) => r.outcome === 'interrupted');
    const outcome = failed !== undefined ? 'failed' : interrupted ? 'interrupted' : 'ok';
    const after = client.metrics();
    const error = failed?.error;
    await endRun(
      mirror.db,
      'sync_run',
      runId,
      { outcome, error },
      {
        // What the run did, not what was asked: a first run on an empty mirror is a full pass.
        mode: reports.every((r) => r.stats.mode === 'full') ? 'full' : 'incremental',
        requests: after.requests - before.requests,
        retries:
          Object.values(after.retries).reduce((a, b) => a + (b ?? 0), 0) -
          Object.values(before.retries).reduce((a, b) => a + (b ?? 0), 0),
      },
    );
    return { runId, outcome, streams: reports, ...(error === undefined ? {} : { error }) };
  } finally {
    board?.stop();
    await lock.release();
  }
}

interface RunEnv {
  client: OhsClient;
  mirror: Mirror;
  logger: Logger;
  runId: number;
  opts: SyncOptions;
  /** Stops the streams: SIGINT / SIGTERM (`interrupted`) or a full disk (`full`). */
  signal: AbortSignal;
  interrupted: AbortSignal;
  /** Aborted, with the DiskFullError, by the first stream that meets a full disk. */
  full: AbortController;
  board: ProgressBoard;
  evidence: RunEvidence;
  /** The preflight's request, counted as the named stream's. */
  preflight: { stream: string | undefined; counter: RequestCounter };
  /** Each stream's sync_stream_run row is inserted in declaration order (see inOrder). */
  rowsInOrder: <T>(insert: () => Promise<T>) => Promise<T>;
}

/**
 * Runs the calls one after another in the order they were made: streams start at once, and on a
 * pooled engine (PostgreSQL) their first inserts would otherwise race for ids, so a run's
 * sync_stream_run rows would not follow the declaration order as they do on SQLite.
 */
function inOrder(): <T>(insert: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(insert: () => Promise<T>) => {
    const next = last.then(insert, insert);
    last = next.catch(() => undefined);
    return next;
  };
}

/**
 * A full disk is DISK_FULL, not a stream's bug (INTERNAL): the stream that meets it fails with it
 * and stops the others, which record why they stopped. Nothing is lost: the transaction under way
 * was rolled back, and the next run resumes each stream from its checkpoint.
 */
function stopOnFullDisk(run: Settled<void>, env: RunEnv): Settled<void> {
  if (run.outcome === 'failed') {
    const error = diskFullError(run.error, ['sync']);
    if (error === undefined) return run;
    if (!env.full.signal.aborted) env.full.abort(error);
    return { outcome: 'failed', error };
  }
  if (run.outcome === 'interrupted' && env.full.signal.aborted && !env.interrupted.aborted)
    return { outcome: 'interrupted', error: new InterruptedError('another stream found the disk full') };
  return run;
}

/**
 * One stream, run and recorded. When the disk fills while its run is recorded (its row, its
 * state), the stream is reported (and logged) DISK_FULL as far as the disk let it be recorded; the
 * run's end still tries to record it, and a row left `running` is closed by the next run.
 */
async function syncStream(decl: StreamDecl, env: RunEnv): Promise<StreamReport> {
  try {
    return await runAndRecord(decl, env);
  } catch (err) {
    const error = diskFullError(err, ['sync']);
    if (error === undefined) throw err;
    if (!env.full.signal.aborted) env.full.abort(error);
    env.logger
      .child({ stream: decl.name })
      .error({ outcome: 'failed', code: error.code, error: describeError(error) }, 'stream failed');
    const stats = newStats(env.opts.full ? 'full' : 'incremental');
    return { stream: decl.name, outcome: 'failed', stats, requests: 0, retries: 0, error };
  }
}

async function runAndRecord(decl: StreamDecl, env: RunEnv): Promise<StreamReport> {
  const { mirror, logger, runId } = env;
  const started = nowIso();
  const rowId = await env.rowsInOrder(() =>
    startRun(mirror.db, 'sync_stream_run', {
      run_id: runId,
      stream: decl.name,
      mode: env.opts.full ? 'full' : 'incremental',
      started_at: started,
      pages: 0,
      inserted: 0,
      updated: 0,
      unchanged: 0,
      deleted: 0,
      requests: 0,
      retries: 0,
    }),
  );
  const stats = newStats(env.opts.full ? 'full' : 'incremental');
  const counter: RequestCounter =
    env.preflight.stream === decl.name ? { ...env.preflight.counter } : { requests: 0, retries: 0 };
  const tally = newTypeIssueTally();
  const ctx: StreamContext = {
    client: env.client.scoped({ counter, tally }),
    evidence: env.evidence,
    mirror,
    runId,
    options: env.opts,
    logger: logger.child({ stream: decl.name }),
    progress: env.board.stream(decl.name, () => ({
      records: stats.inserted + stats.updated + stats.unchanged,
      requests: counter.requests,
    })),
    signal: env.signal,
    stats,
  };
  const run = stopOnFullDisk(await settle(() => runStream(decl, ctx)), env);
  const { outcome, error } = run;
  // The streams still running withhold their deletions (passes.ts allowedDeletions). A tripped
  // mass-delete guard is no failure to read: the other streams' evidence stands.
  if (outcome === 'failed' && !(error instanceof MassDeleteError)) env.evidence.failed = true;
  const s = ctx.stats;
  // A stream that completed a full pass in this run ran in full mode, whatever it set last (a
  // pass a killed --full run left, resumed and finished by an incremental run, is a full pass).
  const state = await mirror.db
    .selectFrom('sync_stream_state')
    .select('last_full_at')
    .where('stream', '=', decl.name)
    .executeTakeFirst();
  if (state?.last_full_at != null && state.last_full_at >= started) s.mode = 'full';
  // A stream that ended well but stopped at a bound is recorded incomplete, saying what is missing.
  const incomplete = outcome === 'ok' ? s.incomplete : undefined;
  const recorded =
    incomplete === undefined ? run : { outcome: 'incomplete' as const, note: `INCOMPLETE: ${incomplete}` };
  await endRun(mirror.db, 'sync_stream_run', rowId, recorded, {
    mode: s.mode,
    pages: s.pages,
    inserted: s.inserted,
    updated: s.updated,
    unchanged: s.unchanged,
    deleted: s.deleted,
    records: s.records,
    requests: counter.requests,
    retries: counter.retries,
  });
  await recordTypeIssues(mirror, runId, decl.name, tally, ctx.logger);
  if (outcome === 'ok') {
    await mirror.db
      .insertInto('sync_stream_state')
      .values({
        stream: decl.name,
        last_run_id: runId,
        last_success_at: started,
        last_full_at: null,
        pass_id: null,
        pass_started_at: null,
      })
      .onConflict((oc) => oc.column('stream').doUpdateSet({ last_run_id: runId, last_success_at: started }))
      .execute();
  }
  // The stream's name is in the child logger's bindings: not repeated here.
  const line = {
    mode: s.mode,
    outcome,
    pages: s.pages,
    inserted: s.inserted,
    updated: s.updated,
    unchanged: s.unchanged,
    deleted: s.deleted,
    ...(s.restored > 0 ? { restored: s.restored } : {}),
    requests: counter.requests,
    retries: counter.retries,
  };
  if (outcome === 'failed')
    ctx.logger.error({ ...line, code: errorCode(error), error: describeError(error) }, 'stream failed');
  else if (incomplete !== undefined) ctx.logger.warn({ ...line, incomplete }, 'stream incomplete');
  else ctx.logger.info(line, outcome === 'ok' ? 'stream synced' : 'stream interrupted');
  return {
    stream: decl.name,
    outcome,
    ...(incomplete === undefined ? {} : { incomplete }),
    stats: s,
    requests: counter.requests,
    retries: counter.retries,
    ...(error === undefined ? {} : { error }),
  };
}

/**
 * Fields of the wrong type seen by a stream: one warning per field and a row per field in
 * `sync_type_error`, which `ohs status` shows and reports can read. The records were kept as sent.
 */
async function recordTypeIssues(
  mirror: Mirror,
  runId: number,
  stream: string,
  tally: TypeIssueTally,
  logger: Logger,
): Promise<void> {
  for (const [field, t] of tally.byField) {
    logger.warn(
      { field, expected: t.expected, records: t.count, exampleId: t.exampleId },
      'records kept with a field of the wrong type',
    );
    await mirror.db
      .insertInto('sync_type_error')
      .values({ run_id: runId, stream, field, expected: t.expected, count: t.count, example_id: t.exampleId })
      .execute();
  }
}

/** `o` without its keys set to undefined (an optional switch given as undefined stays off). */
function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
