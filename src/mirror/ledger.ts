import type { Generated, Insertable, Kysely, Updateable } from 'kysely';
import { describeError, isOhsError } from '../errors.js';
import type { Database } from './db-types.js';

/**
 * The run ledger: every job, sync and stream of a sync is a row written `running` when it starts
 * and given its outcome, error code and error when it ends (`ohs status`, `status --check`, the
 * monitoring textfile and markDeadRuns read them). One writer for the three tables, so the rule
 * for what a failure records is written once.
 */
export type LedgerTable = 'job_run' | 'sync_run' | 'sync_stream_run';

export type RunOutcome = 'ok' | 'failed' | 'interrupted';
/**
 * What a row may record: a run's outcome, or `incomplete` for a stream that ended well but
 * stopped at a bound (its error column then says what was left unread and what to do).
 */
export type RecordedOutcome = RunOutcome | 'incomplete';

/** The columns the ledger writes itself; the others are the caller's. */
type LedgerColumns = 'id' | 'outcome' | 'ended_at' | 'error' | 'error_code';
export type RunStart<T extends LedgerTable> = Omit<Insertable<Database[T]>, LedgerColumns>;
export type RunEnd<T extends LedgerTable> = Omit<Updateable<Database[T]>, LedgerColumns>;

/** How a run ended: `ok`, or the error it stopped on. */
export interface Settled<R> {
  outcome: RunOutcome;
  result?: R;
  error?: Error;
}

/** The error code a run records: the OhsError's code, else INTERNAL (a bug, not bad input). */
export function errorCode(error: unknown): string {
  return isOhsError(error) ? error.code : 'INTERNAL';
}

/**
 * Runs `body` and says how it ended, never throwing: what it throws is the run's error, and an
 * InterruptedError (code INTERRUPTED: SIGINT/SIGTERM, stopped after checkpointing) makes the run
 * `interrupted` rather than `failed`.
 */
export async function settle<R>(body: () => Promise<R>): Promise<Settled<R>> {
  try {
    return { outcome: 'ok', result: await body() };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { outcome: isOhsError(err) && err.code === 'INTERRUPTED' ? 'interrupted' : 'failed', error };
  }
}

/** The stream table has no error_code column: its error text starts with the code instead. */
const hasCodeColumn: Record<LedgerTable, boolean> = { job_run: true, sync_run: true, sync_stream_run: false };

/** A view of the ledger tables by their shared columns (Kysely cannot type a generic table name). */
type LedgerDb = Kysely<Record<LedgerTable, { id: Generated<number> } & Record<string, unknown>>>;

/** Inserts the run's row as `running`; returns its id. */
export async function startRun<T extends LedgerTable>(
  db: Kysely<Database>,
  table: T,
  values: RunStart<T>,
): Promise<number> {
  const row = {
    ...values,
    ended_at: null,
    outcome: 'running',
    error: null,
    ...(hasCodeColumn[table] ? { error_code: null } : {}),
  };
  const { id } = await (db as unknown as LedgerDb)
    .insertInto(table as LedgerTable)
    .values(row)
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Writes the run's end: its outcome, error code and error, and the caller's own columns. */
export async function endRun<T extends LedgerTable>(
  db: Kysely<Database>,
  table: T,
  id: number,
  end: { outcome: RecordedOutcome; error?: Error | undefined; note?: string },
  values?: RunEnd<T>,
): Promise<void> {
  const { error } = end;
  const code = error === undefined ? null : errorCode(error);
  const described = error === undefined ? (end.note ?? null) : describeError(error);
  const errorColumns = hasCodeColumn[table]
    ? { error_code: code, error: described }
    : { error: error === undefined ? described : `${isOhsError(error) ? `${code}: ` : ''}${described}` };
  await (db as unknown as LedgerDb)
    .updateTable(table as LedgerTable)
    .set({ ...values, ended_at: new Date().toISOString(), outcome: end.outcome, ...errorColumns })
    .where('id', '=', id)
    .execute();
}
