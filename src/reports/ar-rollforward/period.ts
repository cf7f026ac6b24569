import type { Kysely } from 'kysely';
import {
  formatDate,
  formatInstant,
  instantIn,
  type LocalDate,
  localDateOf,
  type ReportTime,
  zonedToUtc,
} from '../../dates.js';
import { AsOfBeforeHistoryError, type Database, historyStart } from '../../mirror/index.js';
import { ReportParamError } from '../core/errors.js';
import type { CommonParams } from '../core/params.js';
import type { ArRollforwardOptions } from './options.js';

export interface Period {
  /** ISO 8601 UTC, as the mirror's history is read. */
  from: string;
  to: string;
  fromMs: number;
  toMs: number;
  /** The start was moved to the history's start (no `--from` given): why; null otherwise. */
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
 * The period (docs/reports.md, "The period"). The closing instant `to`: `--to`, else
 * `--as-of-time`, else with `--from` alone the run's instant, else the start of the as-of month
 * (the last full month). The opening instant `from`: `--from`, else the start of the month in
 * which the period ends (the month before when `to` is a month's start). A default start before
 * the mirror's history moves to the history's start (said so); if the default end is then not
 * after it, the period ends at the run's instant. Refused: an unreadable instant, `to` not after
 * `from`, `to` in the future, and (AS_OF_BEFORE_HISTORY) a `--from` before the history.
 */
export async function periodOf(
  db: Kysely<Database>,
  common: CommonParams,
  opts: ArRollforwardOptions,
  time: ReportTime,
): Promise<Period> {
  const read = (_name: 'from' | 'to', value: NonNullable<ArRollforwardOptions['from']>): number =>
    instantIn(value, common.timezone);
  // The run's instant (dates.ts ReportTime, decided once for the run): the one asked
  // (--as-of-time), the end of a past as-of date the mirror is read at, or the run's own instant
  // (a whole second, so the file name's end reproduces it).
  const run = { explicit: time.asOf.source === 'instant' };
  // The mirror read as it is (`--present`, or no past date asked): the run's own instant.
  const runMs = run.explicit || time.mirrorAt !== null ? time.at : time.run;
  const now = time.run;
  const monthStart = (d: LocalDate) =>
    zonedToUtc({ year: d.year, month: d.month, day: 1 }, 0, 0, 0, 0, common.timezone);
  const defaultTo = opts.to === undefined && !run.explicit && opts.from === undefined;
  let toMs =
    opts.to !== undefined
      ? read('to', opts.to)
      : run.explicit || opts.from !== undefined
        ? runMs
        : monthStart(common.asOf);
  // The start of the month the period ends in: the month of the instant just before `to`.
  let fromMs =
    opts.from !== undefined ? read('from', opts.from) : monthStart(localDateOf(toMs - 1, common.timezone));
  const start = await historyStart(db);
  let shortened: string | null = null;
  if (opts.from === undefined && start !== null && iso(fromMs) < start) {
    // The default month on a young mirror (nightly jobs, `report all`): from the history's start,
    // said so; a --from before it is refused below.
    const asked = `${iso(fromMs)} to ${iso(toMs)}`;
    // Up to the whole second (the history holds every later instant): a short file name.
    fromMs = Math.ceil(Date.parse(start) / 1000) * 1000;
    // A mirror younger than the default month: to the run's instant.
    if (defaultTo && toMs <= fromMs) toMs = runMs;
    shortened = `the period ${asked} starts before the mirror's history (${start}): it starts there instead, and ends ${iso(toMs)}`;
    if (toMs <= fromMs) {
      const note = `the mirror's history begins ${start}, not before the period's end ${iso(toMs)}: no period to roll forward yet`;
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
      opts.to === undefined ? 'options.from' : 'options.to',
      `the period's end ${iso(toMs)} is not after its start ${iso(fromMs)}`,
    );
  if (toMs > now)
    throw new ReportParamError(
      REPORT,
      'options.to',
      `the period's end ${iso(toMs)} is after the run's instant ${iso(now)}: the mirror cannot know it yet`,
    );
  const from = iso(fromMs);
  if (start === null && opts.from === undefined)
    // `report all` and the nightly job on a mirror without history: a report saying so, not a
    // failure of every report of the run.
    return { from, to: iso(toMs), fromMs, toMs, shortened: null, unknown: NO_HISTORY, note: NO_HISTORY };
  if (start === null || from < start)
    throw new AsOfBeforeHistoryError(
      `ar-rollforward: the period starts ${from}, ${start === null ? 'and the mirror has no history yet (no complete sync since it began keeping one)' : `before the mirror's history begins (${start})`}: the opening A/R is not known then; give --from ${start ?? 'after the first sync'} or later`,
    );
  const how = defaultTo
    ? `the last full month before ${formatDate(localDateOf(toMs, common.timezone))} (${common.timezone})`
    : [
        opts.from === undefined ? `from the start of the month the period ends in` : 'from --from',
        opts.to !== undefined ? 'to --to' : run.explicit ? 'to --as-of-time' : "to the run's instant",
      ].join(', ');
  return {
    from,
    to: iso(toMs),
    fromMs,
    toMs,
    shortened,
    unknown: null,
    note: shortened ?? `from ${from} to ${iso(toMs)}: ${how}`,
  };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * One end of the period in a file name: the date (`2026-10-01`) when it is the start of that
 * day in the zone, else the UTC instant to the second (`20261128T172233Z`, milliseconds after a
 * dot when there are any), so two periods of one day never share a name.
 */
export function fileEnd(ms: number, timezone: string): string {
  const day = localDateOf(ms, timezone);
  if (zonedToUtc(day, 0, 0, 0, 0, timezone) === ms) return formatDate(day);
  const text = iso(ms);
  const basic = text.slice(0, 19).replace(/[-:]/g, '');
  const millis = text.slice(20, 23);
  return `${basic}${millis === '000' ? '' : `.${millis}`}Z`;
}

/**
 * The period in the page's header: "from 2026-10-01 00:00 to 2026-11-01 00:00 (America/Chicago)"
 * when an end is the start of a day in the zone (shown as that day at 00:00), the other ends as
 * UTC instants to the second ("to 2026-11-28T17:22:33Z").
 */
export function periodWords(period: Pick<Period, 'fromMs' | 'toMs'>, timezone: string): string {
  const local = (ms: number) => {
    const day = localDateOf(ms, timezone);
    return zonedToUtc(day, 0, 0, 0, 0, timezone) === ms ? `${formatDate(day)} 00:00` : undefined;
  };
  const [from, to] = [local(period.fromMs), local(period.toMs)];
  const zone = from !== undefined || to !== undefined ? ` (${timezone})` : '';
  return `from ${from ?? formatInstant(period.fromMs)} to ${to ?? formatInstant(period.toMs)}${zone}`;
}
