import type { ResourceTableName } from '../mirror/index.js';
import type { StreamContext } from './types.js';

/** The id layout of a stream, learnt from the ids the mirror holds. */
export interface IdLayout {
  /** Lowest and highest numeric id known; undefined when none. */
  low: number | undefined;
  top: number | undefined;
  /** The step every known id is a multiple of, from the lowest (1 when ids are consecutive). */
  stride: number;
  count: number;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Reads the layout in one pass over the ids (no spread into Math.max: tables pass 125k rows). */
export async function idLayout(ctx: StreamContext, table: ResourceTableName): Promise<IdLayout> {
  const rows = await ctx.mirror.db.selectFrom(table).select('id').execute();
  let low: number | undefined;
  let top: number | undefined;
  let count = 0;
  const ids: number[] = [];
  for (const r of rows) {
    const n = Number(r.id);
    if (!Number.isSafeInteger(n)) continue;
    ids.push(n);
    count++;
    if (low === undefined || n < low) low = n;
    if (top === undefined || n > top) top = n;
  }
  let stride = 0;
  for (const n of ids) if (low !== undefined) stride = gcd(stride, n - low);
  return { low, top, stride: stride > 1 ? stride : 1, count };
}
