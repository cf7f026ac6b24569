import type { Kysely } from 'kysely';
import { daysInMonth, formatDate, type LocalDate, zonedToUtc } from '../../dates.js';
import { type Database, heldAt, historyStart } from '../../mirror/index.js';
import type { Column, Row } from '../../render/types.js';

/**
 * Trends as the mirror knew them: a report's totals at each past month end its
 * history covers, for the nightly job to draw. Month ends before the history begins are listed
 * as omitted, never filled with figures the mirror did not know then.
 */
export const TREND_MONTHS = 12;

/** The name of a report's Trend sheet (written again as `NAME-trend-DATE.csv` by the application). */
export const TREND_SHEET = 'Trend';

export interface MonthEnd {
  day: LocalDate;
  /** The last instant of the day in the zone, ISO 8601 UTC: the mirror is read as of it. */
  instant: string;
}

/** The last `count` month ends on or before `asOf` (its own when it is the last day), oldest first. */
export function monthEnds(asOf: LocalDate, timezone: string, count: number): MonthEnd[] {
  const out: MonthEnd[] = [];
  let { year, month } = asOf;
  if (asOf.day < daysInMonth(year, month)) month--;
  for (let k = 0; k < count; k++) {
    if (month === 0) {
      year--;
      month = 12;
    }
    const day = { year, month, day: daysInMonth(year, month) };
    out.unshift({ day, instant: new Date(zonedToUtc(day, 23, 59, 59, 999, timezone)).toISOString() });
    month--;
  }
  return out;
}

export const trendColumns: Column[] = [
  { key: 'monthEnd', title: 'Month end', type: 'date', width: 12 },
  { key: 'knownAt', title: 'Mirror as known at', type: 'string', width: 26 },
];
export const trendNoteColumn: Column = { key: 'note', title: 'Note', type: 'string', width: 40 };

/**
 * One row per month end: `totals` of the versions the mirror held then (read once for the whole
 * span by `read`, each month end's picked by heldAt), or, before the history begins, a row saying
 * it is omitted. Returns the rows (oldest first) and the omitted month ends.
 */
export async function trendRows<R extends { valid_from: string; valid_to: string | null }>(
  db: Kysely<Database>,
  ends: readonly MonthEnd[],
  read: (from: string, to: string) => Promise<R[]>,
  totals: (rows: R[], end: MonthEnd) => Row,
): Promise<{ rows: Row[]; omitted: MonthEnd[]; start: string | null }> {
  let versions: R[] | null = null;
  return trendRowsEach(db, ends, async (end, covered) => {
    versions ??= await read(
      (covered[0] as MonthEnd).instant,
      (covered[covered.length - 1] as MonthEnd).instant,
    );
    return totals(
      versions.filter((v) => heldAt(v, end.instant)),
      end,
    );
  });
}

/**
 * One row per month end: `totals` computed for each covered month end in turn (the caller reads
 * the mirror as of `end.instant`, so only one month end is held at once), or, before the history
 * begins, a row saying it is omitted.
 */
export async function trendRowsEach(
  db: Kysely<Database>,
  ends: readonly MonthEnd[],
  totals: (end: MonthEnd, covered: readonly MonthEnd[]) => Promise<Row>,
): Promise<{ rows: Row[]; omitted: MonthEnd[]; start: string | null }> {
  const start = await historyStart(db);
  const covered = ends.filter((e) => start !== null && e.instant >= start);
  const omitted = ends.filter((e) => !covered.includes(e));
  const rows: Row[] = [];
  for (const e of ends)
    rows.push(
      covered.includes(e)
        ? { monthEnd: formatDate(e.day), knownAt: e.instant, ...(await totals(e, covered)), note: null }
        : {
            monthEnd: formatDate(e.day),
            knownAt: e.instant,
            note:
              start === null
                ? 'omitted: the mirror has no history yet'
                : `omitted: before the mirror's history begins (${start})`,
          },
    );
  return { rows, omitted, start };
}

/** The About note of the month ends a trend left out, before the mirror's history begins; '' if none. */
export function omittedNote(trend: { omitted: readonly MonthEnd[]; start: string | null }): string {
  if (trend.omitted.length === 0) return '';
  return `; omitted, before the mirror's history begins (${trend.start ?? 'no history yet'}): ${trend.omitted.map((e) => formatDate(e.day)).join(', ')}`;
}
