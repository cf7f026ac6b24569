import type { Kysely } from 'kysely';
import { type Database, metaKeys, readMeta } from '../../mirror/index.js';

export interface StreamState {
  stream: string;
  /** When the last successful run of the stream started. */
  last_success_at: string | null;
  last_full_at: string | null;
  last_run_id: number | null;
}

/** A stream's last run as the mirror knew it at an instant: the one state every view of it reads. */
export interface LastStreamRun {
  stream: string;
  outcome: string;
  error: string | null;
  run_id: number;
  pid: number;
  host: string | null;
}

/**
 * Each stream's last run that started at or before `at` (undefined: every run), by stream: what
 * `ohs status`, the dashboard's freshness and the changes report's "stream incomplete" all read,
 * so a stream whose interrupted run was followed by a complete one is incomplete in none of them.
 */
export async function lastStreamRuns(
  db: Kysely<Database>,
  at: string | undefined,
): Promise<Map<string, LastStreamRun>> {
  let q = db
    .selectFrom('sync_stream_run')
    .innerJoin('sync_run', 'sync_run.id', 'sync_stream_run.run_id')
    .select([
      'sync_stream_run.id',
      'sync_stream_run.stream',
      'sync_stream_run.outcome',
      'sync_stream_run.error',
      'sync_stream_run.run_id',
      'sync_run.pid',
      'sync_run.host',
    ])
    .where('sync_stream_run.id', 'in', (eb) => {
      let inner = eb.selectFrom('sync_stream_run as l').select((x) => x.fn.max('l.id').as('id'));
      if (at !== undefined) inner = inner.where('l.started_at', '<=', at);
      return inner.groupBy('l.stream');
    });
  if (at !== undefined) q = q.where('sync_stream_run.started_at', '<=', at);
  const rows = await q.execute();
  return new Map(
    rows.map((r) => [
      r.stream,
      {
        stream: r.stream,
        outcome: r.outcome,
        error: r.error,
        run_id: Number(r.run_id),
        pid: Number(r.pid),
        host: r.host,
      },
    ]),
  );
}

/**
 * Each stream's last successful sync as the mirror knew it at `at` (ISO 8601 UTC; undefined:
 * now, sync_stream_state). At an instant, the last stream run that ended ok at or before it
 * (sync_stream_run): its start is the stream's last success, its run the run behind it, and the
 * end of the last full one its last full pass (a run that ended later was not known then).
 */
export async function streamStates(
  db: Kysely<Database>,
  streams: readonly string[],
  at: string | undefined,
): Promise<StreamState[]> {
  if (streams.length === 0) return [];
  if (at === undefined)
    return db
      .selectFrom('sync_stream_state')
      .select(['stream', 'last_success_at', 'last_full_at', 'last_run_id'])
      .where('stream', 'in', [...streams])
      .execute();
  const runs = await db
    .selectFrom('sync_stream_run')
    .select(['stream', 'run_id', 'mode', 'started_at', 'ended_at'])
    .where('stream', 'in', [...streams])
    // An incomplete run (stopped at a bound) ended well for what it read, as the present state counts it.
    .where('outcome', 'in', ['ok', 'incomplete'])
    .where('ended_at', '<=', at)
    .orderBy('id')
    .execute();
  const out = new Map<string, StreamState>();
  for (const r of runs) {
    const prev = out.get(r.stream);
    out.set(r.stream, {
      stream: r.stream,
      last_success_at: r.started_at,
      last_run_id: r.run_id,
      last_full_at: r.mode === 'full' ? r.ended_at : (prev?.last_full_at ?? null),
    });
  }
  return [...out.values()];
}

/**
 * About lines naming when each stream a report reads was last synced and the sync run behind
 * it (sync_run), so a printed report proves its source; as the mirror knew them at `at`.
 */
export async function lastSyncLines(
  db: Kysely<Database>,
  streams: readonly string[],
  at?: string,
): Promise<[string, string][]> {
  const state = await streamStates(db, streams, at);
  const runIds = state.map((s) => s.last_run_id).filter((id): id is number => id !== null);
  const runs =
    runIds.length === 0
      ? []
      : await db
          .selectFrom('sync_run')
          .select(['id', 'mode', 'outcome', 'started_at', 'ended_at'])
          .where('id', 'in', runIds)
          .execute();
  return streams.map((stream) => {
    const s = state.find((x) => x.stream === stream);
    const success = s?.last_success_at ?? 'never';
    const full = s?.last_full_at ?? 'never';
    const run = runs.find((r) => r.id === s?.last_run_id);
    const by =
      run === undefined
        ? ''
        : `; sync run #${run.id} (${run.mode}, ${run.outcome}, ${run.started_at} to ${run.ended_at ?? 'not ended'})`;
    return [`Last sync of ${stream}`, `${success} (last full pass: ${full}${by})`];
  });
}

/**
 * The mirror named by what stays true of it: the service its latest sync read (mirror_meta's
 * base URL of the latest sync that reached the service, credentials stripped) and that run, then
 * its first sync run (and the service of that one when it was another), rather than a path that
 * may be a temporary one.
 */
/** An engine as a reader names it. */
const engineNames: Record<string, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

export async function mirrorIdentity(db: Kysely<Database>, engine: string): Promise<string> {
  const first = await readMeta(db, metaKeys.sourceBaseUrl);
  const last = (await readMeta(db, metaKeys.lastBaseUrl)) ?? first;
  const demo = await readMeta(db, metaKeys.demoSandbox);
  const runs = db.selectFrom('sync_run').select(['id', 'started_at']);
  const firstRun = await runs.orderBy('id').limit(1).executeTakeFirst();
  // The latest run that did not fail (one refused by the service check read nothing there).
  const lastRun = await runs
    .where((eb) => eb.or([eb('error_code', 'is', null), eb('outcome', '!=', 'failed')]))
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const of = last === undefined ? 'a service not recorded (no sync yet)' : last;
  const latest =
    lastRun === undefined || lastRun.id === firstRun?.id
      ? ''
      : `, latest sync run #${lastRun.id} (${lastRun.started_at})`;
  const origin =
    firstRun === undefined
      ? ''
      : `, first synced ${firstRun.started_at} (sync run #${firstRun.id}${first !== undefined && first !== last ? ` from ${first}` : ''})`;
  return `${engineNames[engine] ?? engine} mirror of ${of}${demo === undefined ? '' : ' (the built-in sandbox of ohs demo)'}${latest}${origin}`;
}
