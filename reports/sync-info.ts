import type { Kysely } from 'kysely';
import type { Database } from '../src/mirror/index.js';

/**
 * About lines naming when each stream a report reads was last synced (sync_stream_state), so a
 * printed report proves its source.
 */
export async function lastSyncLines(
  db: Kysely<Database>,
  streams: readonly string[],
): Promise<[string, string][]> {
  const state = await db
    .selectFrom('sync_stream_state')
    .select(['stream', 'last_success_at', 'last_full_at'])
    .where('stream', 'in', [...streams])
    .execute();
  return streams.map((stream) => {
    const s = state.find((x) => x.stream === stream);
    const success = s?.last_success_at ?? 'never';
    const full = s?.last_full_at ?? 'never';
    return [`Last sync of ${stream}`, `${success} (last full pass: ${full})`];
  });
}
