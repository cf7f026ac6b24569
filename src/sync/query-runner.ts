import { sql } from 'kysely';
import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { type FieldOf, type FilterItem, where } from '../schema/index.js';
import {
  allowedDeletions,
  countPage,
  finishPass,
  guardDeletions,
  nowIso,
  oneSeenId,
  type PassState,
  pendingPass,
  stagePage,
  startPass,
  unseenIds,
} from './passes.js';
import { planRanges } from './ranges.js';
import { idsStillThere } from './sweep.js';
import { InterruptedError, type QueryStreamDecl, type StreamContext } from './types.js';

type QR = QueryStreamDecl['resource'];
type Filter = FilterItem<FieldOf<QR>>;

/**
 * Query streams (HsVendor, OrderItem, Tenant, Role): keyset pages of `id greaterThan <last>`
 * sorted by id, each page noted (and its changed records staged) with its checkpoint in one
 * transaction (see passes.ts).
 * - full: a pass over the whole id range; a large stream (OrderItem) is read as several id ranges
 *   at once (ranges.ts decides how many, and where they split), each with its own checkpoint, so a
 *   killed run's resume re-reads only the ranges still open. Rows the pass did not see are
 *   soft-deleted only once every range is done: a range still open proves nothing (mass-delete
 *   guard applies, before any write). When one range fails, its siblings are cancelled and
 *   awaited before the stream is reported failed, so no page is written after that.
 * - incremental ('open-rows'): rows above the highest id we hold, then a re-poll of the rows that
 *   can still change; a row that left the re-poll is looked up by id, and soft-deleted if gone.
 * A pass left unfinished by a killed run is resumed first, whatever the mode asked.
 */
export async function runQueryStream(decl: QueryStreamDecl, ctx: StreamContext): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  const pending = await pendingPass(ctx, decl.name);
  if (pending !== undefined) {
    ctx.logger.info({ pass: pending.mode }, 'resuming an unfinished pass');
    ctx.stats.mode = pending.mode === 'full' ? 'full' : 'incremental';
    await runPass(decl, ctx, pending);
    // A resumed pass only finished an earlier run's work: rows it passed before that run stopped
    // may have changed or gone since. A resumed full pass of a big table is still the full pass a
    // --full run asks for, caught up by the incremental work (new rows, re-poll, id sweep); any
    // other case goes on with this run's own work (a new pass of a small table, say).
    if (pending.mode === 'full' && ctx.options.full && decl.incremental === 'open-rows')
      return catchUp(decl, ctx, table);
  }
  const empty = (await maxId(ctx, table)) === undefined;
  if (ctx.options.full || decl.incremental === 'full' || empty) {
    ctx.stats.mode = 'full';
    const pass = await startPass(ctx, decl.name, 'full', await planRanges(decl, ctx));
    await ctx.mirror.bulkLoad(decl.resource, () => runPass(decl, ctx, pass));
    return;
  }
  ctx.stats.mode = 'incremental';
  await catchUp(decl, ctx, table);
}

/**
 * The incremental work: the id sweep first (its guard decides before anything is written), then
 * rows above the highest id held, a re-poll of open rows, and the sweep's deletions.
 */
async function catchUp(decl: QueryStreamDecl, ctx: StreamContext, table: ResourceTableName): Promise<void> {
  const swept = await sweepDeletions(decl, ctx, table);
  await fetchNew(decl, ctx, table);
  if (decl.reopen !== undefined) {
    await runPass(decl, ctx, await startPass(ctx, decl.name, 'reopen', [{ cursor: null, upper: null }]));
  }
  // Decided now, not when swept: a stream of this run may have failed meanwhile.
  const gone = allowedDeletions(ctx, swept);
  if (gone.length === 0) return;
  const now = nowIso();
  await ctx.mirror.write(async (w) => {
    ctx.stats.deleted += await w.softDelete(decl.resource, gone, {
      runId: ctx.runId,
      stream: decl.name,
      now,
    });
  });
  ctx.logger.info({ deleted: gone.length }, 'soft-deleted rows gone upstream (id sweep)');
}

/**
 * An incremental run's deletion check for rows that can no longer change (the re-poll does not
 * see them): the service's counts over id ranges first, and a scan of ids only where a count
 * differs from the mirror's (sweep.ts: one request when nothing was deleted). Active rows the
 * sweep did not find are returned for soft-deletion, once the same guard has let them through.
 * Not resumable on purpose: it is cheap to start over.
 */
async function sweepDeletions(
  decl: QueryStreamDecl,
  ctx: StreamContext,
  table: ResourceTableName,
): Promise<number[]> {
  const rows = await ctx.mirror.db.selectFrom(table).select('id').where('deleted_at', 'is', null).execute();
  const active = rows.map((r) => r.id as number);
  const scan = async (range: { after?: number; atMost?: number }) => {
    const seen = new Set<number>();
    for await (const page of ctx.client.scan(decl.resource as QR, { fields: ['id'], ...range })) {
      for (const r of page.records) seen.add(r.id as number);
      if (ctx.signal.aborted) throw new InterruptedError();
    }
    return seen;
  };
  const there = await idsStillThere(ctx.client, decl.resource as QR, active, ctx.signal, scan);
  const gone = active.filter((id) => !there.has(id));
  await guardDeletions(ctx, table, gone.length);
  return gone;
}

async function maxId(ctx: StreamContext, table: ResourceTableName): Promise<number | undefined> {
  const row = await ctx.mirror.db
    .selectFrom(table)
    .select(sql<number | null>`max(id)`.as('max'))
    .executeTakeFirst();
  return row?.max == null ? undefined : Number(row.max);
}

/** Rows above the highest id held (an incremental run): written at once, no deletion follows. */
async function fetchNew(decl: QueryStreamDecl, ctx: StreamContext, table: ResourceTableName): Promise<void> {
  const after = await maxId(ctx, table);
  for await (const page of ctx.client.scan(decl.resource as QR, after === undefined ? {} : { after })) {
    const now = nowIso();
    const counts = await ctx.mirror.write(async (w) => {
      const c = await w.upsert(decl.resource, page.records, { now });
      if (decl.statusHistory === true) await w.recordStatus(page.records, now);
      return c;
    });
    countPage(ctx, counts, page.records.length);
    ctx.progress.add(page.records.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
}

/**
 * The ranges of a pass, at once, each from its own checkpoint (a resumed pass skips the ranges
 * done). The first to fail cancels the others (their requests are aborted, and none writes a page
 * after that) and is rethrown once all have stopped; the pass ends (endPass: deletions) only when
 * every range is done.
 */
async function runPass(decl: QueryStreamDecl, ctx: StreamContext, pass: PassState): Promise<void> {
  const filters: Filter[] =
    pass.mode === 'reopen' && decl.reopen !== undefined ? [decl.reopen.filter as Filter] : [];
  const stop = new AbortController();
  const results = await Promise.allSettled(
    pass.parts
      .filter((p) => p.done === 0)
      .map(async (part) => {
        try {
          const cp = { ...part };
          for await (const page of ctx.client.scan(decl.resource as QR, {
            ...(cp.cursor === null ? {} : { after: Number(cp.cursor) }),
            ...(cp.upper === null ? {} : { atMost: Number(cp.upper) }),
            where: filters,
            signal: stop.signal,
          })) {
            if (stop.signal.aborted) return;
            cp.cursor = String(page.lastId);
            await stagePage(ctx, decl.name, decl.resource, page.records, {
              also: (w) => w.saveCheckpoint(cp, nowIso()),
              statusHistory: decl.statusHistory === true,
              unless: stop.signal,
            });
            ctx.progress.add(page.records.length);
            if (ctx.signal.aborted) throw new InterruptedError();
          }
          if (stop.signal.aborted) return;
          cp.done = 1;
          await ctx.mirror.write(async (w) => {
            if (!stop.signal.aborted) await w.saveCheckpoint(cp, nowIso());
          });
        } catch (err) {
          stop.abort(err);
          throw err;
        }
      }),
  );
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw stop.signal.reason ?? failed.reason;
  await endPass(decl, ctx, pass);
}

/** Rows the pass did not see: soft-deleted (full), or looked up by id first (re-poll). */
async function endPass(decl: QueryStreamDecl, ctx: StreamContext, pass: PassState): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  const reopen = pass.mode === 'reopen' ? decl.reopen : undefined;
  let gone = (await unseenIds(ctx, decl.name, table, reopen)).map(Number);

  if (pass.mode === 'reopen' && gone.length > 0) {
    const control = await oneSeenId(ctx, decl.name);
    const stillThere = await lookUp(decl, ctx, gone, control === undefined ? undefined : Number(control));
    gone = gone.filter((id) => !stillThere.has(id));
  }
  await finishPass(ctx, { stream: decl.name, resource: decl.resource, table }, gone, {
    completed: pass.mode === 'full' ? 'full' : 'other',
    statusHistory: decl.statusHistory === true,
    dropWhenGuarded: true,
  });
  if (gone.length > 0) ctx.logger.info({ deleted: gone.length }, 'soft-deleted rows gone upstream');
}

/**
 * Rows that left the re-poll (now unchangeable, or deleted), asked for by id: those found are
 * staged, and returned. `listContains` asks 100 at once, but the interface leaves its meaning
 * open, and a service reading it otherwise (the value as one string, say) would answer nothing,
 * which would look like 100 deletions. So each batch carries a control id the re-poll has just
 * seen: an answer without it, or with an id not asked for, is not trusted, and that batch is
 * asked one id at a time with `equals` instead (no deletion rests on the doubtful answer).
 */
async function lookUp(
  decl: QueryStreamDecl,
  ctx: StreamContext,
  ids: number[],
  control: number | undefined,
): Promise<Set<number>> {
  const stillThere = new Set<number>();
  const keep = async (records: Record<string, unknown>[]) => {
    const found = records.filter((r) => r.id !== control);
    await stagePage(ctx, decl.name, decl.resource, found);
    for (const r of found) stillThere.add(r.id as number);
  };
  for (let i = 0; i < ids.length; i += 99) {
    const batch = ids.slice(i, i + 99);
    if (control !== undefined) {
      const asked = new Set([...batch, control]);
      const records: Record<string, unknown>[] = [];
      for await (const page of ctx.client.scan(decl.resource as QR, {
        where: [where('id', 'listContains', [...asked].join(',')) as Filter],
      })) {
        for (const r of page.records) records.push(r);
      }
      if (records.some((r) => r.id === control) && records.every((r) => asked.has(r.id as number))) {
        await keep(records);
        continue;
      }
      ctx.logger.warn(
        { control },
        'the service reads listContains otherwise (the control id was not answered as asked): asking id by id',
      );
      control = undefined;
    }
    for (const id of batch) {
      const { records } = await ctx.client.query(decl.resource as QR, {
        advancedFilter: { linkOperator: 'AND', items: [where('id', 'equals', id) as Filter] },
        pageSize: 2,
      });
      await keep(records.filter((r) => r.id === id));
    }
  }
  return stillThere;
}
