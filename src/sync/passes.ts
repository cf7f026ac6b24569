import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import {
  type CheckpointRow,
  displayBaseUrl,
  type MirrorWriter,
  metaKeys,
  type ResourceTableName,
  readMeta,
  seenState,
  type UpsertCounts,
} from '../mirror/index.js';
import type { ResourceName } from '../schema/index.js';
import { MassDeleteError, type StreamContext } from './types.js';

/**
 * Passes: a full pass (or an incremental re-poll, or an id re-read) notes every id it sees in
 * sync_pass_seen, page by page in the same transaction as the page's checkpoint, and stages the
 * records that changed (sync_pass_stage) instead of writing them. When every partition is done,
 * active rows it did not see are the ones that vanished: the mass-delete guard decides on them
 * before anything is written, then the staged records and the deletions are written in one
 * transaction. A tripped guard leaves the mirror as it was; a query pass is dropped (the next run
 * reads again), an id pass waits (its 404s are asked again by the next run). A pass killed midway is resumed by the next run: its notes add up.
 * Unchanged rows are never rewritten, so a pass that changes nothing adds little to the WAL (which
 * runSync checkpoints once, after its streams).
 */
export interface PassState {
  passId: string;
  mode: 'full' | 'reopen';
  parts: CheckpointRow[];
}

export const nowIso = () => new Date().toISOString();

export async function pendingPass(ctx: StreamContext, stream: string): Promise<PassState | undefined> {
  const state = await ctx.mirror.db
    .selectFrom('sync_stream_state')
    .select(['pass_id'])
    .where('stream', '=', stream)
    .executeTakeFirst();
  if (state?.pass_id == null) return undefined;
  const parts = await ctx.mirror.db
    .selectFrom('sync_checkpoint')
    .selectAll()
    .where('stream', '=', stream)
    .where('pass_id', '=', state.pass_id)
    .orderBy('part')
    .execute();
  if (parts.length === 0) return undefined;
  return {
    passId: state.pass_id,
    mode: parts[0]?.mode === 'reopen' ? 'reopen' : 'full',
    parts: parts.map(({ updated_at: _u, ...p }) => p),
  };
}

/**
 * Starts a pass: its id, its partitions' checkpoints and a clean id set, in one transaction, so a
 * crash leaves either no pass or a whole one (never a pass without its id list).
 */
export async function startPass(
  ctx: StreamContext,
  stream: string,
  mode: PassState['mode'],
  bounds: { cursor: string | null; upper: string | null }[],
  fill?: (w: MirrorWriter) => Promise<void>,
): Promise<PassState> {
  const passId = `${mode}-${randomUUID()}`;
  const parts: CheckpointRow[] = bounds.map((b, part) => ({
    stream,
    part,
    pass_id: passId,
    mode,
    ...b,
    done: 0,
  }));
  const now = nowIso();
  await ctx.mirror.write(async (w) => {
    await w.clearPassIds(stream);
    await w.setPass(stream, passId, now);
    for (const p of parts) await w.saveCheckpoint(p, now);
    await fill?.(w);
  });
  return { passId, mode, parts };
}

/** Adds a page's write counts to the stream's stats. */
export function countPage(ctx: StreamContext, counts: UpsertCounts, records: number): void {
  ctx.stats.pages++;
  ctx.stats.records += records;
  ctx.stats.inserted += counts.inserted;
  ctx.stats.updated += counts.updated;
  ctx.stats.unchanged += counts.unchanged;
}

export interface StagePageOptions {
  /** More writes of the same transaction (the page's checkpoint, ids gone or unreadable). */
  also?: (w: MirrorWriter) => Promise<void>;
  /** Record the status of the records written at once (a bulk load of order items). */
  statusHistory?: boolean;
  /**
   * Write nothing when this is aborted by the time the page's transaction starts: the page waited
   * for the connection while a sibling partition failed, and no page is written after that.
   */
  unless?: AbortSignal;
}

/** One page of a pass: ids noted, changed records staged, `also` in the same transaction. */
export async function stagePage(
  ctx: StreamContext,
  stream: string,
  resource: ResourceName,
  records: readonly Record<string, unknown>[],
  options: StagePageOptions = {},
): Promise<void> {
  const now = nowIso();
  const counts = await ctx.mirror.write(async (w) => {
    if (options.unless?.aborted) return undefined;
    const c = await w.stagePage(resource, stream, records, now, {
      statusHistory: options.statusHistory === true,
    });
    await options.also?.(w);
    return c;
  });
  if (counts !== undefined) countPage(ctx, counts, records.length);
}

/**
 * Ids of the table's active rows (those where `column` = `value`, when given) that the stream's
 * pass did not see, in id order: found by the database (NOT EXISTS on sync_pass_seen, by its
 * primary key), so memory is the rows gone, not the table. Reading every id of the table and
 * every seen id into memory was 100 MB at 20× the sandbox's size (600,000 order items).
 */
export async function unseenIds(
  ctx: StreamContext,
  stream: string,
  table: ResourceTableName,
  only?: { column: string; value: number },
): Promise<(number | string)[]> {
  const id = sql.ref(`${table}.id`);
  let query = ctx.mirror.db
    .selectFrom(table)
    .select('id')
    .where('deleted_at', 'is', null)
    .where(
      sql<boolean>`NOT EXISTS (SELECT 1 FROM sync_pass_seen s WHERE s.stream = ${stream} AND s.id = CAST(${id} AS TEXT) AND s.state = ${seenState.seen})`,
    );
  if (only !== undefined) query = query.where(sql.ref(only.column), '=', only.value);
  const rows = await query.orderBy('id').execute();
  return rows.map((r) => r.id as number | string);
}

/** One id the stream's pass saw, if any. */
export async function oneSeenId(ctx: StreamContext, stream: string): Promise<string | undefined> {
  const row = await ctx.mirror.db
    .selectFrom('sync_pass_seen')
    .select('id')
    .where('stream', '=', stream)
    .where('state', '=', seenState.seen)
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** Active (not soft-deleted) rows of a table. */
export async function activeCount(ctx: StreamContext, table: ResourceTableName): Promise<number> {
  const row = await ctx.mirror.db
    .selectFrom(table)
    .select(sql<number>`count(*)`.as('n'))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * The mass-delete guard: a pass may soft-delete at most `massDeleteShare` of a table's rows
 * (more than `massDeleteMinRows`), and never every row of a table that has some, however small,
 * unless --allow-mass-delete is given. The message says what to check first (the base URL, a
 * recent failed run, the token's rights) and the safe way out, which re-reads instead of deleting.
 */
export async function guardDeletions(
  ctx: StreamContext,
  table: ResourceTableName,
  count: number,
): Promise<void> {
  if (count === 0 || ctx.options.allowMassDelete) return;
  const active = await activeCount(ctx, table);
  const share = active === 0 ? 0 : count / active;
  const overShare = count > ctx.options.massDeleteMinRows && share > ctx.options.massDeleteShare;
  const everything = active > 0 && count >= active;
  if (!overShare && !everything) return;
  const source = await readMeta(ctx.mirror.db, metaKeys.sourceBaseUrl);
  const now = displayBaseUrl(ctx.client.baseUrl);
  const url =
    source !== undefined && source !== now
      ? `the mirror was filled from ${source} but this run reads ${now}: is this the mirror of another service, or of the demo?`
      : `this run read ${now}`;
  const limit = everything
    ? 'every row of the table'
    : `${(share * 100).toFixed(1)}% > ${(ctx.options.massDeleteShare * 100).toFixed(1)}%`;
  throw new MassDeleteError(
    `${table}: this pass would soft-delete ${count} of ${active} rows (${limit}); nothing was written; check first: the base URL (${url}), a recent failed run (ohs status), the token's rights; to re-read instead of deleting: ohs sync --full --restart-passes; only if the service really lost them: rerun with --allow-mass-delete`,
  );
}

/**
 * The deletions a pass may commit: none once another stream of this run has failed, or the run
 * was interrupted (a failed or interrupted run commits no deletions after that); the rows stay,
 * and the next complete pass decides.
 */
export function allowedDeletions<T>(ctx: StreamContext, gone: readonly T[]): T[] {
  if (gone.length === 0 || !(ctx.evidence.failed || ctx.signal.aborted)) return [...gone];
  ctx.logger.warn(
    { withheld: gone.length },
    ctx.signal.aborted
      ? 'deletions withheld: the run was interrupted; the next complete pass decides on them'
      : 'deletions withheld: another stream of this run failed; the next complete pass decides on them',
  );
  return [];
}

/**
 * Records the restoration of soft-deleted rows about to be written again (`ids`: those the write
 * brings; `staged`: those the stream's pass staged), on their deletions' audit rows, in the
 * transaction that writes them (the writers clear deleted_at). Returns how many.
 */
export async function recordRestorations(
  w: MirrorWriter,
  ctx: StreamContext,
  target: { stream: string; table: ResourceTableName },
  ids: ReadonlySet<string> | 'staged',
  now: string,
): Promise<number> {
  const deleted = await w.db
    .selectFrom(target.table)
    .select('id')
    .where('deleted_at', 'is not', null)
    .execute();
  if (deleted.length === 0) return 0;
  const bringing =
    ids === 'staged'
      ? new Set(
          (
            await w.db
              .selectFrom('sync_pass_stage')
              .select('id')
              .where('stream', '=', target.stream)
              .execute()
          ).map((r) => r.id),
        )
      : ids;
  const back = deleted.map((r) => String(r.id)).filter((id) => bringing.has(id));
  for (let i = 0; i < back.length; i += 500) {
    await w.db
      .updateTable('sync_deletion')
      .set({ restored_at: now, restored_run_id: ctx.runId })
      .where('table_name', '=', target.table)
      .where('row_id', 'in', back.slice(i, i + 500))
      .where('restored_at', 'is', null)
      .execute();
  }
  if (back.length > 0) {
    ctx.stats.restored += back.length;
    ctx.logger.info({ restored: back.length }, 'soft-deleted rows seen again: restored');
  }
  return back.length;
}

/**
 * Ends a pass: guard first (nothing written when it trips), then the staged records (soft-deleted
 * ones seen again restored, and recorded), the soft-deletions (each audited) and the pass's end in
 * one transaction, with the status history of every record written when `statusHistory`. A pass
 * that could not read some ids is no evidence of deletions: `complete: false` writes what it read
 * and deletes nothing; nor does a pass whose run has already failed (allowedDeletions).
 */
export async function finishPass(
  ctx: StreamContext,
  target: { stream: string; resource: ResourceName; table: ResourceTableName },
  candidates: readonly (number | string)[],
  opts: { completed: 'full' | 'other'; statusHistory?: boolean; dropWhenGuarded?: boolean },
): Promise<void> {
  const gone = allowedDeletions(ctx, candidates);
  try {
    await guardDeletions(ctx, target.table, gone.length);
  } catch (err) {
    // A tripped guard drops a query pass: the rows it did not see are no evidence for a later run,
    // which starts a pass of its own and reads again (a service back to normal, a token given its
    // rights back: no MASS_DELETE inherited from this run). An id pass stays: its next run asks
    // its 404s again before they count (id-runner.ts confirmGone).
    if (opts.dropWhenGuarded !== true) throw err;
    await ctx.mirror.write(async (w) => {
      await w.clearPassIds(target.stream);
      await w.setPass(target.stream, null, nowIso());
    });
    throw err;
  }
  const completed = gone.length < candidates.length ? 'other' : opts.completed;
  const now = nowIso();
  await ctx.mirror.write(async (w) => {
    await recordRestorations(w, ctx, target, 'staged', now);
    await w.applyPass(target.resource, target.stream, now, { statusHistory: opts.statusHistory === true });
    ctx.stats.deleted += await w.softDelete(target.resource, gone, {
      runId: ctx.runId,
      stream: target.stream,
      now,
    });
    await w.setPass(target.stream, null, now, completed);
  });
}
