import { UsageError } from './errors.js';

/** Dates of the reporting time zone, shared by the report command and the jobs. */
/** A calendar date YYYY-MM-DD that exists (2025-02-30 does not). */
export function parseDate(value: string, what: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m === null ? Number.NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (m === null || Number.isNaN(d) || new Date(d).toISOString().slice(0, 10) !== value) {
    throw new UsageError(`${what}: '${value}' is not a date (expected YYYY-MM-DD)`);
  }
  return value;
}

/** Today's date in a time zone, YYYY-MM-DD. */
export function today(timezone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
}

/** The last instant of a date in a time zone, as ISO 8601 UTC. */
export function endOfDay(date: string, timezone: string): string {
  // Find the UTC offset of the zone at that date's noon, then take 23:59:59.999 local.
  const noon = new Date(`${date}T12:00:00Z`);
  const local = new Date(noon.toLocaleString('en-US', { timeZone: timezone }));
  const utc = new Date(noon.toLocaleString('en-US', { timeZone: 'UTC' }));
  const offsetMs = local.getTime() - utc.getTime();
  return new Date(Date.parse(`${date}T23:59:59.999Z`) - offsetMs).toISOString();
}
