import type { Kysely } from 'kysely';
import { type Database, metaKeys, readMeta } from '../src/mirror/index.js';

/**
 * About lines naming when each stream a report reads was last synced (sync_stream_state) and
 * the sync run behind it (sync_run), so a printed report proves its source.
 */
export async function lastSyncLines(
  db: Kysely<Database>,
  streams: readonly string[],
): Promise<[string, string][]> {
  const state = await db
    .selectFrom('sync_stream_state')
    .select(['stream', 'last_success_at', 'last_full_at', 'last_run_id'])
    .where('stream', 'in', [...streams])
    .execute();
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
 * The mirror named by what stays true of it (issue 22): the service it mirrors (mirror_meta's
 * base URL of its first sync, credentials stripped) and its first sync run, rather than a path
 * that may be a temporary one.
 */
export async function mirrorIdentity(db: Kysely<Database>, engine: string): Promise<string> {
  const source = await readMeta(db, metaKeys.sourceBaseUrl);
  const demo = await readMeta(db, metaKeys.demoSandbox);
  const first = await db
    .selectFrom('sync_run')
    .select(['id', 'started_at'])
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  const of = source === undefined ? 'a service not recorded (no sync yet)' : source;
  return `${engine} mirror of ${of}${demo === undefined ? '' : ' (the built-in sandbox of ohs demo)'}${first === undefined ? '' : `, first synced ${first.started_at} (sync run #${first.id})`}`;
}
