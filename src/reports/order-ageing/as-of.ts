import { localDateOf, parseInstant } from '../../dates.js';
import type { CommonParams } from '../params.js';

/**
 * The as-of instant (docs/reports.md): as given (`--as-of-time`); for a past date the end of that
 * day (`mirrorAsOf`, the instant the mirror is read as of); for today the moment the report runs,
 * rounded up to the whole second so that `--as-of-time` can name it: everything the mirror holds
 * was written before it, so the same instant asked later (the mirror read as of it) gives the
 * same rows.
 */
export function asOfInstant(
  common: CommonParams,
  explicit: boolean,
  mirrorAsOf: string | undefined,
  now: number = Date.now(),
): { ms: number; note: string } {
  if (explicit) return { ms: common.asOfMs, note: 'as given (--as-of-time)' };
  const at = mirrorAsOf === undefined ? null : parseInstant(mirrorAsOf, 'UTC');
  if (at !== null)
    return {
      ms: at,
      note: `the end of ${common.asOfText} (${common.timezone}), the instant the mirror is read as of`,
    };
  const today = localDateOf(now, common.timezone);
  const isToday =
    today.year === common.asOf.year && today.month === common.asOf.month && today.day === common.asOf.day;
  if (!isToday) return { ms: common.asOfMs, note: `the end of ${common.asOfText} (${common.timezone})` };
  return {
    ms: Math.min(Math.ceil(now / 1000) * 1000, common.asOfMs),
    note: 'the moment the report ran (the mirror as it was then); --as-of-time with this instant gives the same rows',
  };
}
