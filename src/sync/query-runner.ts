import { sql } from 'kysely';
import type { CheckpointRow, ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { type FieldOf, type FilterItem, where } from '../schema/index.js';
import { closePass, guardDeletions, nowIso, type PassState, pendingPass, startPass } from './passes.js';
import { InterruptedError, type QueryStreamDecl, type StreamContext } from './types.js';

type QR = QueryStreamDecl['resource'];

/**
 * Query streams (HsVendor, OrderItem, Tenant, Role): keyset pages of `id greaterThan <last>`
 * sorted by id, each page upserted with its checkpoint in one transaction.
 * - full: a pass over the whole id range, split in partitions fetched at once; rows it did not
 *   see are soft-deleted once every partition is done (mass-delete guard applies).
 * - incremental ('open-rows'): rows above the highest id we hold, then a re-poll of the rows that
 *   can still change; a row that left the re-poll is looked up by id, and soft-deleted if gone.
 * A pass left unfinished by a killed run is resumed first, whatever the mode asked.
 */
export async function runQueryStream(decl: QueryStreamDecl, ctx: StreamContext): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  const pending = await pendingPass(ctx, decl.name);
  if (pending !== undefined) {
    ctx.logger.info({ stream: decl.name, pass: pending.mode }, 'resuming an unfinished pass');
    ctx.stats.mode = pending.mode === 'full' ? 'full' : 'incremental';
    await runPass(decl, ctx, pending);
    // A resumed full pass is the full pass a --full run asks for. Otherwise it only finished an
    // earlier run's work: rows it passed before that run stopped may have changed or gone since,
    // so this run's own work follows (re-poll, id sweep; or a new pass of a small table).
    if (pending.mode === 'full' && ctx.options.full) return;
  }
  const empty = (await maxId(ctx, table)) === undefined;
  if (ctx.options.full || decl.incremental === 'full' || empty) {
    ctx.stats.mode = 'full';
    const pass = startPass(ctx, decl.name, 'full', await fullBounds(decl, ctx));
    await ctx.mirror.adapter.bulkLoad(decl.resource, () => runPass(decl, ctx, pass));
    return;
  }
  ctx.stats.mode = 'incremental';
  await fetchNew(decl, ctx, table);
  if (decl.reopen !== undefined) {
    await runPass(decl, ctx, startPass(ctx, decl.name, 'reopen', [{ cursor: null, upper: null }]));
  }
  await sweepDeletions(decl, ctx, table);
}

/**
 * An incremental run's deletion check for rows that can no longer change (the re-poll does not
 * see them): a scan of ids only, light next to a full pass. Rows the mirror holds that the sweep
 * did not see are soft-deleted, under the same guard. Not resumable on purpose: it is cheap to
 * start over.
 */
async function sweepDeletions(
  decl: QueryStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
): Promise<void> {
  const seen = new Set<number>();
  for await (const page of ctx.client.scan(decl.resource as QR, { fields: ['id'] })) {
    for (const r of page.records) seen.add(r.id as number);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
  const active = await ctx.mirror.db.selectFrom(table).select('id').where('deleted_at', 'is', null).execute();
  const gone = active.map((r) => r.id as number).filter((id) => !seen.has(id));
  await guardDeletions(ctx, table, gone.length);
  if (gone.length === 0) return;
  const now = nowIso();
  ctx.mirror.adapter.transaction(() => {
    ctx.stats.deleted += ctx.mirror.adapter.softDelete(decl.resource, gone, {
      runId: ctx.runId,
      stream: decl.name,
      now,
    });
  });
  ctx.logger.info({ deleted: gone.length }, 'soft-deleted rows gone upstream (id sweep)');
}

async function maxId(ctx: StreamContext, table: ResourceTableName): Promise<number | undefined> {
  const row = await ctx.mirror.db
    .selectFrom(table)
    .select(sql<number | null>`max(id)`.as('max'))
    .executeTakeFirst();
  return row?.max == null ? undefined : Number(row.max);
}

/** Id-range partitions of a full pass: the last one is open-ended, so rows inserted meanwhile count. */
async function fullBounds(
  decl: QueryStreamDecl,
  ctx: StreamContext,
): Promise<{ cursor: string | null; upper: string | null }[]> {
  const edge = async (dir: 'asc' | 'desc') => {
    const page = await ctx.client.query(decl.resource as QR, {
      sortBy: 'id',
      sortDirection: dir,
      pageSize: 1,
      return: ['id'],
    });
    const id = page.records[0]?.id;
    return typeof id === 'number' ? id : undefined;
  };
  const min = await edge('asc');
  const max = await edge('desc');
  const n = Math.max(1, decl.resource === 'OrderItem' ? ctx.options.partitions : decl.partitions);
  if (min === undefined || max === undefined || n === 1 || max - min < n * 10)
    return [{ cursor: null, upper: null }];
  const step = Math.ceil((max - min + 1) / n);
  return Array.from({ length: n }, (_, i) => ({
    cursor: i === 0 ? null : String(min - 1 + i * step),
    upper: i === n - 1 ? null : String(min - 1 + (i + 1) * step),
  }));
}

/** Upserts one page with its checkpoint (and status history) in one transaction. */
function commitPage(
  decl: QueryStreamDecl,
  ctx: StreamContext,
  records: Record<string, unknown>[],
  pass: string | undefined,
  checkpoint?: CheckpointRow,
): void {
  const now = nowIso();
  const { adapter } = ctx.mirror;
  const counts = adapter.transaction(() => {
    const c = adapter.upsert(decl.resource, records, { now, pass });
    if (decl.statusHistory === true) for (const r of records) adapter.recordStatus(r, now);
    if (checkpoint !== undefined) adapter.saveCheckpoint(checkpoint, now);
    return c;
  });
  ctx.stats.pages++;
  ctx.stats.inserted += counts.inserted;
  ctx.stats.updated += counts.updated;
  ctx.stats.unchanged += counts.unchanged;
}

async function fetchNew(decl: QueryStreamDecl, ctx: StreamContext, table: ResourceTableName): Promise<void> {
  const after = await maxId(ctx, table);
  for await (const page of ctx.client.scan(decl.resource as QR, after === undefined ? {} : { after })) {
    commitPage(decl, ctx, page.records, undefined);
    ctx.progress.add(page.records.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
}

async function runPass(decl: QueryStreamDecl, ctx: StreamContext, pass: PassState): Promise<void> {
  const filters: FilterItem<FieldOf<QR>>[] =
    pass.mode === 'reopen' && decl.reopen !== undefined
      ? [decl.reopen.filter as FilterItem<FieldOf<QR>>]
      : [];
  await Promise.all(
    pass.parts
      .filter((p) => p.done === 0)
      .map(async (part) => {
        const cp = { ...part };
        for await (const page of ctx.client.scan(decl.resource as QR, {
          ...(cp.cursor === null ? {} : { after: Number(cp.cursor) }),
          ...(cp.upper === null ? {} : { atMost: Number(cp.upper) }),
          where: filters,
        })) {
          cp.cursor = String(page.lastId);
          commitPage(decl, ctx, page.records, pass.passId, cp);
          ctx.progress.add(page.records.length);
          if (ctx.signal.aborted) throw new InterruptedError();
        }
        cp.done = 1;
        ctx.mirror.adapter.transaction(() => ctx.mirror.adapter.saveCheckpoint(cp, nowIso()));
      }),
  );
  await finishPass(decl, ctx, pass);
}

/** Rows the pass did not see: soft-deleted (full), or looked up by id first (re-poll). */
async function finishPass(decl: QueryStreamDecl, ctx: StreamContext, pass: PassState): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  let unseenQuery = ctx.mirror.db
    .selectFrom(table)
    .select('id')
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('seen_pass', 'is', null), eb('seen_pass', '<>', pass.passId)]));
  if (pass.mode === 'reopen' && decl.reopen !== undefined)
    unseenQuery = unseenQuery.where(decl.reopen.column, '=', decl.reopen.value);
  let gone = (await unseenQuery.execute()).map((r) => r.id as number);

  if (pass.mode === 'reopen' && gone.length > 0) {
    // Left the re-poll: now unchangeable, or deleted. Ask for them by id.
    const stillThere = new Set<number>();
    for (let i = 0; i < gone.length; i += 100) {
      const batch = gone.slice(i, i + 100);
      for await (const page of ctx.client.scan(decl.resource as QR, {
        where: [where('id', 'listContains', batch.join(',')) as FilterItem<FieldOf<QR>>],
      })) {
        commitPage(decl, ctx, page.records, undefined);
        for (const r of page.records) stillThere.add(r.id as number);
      }
    }
    gone = gone.filter((id) => !stillThere.has(id));
  }
  await guardDeletions(ctx, table, gone.length);
  closePass(ctx, decl.name, decl.resource, gone, pass.mode === 'full' ? 'full' : 'other');
  if (gone.length > 0)
    ctx.logger.info({ stream: decl.name, deleted: gone.length }, 'soft-deleted rows gone upstream');
}
