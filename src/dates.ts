import { UsageError } from './errors.js';

/**
 * Dates of the reports: date-only values in one reporting time zone (docs/reports.md), instants in
 * UTC. The service's strings are kept as received in the mirror; they are read here: ISO 8601
 * (`YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.sss]][Z|±HH:MM]`) and US `MM/DD/YYYY [HH:MM[:SS]]`.
 * A timestamp without an offset is wall time in the reporting time zone.
 */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export { DAY, HOUR };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The spellings of UTC itself, whose wall clock is the Date's own UTC fields: no Intl formatter is
 * made for them. A process's first Intl.DateTimeFormat loads ICU's calendar data, about 35 ms of
 * CPU on Node 20, paid by every `ohs` command that reads a date in the default zone (UTC).
 */
const UTC_NAMES: ReadonlySet<string> = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);

/** True for a name of UTC itself (not an offset zone). */
export function isUtcName(timeZone: string): boolean {
  return UTC_NAMES.has(timeZone);
}

/** The wall-clock fields of an instant in a time zone. */
function wallClock(ms: number, timeZone: string): number[] {
  if (UTC_NAMES.has(timeZone)) {
    const d = new Date(ms);
    return [
      d.getUTCFullYear(),
      d.getUTCMonth() + 1,
      d.getUTCDate(),
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
    ];
  }
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return [
    parts.year ?? 0,
    parts.month ?? 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  ];
}

/** Offset of the zone from UTC at an instant, milliseconds (whole seconds). */
function offsetAt(ms: number, timeZone: string): number {
  const [y, mo, d, h, mi, s] = wallClock(ms, timeZone) as [number, number, number, number, number, number];
  const floored = Math.floor(ms / 1000) * 1000;
  return Date.UTC(y, mo - 1, d, h, mi, s) - floored;
}

/** The instant of a wall-clock time in a zone (the earlier one when a DST change repeats it). */
export function zonedToUtc(
  date: LocalDate,
  hour: number,
  minute: number,
  second: number,
  millis: number,
  timeZone: string,
): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day, hour, minute, second, millis);
  if (UTC_NAMES.has(timeZone)) return guess;
  const first = offsetAt(guess, timeZone);
  const t = guess - first;
  const second2 = offsetAt(t, timeZone);
  return second2 === first ? t : guess - second2;
}

/** The calendar date of an instant in a zone. */
export function localDateOf(ms: number, timeZone: string): LocalDate {
  const [year, month, day] = wallClock(ms, timeZone) as [number, number, number];
  return { year, month, day };
}

function validDate(year: number, month: number, day: number): LocalDate | null {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const ISO =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;
const US = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?$/;

interface Parsed {
  date: LocalDate;
  time: [number, number, number, number] | null;
  offsetMinutes: number | null;
}

function parse(text: string): Parsed | null {
  const s = text.trim();
  const iso = ISO.exec(s);
  if (iso !== null) {
    const date = validDate(Number(iso[1]), Number(iso[2]), Number(iso[3]));
    if (date === null) return null;
    if (iso[4] === undefined) return { date, time: null, offsetMinutes: null };
    const time: [number, number, number, number] = [
      Number(iso[4]),
      Number(iso[5]),
      Number(iso[6] ?? 0),
      Number((iso[7] ?? '0').padEnd(3, '0').slice(0, 3)),
    ];
    if (time[0] > 23 || time[1] > 59 || time[2] > 59) return null;
    const zone = iso[8];
    let offsetMinutes: number | null = null;
    if (zone !== undefined) {
      if (zone.toUpperCase() === 'Z') offsetMinutes = 0;
      else {
        const digits = zone.replace(':', '');
        const sign = digits.startsWith('-') ? -1 : 1;
        offsetMinutes = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
      }
    }
    return { date, time, offsetMinutes };
  }
  const us = US.exec(s);
  if (us !== null) {
    const date = validDate(Number(us[3]), Number(us[1]), Number(us[2]));
    if (date === null) return null;
    if (us[4] === undefined) return { date, time: null, offsetMinutes: null };
    const time: [number, number, number, number] = [Number(us[4]), Number(us[5]), Number(us[6] ?? 0), 0];
    if (time[0] > 23 || time[1] > 59 || time[2] > 59) return null;
    return { date, time, offsetMinutes: null };
  }
  return null;
}

/**
 * A date-only value in the reporting zone: a date as written, or the local date of a timestamp
 * (a timestamp with an offset is converted into the zone). Null when unreadable.
 */
export function parseDate(value: unknown, timeZone: string): LocalDate | null {
  if (typeof value !== 'string') return null;
  const p = parse(value);
  if (p === null) return null;
  if (p.time === null || p.offsetMinutes === null) return p.date;
  return localDateOf(instantOf(p, timeZone), timeZone);
}

function instantOf(p: Parsed, timeZone: string): number {
  const [h, mi, s, ms] = p.time ?? [0, 0, 0, 0];
  if (p.offsetMinutes === null) return zonedToUtc(p.date, h, mi, s, ms, timeZone);
  return Date.UTC(p.date.year, p.date.month - 1, p.date.day, h, mi, s, ms) - p.offsetMinutes * 60_000;
}

/** An instant (epoch milliseconds); a date alone is the start of that day in the zone. */
export function parseInstant(value: unknown, timeZone: string): number | null {
  if (typeof value !== 'string') return null;
  const p = parse(value);
  return p === null ? null : instantOf(p, timeZone);
}

/** `YYYY-MM-DD`. */
export function formatDate(d: LocalDate): string {
  return `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** ISO 8601 UTC to the second, `YYYY-MM-DDTHH:MM:SSZ`. */
export function formatInstant(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** The zone as a reader names it: UTC, else its IANA name (America/Chicago). */
export function zoneName(timeZone: string): string {
  return UTC_NAMES.has(timeZone) ? 'UTC' : timeZone;
}

/**
 * An instant as a person reads it: to the second, in `timeZone`, the zone named
 * ("2026-12-02 03:54:25 UTC", "2026-12-01 21:54:25 America/Chicago"); no milliseconds, no `T`.
 */
export function instantWords(ms: number, timeZone = 'UTC'): string {
  if (UTC_NAMES.has(timeZone)) {
    const iso = new Date(ms).toISOString();
    // Years 1000 to 9999, where the ISO text and Intl's agree.
    if (iso.length === 24 && iso[0] !== '0') return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
  }
  let f = wallClocks.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    wallClocks.set(timeZone, f);
  }
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(new Date(Math.floor(ms / 1000) * 1000))) p[part.type] = part.value;
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second} ${zoneName(timeZone)}`;
}

/** An ISO 8601 instant in text: a date, `T`, a time (seconds and fraction optional), its zone. */
const isoInstant = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})(?![\w.]|:\d)/g;

/** `text` with every ISO 8601 instant in it said as `instantWords` says it. */
export function instantsInWords(text: string, timeZone = 'UTC'): string {
  return text.replace(isoInstant, (iso) => {
    const ms = Date.parse(iso);
    return Number.isFinite(ms) ? instantWords(ms, timeZone) : iso;
  });
}

/** Days since 1970-01-01 of a calendar date: differences are calendar days, whatever the zone. */
export function dayNumber(d: LocalDate): number {
  return Math.round(Date.UTC(d.year, d.month - 1, d.day) / DAY);
}

/** A strict `YYYY-MM-DD` (the as-of date of the parameters). */
export function parseIsoDate(value: string): LocalDate | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m === null ? null : validDate(Number(m[1]), Number(m[2]), Number(m[3]));
}

// Dates given on the command line and of the jobs.

/** A calendar date YYYY-MM-DD that exists (2025-02-30 does not), given as `what` (a flag). */
export function parseDateFlag(value: string, what: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m === null ? Number.NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (m === null || Number.isNaN(d) || new Date(d).toISOString().slice(0, 10) !== value) {
    throw new UsageError(`${what}: '${value}' is not a date (expected YYYY-MM-DD)`);
  }
  return value;
}

/** Today's date in a time zone, YYYY-MM-DD. */
export function today(timezone: string): string {
  if (UTC_NAMES.has(timezone)) return new Date().toISOString().slice(0, 10);
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
}

// The as-of instant of a command or job.

/**
 * The as-of of a command or job, resolved once where it starts (its flags, its configuration,
 * the clock) and carried typed to every layer below, which never parses a date or an instant
 * again. The date is the date of the instant in the reporting zone, so one instant written with
 * any offset is one as-of.
 */
export interface AsOf {
  /**
   * How it was set: `instant` (`--as-of-time`), `date` (`--as-of`: the end of that day in the
   * zone), `now` (neither: the clock when the command started).
   */
  source: 'instant' | 'date' | 'now';
  /** The instant, epoch milliseconds (for `date`: midnight starting the next day in the zone). */
  ms: number;
  /** The instant, ISO 8601 UTC. */
  iso: string;
  /** The as-of date in the reporting zone. */
  date: LocalDate;
  /** The same, `YYYY-MM-DD`. */
  dateText: string;
  /** The end of the as-of date in the zone: midnight starting the next day, epoch milliseconds. */
  dayEndMs: number;
  /** The month of the as-of date (a report's through-month unless it is told another). */
  month: { year: number; month: number };
  /** The reporting time zone (IANA) the date is in. */
  timezone: string;
}

/** Midnight starting the day after `date` in the zone. */
function dayEnd(date: LocalDate, timezone: string): number {
  const next = new Date(Date.UTC(date.year, date.month - 1, date.day + 1));
  return zonedToUtc(
    { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() },
    0,
    0,
    0,
    0,
    timezone,
  );
}

function asOfOf(source: AsOf['source'], ms: number, date: LocalDate, timezone: string): AsOf {
  return {
    source,
    ms,
    iso: new Date(ms).toISOString(),
    date,
    dateText: formatDate(date),
    dayEndMs: dayEnd(date, timezone),
    month: { year: date.year, month: date.month },
    timezone,
  };
}

/** The as-of of a date (`--as-of`): the end of that day in the zone. */
export function asOfDate(date: LocalDate, timezone: string): AsOf {
  return asOfOf('date', dayEnd(date, timezone), date, timezone);
}

/** The as-of of an instant (`--as-of-time`, or the clock: `now`); its date in the zone. */
export function asOfInstant(ms: number, timezone: string, source: 'instant' | 'now' = 'instant'): AsOf {
  return asOfOf(source, ms, localDateOf(ms, timezone), timezone);
}

/**
 * The one grammar of an instant typed by a person (`--as-of-time`, `--from`, `--to`, `--since`, and
 * the same names under `--option` or config `reports.options`): ISO 8601, `YYYY-MM-DD` then `T` or a
 * space, `HH:MM`, optionally `:SS` and a fraction, optionally `Z` or an offset `±HH:MM` (at most
 * 14 hours); without an offset it is wall time in the reporting zone. A date alone is read where
 * the flag takes one (the start of that day in the zone). Nothing else: `06/01/2026` is June or
 * January depending on who wrote it, so it is refused, as every form not above.
 */
const INSTANT_FLAG =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** An instant as a person wrote it, read by the one grammar: resolved in a zone by `instantIn`. */
export interface WrittenInstant {
  /** As written (for messages and About sheets). */
  text: string;
  date: LocalDate;
  /** Hours, minutes, seconds, milliseconds; null: a date alone (the start of that day). */
  time: [number, number, number, number] | null;
  /** Minutes east of UTC; null: wall time in the reporting zone. */
  offsetMinutes: number | null;
}

/** What the instant grammar expects, in the one message every instant flag gives. */
export const INSTANT_WORDS =
  'expected an ISO 8601 instant such as 2025-06-10T02:00:00Z (or 2025-06-10T02:00 in the reporting zone)';

/**
 * `value` read by the instant grammar; null when it does not read. `dateAlone`: whether a date
 * with no time is taken (the start of that day) or refused.
 */
export function readInstant(value: string, dateAlone: boolean): WrittenInstant | null {
  const m = INSTANT_FLAG.exec(value);
  if (m === null) return null;
  const date = validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  if (date === null) return null;
  if (m[4] === undefined) return dateAlone ? { text: value, date, time: null, offsetMinutes: null } : null;
  const time: [number, number, number, number] = [
    Number(m[4]),
    Number(m[5]),
    Number(m[6] ?? 0),
    Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3)),
  ];
  if (time[0] > 23 || time[1] > 59 || time[2] > 59) return null;
  const zone = m[8];
  let offsetMinutes: number | null = null;
  if (zone === 'Z') offsetMinutes = 0;
  else if (zone !== undefined) {
    const hours = Number(zone.slice(1, 3));
    const minutes = Number(zone.slice(4, 6));
    if (hours > 14 || minutes > 59 || (hours === 14 && minutes > 0)) return null;
    offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
  }
  return { text: value, date, time, offsetMinutes };
}

/** The instant (epoch milliseconds) a written instant names in the reporting zone. */
export function instantIn(w: WrittenInstant, timeZone: string): number {
  return instantOf({ date: w.date, time: w.time, offsetMinutes: w.offsetMinutes }, timeZone);
}

/** An instant typed on a command line (the one grammar, a time required), in epoch milliseconds. */
export function parseInstantFlag(value: string, what: string, timezone: string): number {
  const w = readInstant(value, false);
  if (w === null) {
    if (readInstant(value, true) !== null)
      throw new UsageError(
        `${what} '${value}': ${INSTANT_WORDS}; a date alone is --as-of ${value} (the end of that day)`,
      );
    throw new UsageError(`${what} '${value}': ${INSTANT_WORDS}`);
  }
  return instantIn(w, timezone);
}

/**
 * The one grammar of a duration (`monitor.maxAge`, `ohs status --max-age`, `--since 7d`): a number
 * (a fraction allowed) and one unit, `s`, `m` (minutes), `h`, `d` or `w`; at most 10 years.
 */
const DURATION = /^(\d{1,6}(?:\.\d{1,3})?)([smhdw])$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: HOUR, d: DAY, w: 7 * DAY };
export const DURATION_WORDS = 'a duration such as 90m, 26h, 7d or 2w';

/** A duration in milliseconds, or null when the text is none (`DURATION`). */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text.trim());
  if (m === null) return null;
  const ms = Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return ms > 0 && ms <= 3653 * DAY ? Math.round(ms) : null;
}

/** A clock reading as the instant a run stands at: up to the whole second, so a name can say it. */
export function wholeSecondUp(ms: number): number {
  return Math.ceil(ms / 1000) * 1000;
}

/** The as-of of the clock now (a command or a job's reports): the instant up to the whole second. */
export function asOfNow(timezone: string, now: number = Date.now()): AsOf {
  return asOfInstant(wholeSecondUp(now), timezone, 'now');
}

/**
 * The as-of of a command from its flags: `--as-of-time` (an instant; its date in the zone),
 * `--as-of` (a date: the end of that day), both (they must name the same day in the zone), or
 * neither (`now`, the clock). A flag that does not read is a usage error naming it.
 */
export function resolveAsOf(
  flags: { date?: string | undefined; instant?: string | undefined },
  timezone: string,
  now: number = Date.now(),
): AsOf {
  const date = flags.date === undefined ? undefined : parseIsoDate(parseDateFlag(flags.date, '--as-of'));
  if (flags.instant === undefined)
    return date === undefined || date === null ? asOfNow(timezone, now) : asOfDate(date, timezone);
  const asOf = asOfInstant(parseInstantFlag(flags.instant, '--as-of-time', timezone), timezone);
  if (date != null && formatDate(date) !== asOf.dateText)
    throw new UsageError(
      `--as-of ${formatDate(date)} and --as-of-time '${flags.instant}' disagree: that instant is on ${asOf.dateText} in ${timezone}; give one of them`,
    );
  return asOf;
}

// The time of a report run.

/**
 * When a report run stands, decided once where the data its reports read is in (a command: its
 * start; a job: after its sync) and carried whole to every report: the date asked, the instant the
 * figures stand at, and the instant the mirror is read at. No report reads the clock or parses an
 * instant; each reads these.
 */
export interface ReportTime {
  /** The as-of asked (its date, zone, and how it was given). */
  asOf: AsOf;
  /**
   * The instant the figures stand at, epoch ms: ages are measured to it, and a period with no end
   * asked ends at it. `--as-of-time`: as given; a past as-of date: the last millisecond of that day
   * (the instant the mirror is read at); today: the run's instant; a later date: its end.
   */
  at: number;
  /** `at`, ISO 8601 UTC. */
  atIso: string;
  /**
   * The instant the mirror is read at (its history), ISO 8601 UTC; null: the mirror as it is
   * (every write in it made before the run's instant).
   */
  mirrorAt: string | null;
  /** The run's instant: the clock when the run began reading, up to the whole second. */
  run: number;
  /** The run's date in the zone, `YYYY-MM-DD` (a past as-of date is before it). */
  today: string;
  /** `--present`: the mirror as it is, whatever the as-of. */
  present: boolean;
  /** How `at` was chosen, in words (About sheets). */
  note: string;
}

/**
 * The time of a run asking `asOf`: `run` is the clock at the run's start (a job: after its sync);
 * with an as-of from the clock (`source` `now`) the run's instant is the as-of's own. `present`
 * (`--present`) reads the mirror as it is whatever the date.
 */
export function reportTime(asOf: AsOf, o: { run?: number; present?: boolean } = {}): ReportTime {
  const run = asOf.source === 'now' ? asOf.ms : wholeSecondUp(o.run ?? Date.now());
  const present = o.present === true;
  const today = formatDate(localDateOf(run, asOf.timezone));
  const of = (at: number, mirrorAt: number | null, note: string): ReportTime => ({
    asOf,
    at,
    atIso: new Date(at).toISOString(),
    mirrorAt: mirrorAt === null || present ? null : new Date(mirrorAt).toISOString(),
    run,
    today,
    present,
    note,
  });
  if (asOf.source === 'instant') return of(asOf.ms, asOf.ms, 'as given (--as-of-time)');
  if (asOf.dateText < today) {
    if (present) return of(asOf.dayEndMs, null, `the end of ${asOf.dateText} (${asOf.timezone})`);
    return of(
      asOf.dayEndMs - 1,
      asOf.dayEndMs - 1,
      `the end of ${asOf.dateText} (${asOf.timezone}), the instant the mirror is read as of`,
    );
  }
  if (asOf.dateText > today) return of(asOf.dayEndMs, null, `the end of ${asOf.dateText} (${asOf.timezone})`);
  return of(
    Math.min(run, asOf.dayEndMs),
    null,
    'the moment the report ran (the mirror as it was then); --as-of-time with this instant gives the same rows',
  );
}
