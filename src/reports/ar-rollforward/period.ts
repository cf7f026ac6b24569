import type { Kysely } from 'kysely';
import { formatDate, type LocalDate, localDateOf, parseInstant, zonedToUtc } from '../../dates.js';
import { AsOfBeforeHistoryError, type Database, historyStart } from '../../mirror/index.js';
import { ReportParamError } from '../errors.js';
import type { CommonParams } from '../params.js';
import type { ArRollforwardOptions } from './options.js';

export interface Period {
  /** ISO 8601 UTC, as the mirror's history is read. */
  from: string;
  to: string;
  fromMs: number;
  toMs: number;
  /** The default month started before the history: why the period is shorter; null otherwise. */
  shortened: string | null;
  /** Why no figure can be given (the mirror has no history yet); null otherwise. */
  unknown: string | null;
  /** How the period was chosen, for the About sheet. */
  note: string;
}

const REPORT = 'ar-rollforward';
export const NO_HISTORY =
  'not known: the mirror has no history yet (no complete sync since it began keeping one); run ohs sync';

/**
 * The period: `from` and `to` as given (instants; a date alone is its start in the zone), or the
 * last full month before the as-of date's month. Refused: an unreadable instant, `to` not after
 * `from`, `to` in the future, and (AS_OF_BEFORE_HISTORY) a `from` before the mirror's history.
 */
export async function periodOf(
  db: Kysely<Database>,
  common: CommonParams,
  opts: ArRollforwardOptions,
  now = Date.now(),
): Promise<Period> {
  const read = (name: 'from' | 'to', value: string | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    const ms = parseInstant(value, common.timezone);
    if (ms === null)
      throw new ReportParamError(
        REPORT,
        `options.${name}`,
        `expected an ISO 8601 instant or a date, got '${value}'`,
      );
    return ms;
  };
  const monthStart = (d: LocalDate) =>
    zonedToUtc({ year: d.year, month: d.month, day: 1 }, 0, 0, 0, 0, common.timezone);
  const thisMonth = monthStart(common.asOf);
  const lastMonth = monthStart(
    common.asOf.month === 1
      ? { year: common.asOf.year - 1, month: 12, day: 1 }
      : { year: common.asOf.year, month: common.asOf.month - 1, day: 1 },
  );
  let fromMs = read('from', opts.from, lastMonth);
  let toMs = read('to', opts.to, thisMonth);
  const start = await historyStart(db);
  const given = opts.from !== undefined || opts.to !== undefined;
  let shortened: string | null = null;
  if (!given && start !== null && iso(fromMs) < start) {
    // The default month (nightly jobs, `report all`) on a young mirror: from the history's start,
    // said so; an explicit period before it is refused below.
    shortened = `the last full month (${iso(fromMs)} to ${iso(toMs)}) starts before the mirror's history (${start}): this period starts there instead`;
    fromMs = parseInstant(start, 'UTC') as number;
    // A mirror younger than this month: from its history's start to now.
    if (toMs <= fromMs) toMs = now;
    if (toMs <= fromMs) {
      const note = `the mirror's history begins ${start}, not before now: no period to roll forward yet`;
      return {
        from: iso(fromMs),
        to: iso(fromMs),
        fromMs,
        toMs: fromMs,
        shortened: null,
        unknown: note,
        note,
      };
    }
  }
  if (toMs <= fromMs)
    throw new ReportParamError(
      REPORT,
      'options.to',
      `the period's end ${iso(toMs)} is not after its start ${iso(fromMs)}`,
    );
  if (toMs > now)
    throw new ReportParamError(
      REPORT,
      'options.to',
      `the period's end ${iso(toMs)} is in the future (now ${iso(now)}): the mirror cannot know it yet`,
    );
  const from = iso(fromMs);
  if (start === null && !given)
    // `report all` and the nightly job on a mirror without history: a report saying so, not a
    // failure of every report of the run.
    return { from, to: iso(toMs), fromMs, toMs, shortened: null, unknown: NO_HISTORY, note: NO_HISTORY };
  if (start === null || from < start)
    throw new AsOfBeforeHistoryError(
      `ar-rollforward: the period starts ${from}, ${start === null ? 'and the mirror has no history yet (no complete sync since it began keeping one)' : `before the mirror's history begins (${start})`}: the opening A/R is not known then; give --from ${start ?? 'after the first sync'} or later`,
    );
  return {
    from,
    to: iso(toMs),
    fromMs,
    toMs,
    shortened,
    unknown: null,
    note:
      shortened ??
      (given
        ? `from ${from} to ${iso(toMs)} (as given)`
        : `from ${from} to ${iso(toMs)}: the last full month before ${formatDate(localDateOf(thisMonth, common.timezone))} (${common.timezone})`),
  };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
