import type { OhsClient } from '../api/index.js';
import { and, type FieldOf, type FilterItem, type QueryResource, where } from '../schema/index.js';
import { InterruptedError } from './types.js';

/** Ranges are split in this many parts at a time, each counted by one request at once. */
const FANOUT = 8;
/**
 * A range of at most this many mirrored ids is scanned (ids only) rather than split: splitting
 * costs FANOUT counts, worth it only when that saves more pages (a part of 500 ids is 2 pages at
 * the sandbox's cap of 250).
 */
const SCAN_AT_MOST = FANOUT * 500;

/** An id range `(after, atMost]` and the active mirror ids in it, ascending. */
interface IdRange {
  after: number | undefined;
  atMost: number;
  ids: number[];
}

/**
 * The ids the service still holds among `active` (the mirror's active ids), found with as few
 * requests as it can. The interface has no count (a `total` is not promised), but it pages by
 * position: asked `page` n of `pageSize` 1 sorted by id in an id range `(after, atMost]` whose
 * highest mirrored id is `atMost`, the service answers that very id exactly when it holds n ids
 * in the range, n being how many the mirror holds there. So one request answers "is anything in
 * this range gone?" for the whole range up to the highest id held; only when the answer differs
 * is the range split in FANOUT parts of as many mirrored ids each, asked at once, and the parts
 * that differ split again or, once small, scanned (ids only). With nothing deleted the sweep is
 * one request instead of a page per 250 ids (36 for 9,000 order items).
 *
 * Equal positions prove "nothing deleted" only when nothing is inserted below the highest id,
 * which the incremental run assumes already (it reads new rows above the highest id held). A
 * service ignoring `page` (it answers the first id of the range) is scanned whole at once.
 */
export async function idsStillThere<R extends QueryResource>(
  client: OhsClient,
  resource: R,
  active: readonly number[],
  signal: AbortSignal,
  scan: (range: { after?: number; atMost?: number }) => Promise<Set<number>>,
): Promise<Set<number>> {
  const ids = [...active].sort((a, b) => a - b);
  const top = ids.at(-1);
  if (top === undefined) return new Set();
  /** The id at the position of the range's last mirrored id, as the service sees it now. */
  const atPosition = async (r: IdRange): Promise<unknown> => {
    const items: FilterItem<FieldOf<R>>[] = [
      where('id', 'lessThanOrEqualTo', r.atMost) as FilterItem<FieldOf<R>>,
    ];
    if (r.after !== undefined) items.push(where('id', 'greaterThan', r.after) as FilterItem<FieldOf<R>>);
    const page = await client.query(resource, {
      advancedFilter: and(...items),
      return: ['id' as FieldOf<R>],
      sortBy: 'id' as FieldOf<R>,
      sortDirection: 'asc',
      page: r.ids.length,
      pageSize: 1,
    });
    return page.records[0]?.id;
  };
  const same = async (r: IdRange) => (await atPosition(r)) === r.atMost;
  const root: IdRange = { after: undefined, atMost: top, ids };
  const found = new Set<number>();
  const first = await atPosition(root);
  if (first === top) return new Set(ids);
  if (ids.length > 1 && first === ids[0]) {
    // `page` ignored: positions say nothing here.
    for (const id of await scan({ atMost: top })) found.add(id);
    return found;
  }
  await narrow(root, same, scan, found, signal);
  return found;
}

/** A range that differs from the mirror: split and asked again, or scanned when small. */
async function narrow(
  range: IdRange,
  same: (r: IdRange) => Promise<boolean>,
  scan: (range: { after?: number; atMost?: number }) => Promise<Set<number>>,
  found: Set<number>,
  signal: AbortSignal,
): Promise<void> {
  if (signal.aborted) throw new InterruptedError();
  if (range.ids.length <= SCAN_AT_MOST) {
    const seen = await scan({
      ...(range.after === undefined ? {} : { after: range.after }),
      atMost: range.atMost,
    });
    for (const id of range.ids) if (seen.has(id)) found.add(id);
    return;
  }
  const size = Math.ceil(range.ids.length / FANOUT);
  const parts: IdRange[] = [];
  for (let i = 0; i < range.ids.length; i += size) {
    const slice = range.ids.slice(i, i + size);
    parts.push({
      after: i === 0 ? range.after : range.ids[i - 1],
      atMost: slice.at(-1) as number,
      ids: slice,
    });
  }
  const verdicts = await Promise.all(parts.map(same));
  for (const [k, part] of parts.entries()) {
    if (verdicts[k] === true) for (const id of part.ids) found.add(id);
    else await narrow(part, same, scan, found, signal);
  }
}
