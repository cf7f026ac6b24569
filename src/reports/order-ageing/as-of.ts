import { type AsOf, localDateOf } from '../../dates.js';

/**
 * The as-of instant (docs/reports.md): as given (`--as-of-time`); for a past date the end of that
 * day (the instant the mirror is read as of, `mirrorAsOf`); for today the moment the report runs
 * (the command's start, or the clock when the date given is today), rounded up to the whole
 * second so that `--as-of-time` can name it: everything the mirror holds was written before it,
 * so the same instant asked later (the mirror read as of it) gives the same rows.
 */
export function asOfInstant(
  asOf: AsOf,
  mirrorAsOf: string | undefined,
  now: number = Date.now(),
): { ms: number; note: string } {
  if (asOf.source === 'instant') return { ms: asOf.ms, note: 'as given (--as-of-time)' };
  if (mirrorAsOf !== undefined)
    return {
      // The last millisecond of the as-of date: the instant the mirror is read as of.
      ms: asOf.dayEndMs - 1,
      note: `the end of ${asOf.dateText} (${asOf.timezone}), the instant the mirror is read as of`,
    };
  const clock = asOf.source === 'now' ? asOf.ms : now;
  const today = localDateOf(clock, asOf.timezone);
  const isToday =
    today.year === asOf.date.year && today.month === asOf.date.month && today.day === asOf.date.day;
  if (!isToday) return { ms: asOf.dayEndMs, note: `the end of ${asOf.dateText} (${asOf.timezone})` };
  return {
    ms: Math.min(Math.ceil(clock / 1000) * 1000, asOf.dayEndMs),
    note: 'the moment the report ran (the mirror as it was then); --as-of-time with this instant gives the same rows',
  };
}
