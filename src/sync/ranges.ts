import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { activeCount } from './passes.js';
import type { QueryStreamDecl, StreamContext } from './types.js';

type QR = QueryStreamDecl['resource'];

/** An id range of a full pass: ids in `(cursor, upper]`; null leaves that side open. */
export interface RangeBounds {
  cursor: string | null;
  upper: string | null;
}

const WHOLE: RangeBounds[] = [{ cursor: null, upper: null }];

/**
 * Pages a range should have at least. A keyset range is a chain: each page waits for the one
 * before it, so a stream of P pages takes P round trips however many requests the client may have
 * in flight, while every other stream's requests (ids asked at once, lists, small tables) spread
 * over the whole concurrency. A range of fewer pages than this is over before the id streams are,
 * so splitting further only adds requests (each range ends on an empty page of its own).
 */
export const MIN_PAGES_PER_RANGE = 8;

/**
 * How many ranges a full pass of `pages` expected pages is read in at once: one below
 * 2 × MIN_PAGES_PER_RANGE (the small tables: a few pages, never the last stream to finish), else
 * a range per MIN_PAGES_PER_RANGE pages, at most `sync.partitions` and at most the requests the
 * client may have in flight when the pass starts (more ranges than that would queue behind each
 * other and take every slot from the other streams).
 */
export function rangeCount(pages: number, limits: { most: number; concurrency: number }): number {
  const n = Math.floor(pages / MIN_PAGES_PER_RANGE);
  if (n < 2) return 1;
  return Math.max(1, Math.min(n, limits.most, limits.concurrency));
}

/**
 * Ranges from split points: `(-∞, s1], (s1, s2], …, (sN, +∞)`. Every id lies in exactly one of
 * them, whatever it is: no gap, no overlap, and the last is open-ended, so a record inserted above
 * the highest id during the pass is read by it. Split points are sorted and made distinct first.
 */
export function rangesFrom(splits: readonly number[]): RangeBounds[] {
  const points = [...new Set(splits.filter(Number.isFinite))].sort((a, b) => a - b);
  return Array.from({ length: points.length + 1 }, (_, i) => ({
    cursor: i === 0 ? null : String(points[i - 1]),
    upper: i === points.length ? null : String(points[i]),
  }));
}

/**
 * The id ranges of a full pass of a large keyset stream (`partitioned`), read at once, each with
 * its own checkpoint (sync_checkpoint: one row per range, `part`), so a killed run's resume
 * re-reads only the ranges still open, from their last page.
 * - A mirror that holds the table: pages expected from its active rows (the previous run's count)
 *   at the records per page its last full run was answered (a service may cap pageSize without
 *   saying so: the sandbox answers 250 where 500 is asked), split points at their quantiles, so
 *   each range holds as many known rows (ids need not be evenly spread); no request.
 * - An empty mirror: the lowest and highest id asked (two requests), the span read as dense (an
 *   over-estimate: a range more costs one request) and cut in equal widths.
 */
export async function planRanges(decl: QueryStreamDecl, ctx: StreamContext): Promise<RangeBounds[]> {
  const limits = { most: ctx.options.partitions, concurrency: ctx.client.transport.concurrency };
  if (!decl.partitioned || limits.most === 1) return WHOLE;
  const table = tableOf(decl.resource).table as ResourceTableName;
  const held = await activeCount(ctx, table);
  if (held > 0) {
    const pageSize = await pageFill(ctx, decl.name);
    const n = rangeCount(Math.ceil(held / pageSize), limits);
    if (n === 1) return WHOLE;
    const splits: number[] = [];
    for (let i = 1; i < n; i++) {
      const row = await ctx.mirror.db
        .selectFrom(table)
        .select('id')
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .limit(1)
        .offset(Math.floor((i * held) / n) - 1)
        .executeTakeFirst();
      if (row !== undefined) splits.push(Number(row.id));
    }
    return logged(ctx, rangesFrom(splits), held, 'mirror');
  }
  const edge = async (dir: 'asc' | 'desc') => {
    const page = await ctx.client.query(decl.resource as QR, {
      sortBy: 'id',
      sortDirection: dir,
      pageSize: 1,
      return: ['id'],
    });
    const id = page.records[0]?.id;
    return typeof id === 'number' ? id : undefined;
  };
  const min = await edge('asc');
  const max = await edge('desc');
  if (min === undefined || max === undefined || max < min) return WHOLE;
  const span = max - min + 1;
  const n = rangeCount(Math.ceil(span / ctx.client.pageSize), limits);
  if (n === 1) return WHOLE;
  const step = Math.ceil(span / n);
  const splits = Array.from({ length: n - 1 }, (_, i) => min - 1 + (i + 1) * step);
  return logged(ctx, rangesFrom(splits), span, 'probe');
}

/**
 * Records per page to expect: the page size asked, or less when the stream's last full run was
 * answered fewer per page (its records over its pages).
 */
async function pageFill(ctx: StreamContext, stream: string): Promise<number> {
  const last = await ctx.mirror.db
    .selectFrom('sync_stream_run')
    .select(['records', 'pages'])
    .where('stream', '=', stream)
    .where('mode', '=', 'full')
    .where('pages', '>', 0)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const asked = ctx.client.pageSize;
  if (last === undefined || Number(last.records) <= 0) return asked;
  return Math.max(1, Math.min(asked, Math.ceil(Number(last.records) / Number(last.pages))));
}

function logged(ctx: StreamContext, ranges: RangeBounds[], rows: number, from: string): RangeBounds[] {
  ctx.logger.debug(
    { ranges: ranges.length, expectedRows: rows, from },
    'full pass read in id ranges at once, each with its own checkpoint',
  );
  return ranges;
}
