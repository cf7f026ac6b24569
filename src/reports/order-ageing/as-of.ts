import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import { formatInstant, localDateOf, parseInstant } from '../dates.js';
import type { CommonParams } from '../params.js';
import { lastOrderItemSync } from './query.js';

/**
 * The as-of instant (REPORTS.md 3.2): as given (`--as-of-time`); for a past date the end of that
 * day (`mirrorAsOf`, the instant the mirror is read as of); for today the start of the last
 * completed order item sync (the mirror knows nothing later: ageing to the end of the day would
 * add up to a day to every item).
 */
export async function asOfInstant(
  db: Kysely<Database>,
  common: CommonParams,
  explicit: boolean,
  mirrorAsOf: string | undefined,
): Promise<{ ms: number; note: string; warning?: string }> {
  if (explicit) return { ms: common.asOfMs, note: 'as given (--as-of-time)' };
  const at = mirrorAsOf === undefined ? null : parseInstant(mirrorAsOf, 'UTC');
  if (at !== null)
    return {
      ms: at,
      note: `the end of ${common.asOfText} (${common.timezone}), the instant the mirror is read as of`,
    };
  const today = localDateOf(Date.now(), common.timezone);
  const isToday =
    today.year === common.asOf.year && today.month === common.asOf.month && today.day === common.asOf.day;
  if (!isToday) return { ms: common.asOfMs, note: `the end of ${common.asOfText} (${common.timezone})` };
  const last = await lastOrderItemSync(db, undefined);
  const lastMs = last === null ? null : parseInstant(last, 'UTC');
  if (lastMs === null || lastMs > common.asOfMs)
    return {
      ms: Math.min(Date.now(), common.asOfMs),
      note: 'now: the mirror records no completed order item sync',
      warning: 'No completed order item sync in the mirror: items are aged to the moment of the run',
    };
  return {
    ms: lastMs,
    note: `the start of the last completed order item sync (${formatInstant(lastMs)}): the mirror knows nothing later`,
  };
}
