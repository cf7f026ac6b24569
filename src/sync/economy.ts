import type { Mirror } from '../mirror/index.js';

/** What `ohs status` shows of a stream's request economy and re-read coverage. */
export interface StreamEconomy {
  /** Requests per record fetched in the stream's last run that fetched any; null when none. */
  requests_per_record: number | null;
  /** Rotating re-read of id streams: the last id re-read and when a round last completed. */
  reread_cursor: string | null;
  reread_round_at: string | null;
  /** Ids the last run could not read (asked again next run). */
  failed_ids: number;
}

export async function streamEconomy(mirror: Mirror, stream: string): Promise<StreamEconomy> {
  const last = await mirror.db
    .selectFrom('sync_stream_run')
    .select(['requests', 'records'])
    .where('stream', '=', stream)
    .where('records', '>', 0)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const state = await mirror.db
    .selectFrom('sync_stream_state')
    .select(['reread_cursor', 'reread_round_at'])
    .where('stream', '=', stream)
    .executeTakeFirst();
  const failed = await mirror.db
    .selectFrom('sync_failed_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('stream', '=', stream)
    .executeTakeFirst();
  return {
    requests_per_record: last === undefined ? null : Math.round((last.requests / last.records) * 100) / 100,
    reread_cursor: state?.reread_cursor ?? null,
    reread_round_at: state?.reread_round_at ?? null,
    failed_ids: Number(failed?.n ?? 0),
  };
}
