import type { Kysely } from 'kysely';
import { instantIn } from '../../dates.js';
import { AsOfBeforeHistoryError, type Database, historyStart } from '../../mirror/index.js';
import { ReportParamError } from '../core/errors.js';
import type { ReportInput } from '../core/types.js';
import type { ChangesOptions } from './options.js';

const REPORT = 'changes';

/** The period the report covers: from `since` to `to` (ISO 8601 UTC), and how it was chosen. */
export interface ChangesPeriod {
  since: string;
  to: string;
  sinceMs: number;
  toMs: number;
  /** How `since` was chosen, for the About sheet and the headline ("since the last run"). */
  how: 'since' | 'last-nightly' | 'history-start';
  /** The period in words for the About sheet. */
  note: string;
  /** Why there is no period to compare (a mirror with no history yet); null otherwise. */
  unknown: string | null;
}

/**
 * The end of the last nightly job that ended well before `before` (the present run, still
 * `running`, is not one): the mirror as its reports read it, so "since the last run" compares
 * with what that run's reports said. The job ledger (job_run) holds it; no other store is needed.
 */
async function lastNightly(db: Kysely<Database>, before: string): Promise<string | null> {
  const row = await db
    .selectFrom('job_run')
    .select((eb) => eb.fn.max('ended_at').as('at'))
    .where('job', '=', 'nightly')
    .where('outcome', '=', 'ok')
    .where('ended_at', '<=', before)
    .executeTakeFirst();
  return (row?.at as string | null | undefined) ?? null;
}

/**
 * The period of the report: `--since` (an instant or a duration back from the run's instant),
 * else the end of the last successful nightly job, else (no such job yet) the start of the
 * mirror's history, said so. Refused: an unreadable `--since`, one after the run's instant, and
 * (AS_OF_BEFORE_HISTORY) one before the history begins. A mirror with no history at all and no
 * `--since`: a report saying so (`unknown`), not a failure of the run's other reports.
 */
export async function periodOf(input: ReportInput<ChangesOptions>): Promise<ChangesPeriod> {
  const { db, opts, common, params } = input;
  const { time } = params;
  // The run's instant (dates.ts ReportTime, decided once for the run, a job's after its sync):
  // the instant the base reports stand at, so the period's end is theirs.
  const toMs = time.at;
  if (time.mirrorAt === null && time.asOf.dateText !== time.today) {
    // `--present` with another day's as-of: the present mirror aged to that day is no instant of
    // the mirror's history, so there is no start to compare it with.
    const note = `not known: the present mirror aged to ${time.asOf.dateText} (--present) is no instant of the mirror's history; give --as-of-time, or no as-of, to compare two instants`;
    const to = iso(toMs);
    return { since: to, to, sinceMs: toMs, toMs, how: 'since', note, unknown: note };
  }
  const start = await historyStart(db);
  const to = iso(toMs);
  let sinceMs: number;
  let how: ChangesPeriod['how'];
  if (opts.since !== undefined) {
    sinceMs =
      opts.since.kind === 'duration' ? toMs - opts.since.ms : instantIn(opts.since.instant, common.timezone);
    how = 'since';
  } else {
    const last = await lastNightly(db, to);
    if (last === null && start === null) {
      const note =
        'not known: the mirror has no history yet (no complete sync since it began keeping one); run ohs sync';
      return { since: to, to, sinceMs: toMs, toMs, how: 'history-start', note, unknown: note };
    }
    if (last !== null && (start === null || last >= start)) {
      sinceMs = Date.parse(last);
      how = 'last-nightly';
    } else {
      // From the history's start to the second, unless that second is the run's own.
      const began = Date.parse(start as string);
      sinceMs = Math.max(began, Math.min(Math.ceil(began / 1000) * 1000, toMs));
      how = 'history-start';
    }
  }
  const since = iso(sinceMs);
  if (start === null || since < start)
    throw new AsOfBeforeHistoryError(
      `changes: --since ${since} is ${start === null ? 'given, and the mirror has no history yet (no complete sync since it began keeping one)' : `before the mirror's history begins (${start})`}: the reports as of then are not known; give --since ${start ?? 'after the first sync'} or later`,
    );
  if (sinceMs > toMs)
    throw new ReportParamError(
      REPORT,
      'options.since',
      `the period's start ${since} is after its end ${to} (the run's instant)`,
    );
  const said = {
    since: opts.since?.kind === 'duration' ? `--since ${opts.since.text}` : '--since',
    'last-nightly': 'the end of the last successful nightly job',
    'history-start': "the start of the mirror's history (no successful nightly job before this run)",
  }[how];
  return {
    since,
    to,
    sinceMs,
    toMs,
    how,
    note: `from ${since} (${said}) to ${to} (the run's instant)`,
    unknown: null,
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
