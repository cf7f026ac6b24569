import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { CheckpointRow, ResourceTableName } from '../mirror/index.js';
import type { ResourceName } from '../schema/index.js';
import { MassDeleteError, type StreamContext } from './types.js';

/**
 * Passes: a full pass (or an incremental re-poll) marks every row it sees with its pass id,
 * page by page in the same transaction as the page's checkpoint. When every partition is done,
 * rows not marked are the ones that vanished. A pass killed midway is resumed by the next run,
 * so its marks add up and deletions are still detected right.
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

export function startPass(
  ctx: StreamContext,
  stream: string,
  mode: PassState['mode'],
  bounds: { cursor: string | null; upper: string | null }[],
): PassState {
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
  ctx.mirror.adapter.transaction(() => {
    ctx.mirror.adapter.setPass(stream, passId, now);
    for (const p of parts) ctx.mirror.adapter.saveCheckpoint(p, now);
  });
  return { passId, mode, parts };
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
 * (more than `massDeleteMinRows`) unless --allow-mass-delete is given.
 */
export async function guardDeletions(
  ctx: StreamContext,
  table: ResourceTableName,
  count: number,
): Promise<void> {
  if (count === 0 || ctx.options.allowMassDelete) return;
  const active = await activeCount(ctx, table);
  const share = active === 0 ? 0 : count / active;
  if (count > ctx.options.massDeleteMinRows && share > ctx.options.massDeleteShare) {
    throw new MassDeleteError(
      `${table}: this pass would soft-delete ${count} of ${active} rows (${(share * 100).toFixed(1)}% > ${(ctx.options.massDeleteShare * 100).toFixed(1)}%); if the service really lost them, rerun with --allow-mass-delete`,
    );
  }
}

/** Soft-deletes ids (each audited) and closes the pass, in one transaction. */
export function closePass(
  ctx: StreamContext,
  stream: string,
  resource: ResourceName,
  ids: readonly (number | string)[],
  completed: 'full' | 'other',
): void {
  const now = nowIso();
  ctx.mirror.adapter.transaction(() => {
    ctx.stats.deleted += ctx.mirror.adapter.softDelete(resource, ids, { runId: ctx.runId, stream, now });
    ctx.mirror.adapter.setPass(stream, null, now, completed);
  });
}
