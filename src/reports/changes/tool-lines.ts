import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import { lastStreamRuns } from '../core/sync-info.js';
import { listSome } from '../core/values.js';
import type { Change, Severity } from './line.js';

/**
 * The mirror and the tool in the period (since, to]: records the sync found deleted or restored
 * (sync_deletion), stream runs that did not complete (sync_stream_run), and write-backs applied,
 * held or failed (the outbox: each item in the state it had at the period's end, entered in the
 * period; applied payments are the invoices' own lines, paid by this tool, never counted twice). One line per table, stream or
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
  const outbox = await outboxAtEnd(db, since, to);
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

/**
 * The outbox items that entered, in the period (since, to], the state they were in at its end:
 * an item last changed by the end is in its present state then; one changed after it, in the
 * last state its events (`outbox_event`) record by the end. So an item held in the period and
 * released or abandoned after it is still held at the end, and a past period reads the same when
 * asked again. An item of a mirror older than the events is read by its last change, as before.
 */
async function outboxAtEnd(
  db: Kysely<Database>,
  since: string,
  to: string,
): Promise<{ id: number; op: string; state: string }[]> {
  const items = await db
    .selectFrom('outbox')
    .select(['id', 'op', 'state', 'updated_at'])
    .where('updated_at', '>', since)
    .orderBy('op')
    .orderBy('id')
    .execute();
  if (items.length === 0) return [];
  const events = await db
    .selectFrom('outbox_event')
    .select(['outbox_id', 'state', 'at'])
    .where('at', '>', since)
    .where('at', '<=', to)
    .orderBy('at')
    .orderBy('id')
    .execute();
  // The last event of each item in the period, and the last one entering each state.
  const last = new Map<number, { state: string; at: string }>();
  const entered = new Map<string, string>();
  for (const e of events) {
    last.set(e.outbox_id, e);
    entered.set(`${e.outbox_id}\u0000${e.state}`, e.at);
  }
  const out: { id: number; op: string; state: string }[] = [];
  for (const i of items) {
    if (i.updated_at <= to) {
      // In its present state at the end: counted when it entered it in the period (its event;
      // an item with none, of an older mirror, by its last change).
      const at = entered.get(`${i.id}\u0000${i.state}`) ?? (last.has(i.id) ? null : i.updated_at);
      if (at !== null && at > since) out.push({ id: i.id, op: i.op, state: i.state });
      continue;
    }
    const e = last.get(i.id);
    if (e !== undefined) out.push({ id: i.id, op: i.op, state: e.state });
  }
  return out;
}
