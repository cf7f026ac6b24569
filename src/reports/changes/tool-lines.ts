import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import { lastStreamRuns } from '../core/sync-info.js';
import { listSome } from '../core/values.js';
import type { Change, Severity } from './line.js';

/**
 * The mirror and the tool in the period (since, to]: records the sync found deleted or restored
 * (sync_deletion), stream runs that did not complete (sync_stream_run), and write-backs applied,
 * held or failed (the outbox, by the instant of their last change; applied payments are the
 * invoices' own lines, paid by this tool, never counted twice). One line per table, stream or
 * state, with the ids: a purge of thousands of records is one line, not thousands.
 */
export async function toolChanges(db: Kysely<Database>, since: string, to: string): Promise<Change[]> {
  const out: Change[] = [];
  const line = (
    severity: Severity,
    kind: string,
    subject: string,
    ids: string[],
    after: string,
    where: string,
  ): Change => ({
    severity,
    area: 'mirror',
    kind,
    orgId: null,
    org: null,
    subject,
    before: null,
    after,
    evidenceBefore: null,
    evidenceAfter: `${where}: ${listSome(ids, 10)}`,
    count: ids.length,
  });
  const deleted = await db
    .selectFrom('sync_deletion')
    .select(['table_name', 'row_id', 'deleted_at', 'restored_at'])
    .where((eb) =>
      eb.or([
        eb.and([eb('deleted_at', '>', since), eb('deleted_at', '<=', to)]),
        eb.and([eb('restored_at', '>', since), eb('restored_at', '<=', to)]),
      ]),
    )
    .orderBy('table_name')
    .orderBy('id')
    .execute();
  const inPeriod = (t: string | null) => t !== null && t > since && t <= to;
  for (const table of [...new Set(deleted.map((d) => d.table_name))]) {
    const of = deleted.filter((d) => d.table_name === table);
    const gone = of.filter((d) => inPeriod(d.deleted_at)).map((d) => d.row_id);
    const back = of.filter((d) => inPeriod(d.restored_at)).map((d) => d.row_id);
    if (gone.length > 0)
      out.push(
        line(
          'changed',
          'RECORDS_DELETED',
          table,
          gone,
          `${gone.length} found deleted`,
          `sync_deletion · ${table} · row_id`,
        ),
      );
    if (back.length > 0)
      out.push(
        line(
          'changed',
          'RECORDS_RESTORED',
          table,
          back,
          `${back.length} seen again`,
          `sync_deletion · ${table} · row_id`,
        ),
      );
  }
  const streams = await db
    .selectFrom('sync_stream_run')
    .select(['id', 'stream', 'outcome'])
    .where('started_at', '>', since)
    .where('started_at', '<=', to)
    .where('outcome', 'not in', ['ok', 'running'])
    .orderBy('stream')
    .orderBy('id')
    .execute();
  // A stream is incomplete at the period's end when its last run by then did not complete (the
  // state `ohs status` and the dashboard's freshness read): one interrupted and then completed is not.
  const last = await lastStreamRuns(db, to);
  for (const stream of [...new Set(streams.map((s) => s.stream))]) {
    const outcome = last.get(stream)?.outcome;
    if (outcome === 'ok' || outcome === 'running') continue;
    const runs = streams.filter((s) => s.stream === stream);
    const outcomes = [...new Set(runs.map((r) => r.outcome))].join(', ');
    out.push(
      line(
        'tool',
        'STREAM_INCOMPLETE',
        stream,
        runs.map((r) => String(r.id)),
        `${runs.length} run${runs.length === 1 ? '' : 's'} not complete (${outcomes})`,
        'sync_stream_run · id',
      ),
    );
  }
  const outbox = await db
    .selectFrom('outbox')
    .select(['id', 'op', 'state'])
    .where('state', 'in', ['applied', 'held', 'failed'])
    .where('updated_at', '>', since)
    .where('updated_at', '<=', to)
    .orderBy('op')
    .orderBy('id')
    .execute();
  const said: Record<string, [Severity, string]> = {
    failed: ['tool', 'WRITEBACK_FAILED'],
    held: ['tool', 'WRITEBACK_HELD'],
    applied: ['better', 'WRITEBACK_APPLIED'],
  };
  for (const state of ['failed', 'held', 'applied'] as const)
    for (const op of [...new Set(outbox.filter((o) => o.state === state).map((o) => o.op))]) {
      // An applied payment is its invoice's line (paid by this tool): counted once, there.
      if (state === 'applied' && op === 'payment') continue;
      const ids = outbox.filter((o) => o.state === state && o.op === op).map((o) => String(o.id));
      const [severity, kind] = said[state] as [Severity, string];
      out.push(line(severity, kind, op, ids, `${ids.length} ${state}`, 'outbox · id'));
    }
  return out;
}
