import { NotFoundError } from '../api/index.js';
import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { closePass, guardDeletions, nowIso, type PassState, pendingPass, startPass } from './passes.js';
import { type IdStreamDecl, InterruptedError, type StreamContext } from './types.js';

type IR = IdStreamDecl['resource'];
const BATCH = 16;

const byId = (a: string, b: string) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Id streams (Invoice, Staff, Applicant have no list operation): ids come from the mirror (known
 * rows and ids other tables refer to), from files, and from probing upward past the highest
 * known id until `probeWindow` consecutive 404s.
 * - full: every known row is re-read; incremental: rows that can still change (unpaid invoices).
 * - a known id that now answers 404 is soft-deleted once the re-read is complete (guarded).
 * The re-read is a pass with a checkpoint: a killed run resumes after the last batch done.
 */
export async function runIdStream(decl: IdStreamDecl, ctx: StreamContext): Promise<void> {
  const started = nowIso();
  const resumed = await idPass(decl, ctx);
  // A resumed pass only finished an earlier run's re-read: rows that run read may have changed
  // since, so an incremental run then re-reads those that can still change (new ids were just
  // probed for).
  if (resumed && !ctx.options.full && decl.incrementalReread === 'open') {
    await idPass(decl, ctx, { readBefore: started });
  }
}

/**
 * One pass (new, or the one a killed run left); returns whether it was resumed. `catchUp`: an
 * incremental re-read of the open rows last read before `readBefore`, without probing.
 */
async function idPass(
  decl: IdStreamDecl,
  ctx: StreamContext,
  catchUp?: { readBefore: string },
): Promise<boolean> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  const known = await ctx.mirror.db.selectFrom(table).select(['id', 'deleted_at']).execute();
  const full = catchUp === undefined && (ctx.options.full || known.length === 0);
  ctx.stats.mode = full ? 'full' : 'incremental';

  let pass = await pendingPass(ctx, decl.name);
  const resumed = pass !== undefined;
  if (pass === undefined) {
    let reread = known.filter((r) => r.deleted_at === null);
    if (!full) {
      if (decl.incrementalReread === 'open' && decl.openWhere !== undefined) {
        const open = decl.openWhere;
        let openRows = ctx.mirror.db
          .selectFrom(table)
          .select('id')
          .where('deleted_at', 'is', null)
          .where(open.column, '<>', open.notEqual);
        if (catchUp !== undefined) openRows = openRows.where('synced_at', '<', catchUp.readBefore);
        const rows = await openRows.execute();
        reread = rows.map((r) => ({ id: r.id, deleted_at: null }));
      } else {
        reread = [];
      }
    }
    const knownIds = new Set(known.map((r) => String(r.id)));
    const wanted = new Set(reread.map((r) => String(r.id)));
    for (const id of [
      ...(await referencedIds(decl, ctx)),
      ...(ctx.options.extraIds[decl.name] ?? []).map(String),
    ]) {
      if (!knownIds.has(id)) wanted.add(id);
    }
    pass = startPass(ctx, decl.name, full ? 'full' : 'reopen', [{ cursor: null, upper: null }]);
    ctx.mirror.adapter.transaction(() =>
      ctx.mirror.adapter.saveCheckpoint(
        { ...(pass as PassState).parts[0]!, upper: JSON.stringify([...wanted].sort(byId)) },
        nowIso(),
      ),
    );
    (pass.parts[0] as { upper: string | null }).upper = JSON.stringify([...wanted].sort(byId));
  } else {
    ctx.logger.info({ stream: decl.name }, 'resuming an unfinished re-read');
  }

  // Re-read the listed ids after the checkpoint, in batches fetched at once.
  const part = { ...pass.parts[0]! };
  const list = JSON.parse(part.upper ?? '[]') as string[];
  const todo = part.cursor === null ? list : list.filter((id) => byId(id, part.cursor as string) > 0);
  for (let i = 0; i < todo.length; i += BATCH) {
    const batch = todo.slice(i, i + BATCH);
    const results = await Promise.all(batch.map((id) => fetchOne(decl, ctx, id)));
    const found = results.filter((r): r is Record<string, unknown> => r !== undefined);
    const missing = batch.filter((_, k) => results[k] === undefined);
    part.cursor = batch[batch.length - 1] ?? part.cursor;
    commit(decl, ctx, found, pass.passId, () => {
      // A 404 on a known row is evidence it is gone: marked now, soft-deleted when the pass ends.
      ctx.mirror.adapter.markRows(decl.resource, missing, `404:${pass.passId}`);
      ctx.mirror.adapter.saveCheckpoint(part, nowIso());
    });
    ctx.progress.add(batch.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }

  if (catchUp === undefined) await probeUpward(decl, ctx, table);

  const gone = (
    await ctx.mirror.db
      .selectFrom(table)
      .select('id')
      .where('deleted_at', 'is', null)
      .where('seen_pass', '=', `404:${pass.passId}`)
      .execute()
  ).map((r) => r.id);
  await guardDeletions(ctx, table, gone.length);
  closePass(ctx, decl.name, decl.resource, gone, full ? 'full' : 'other');
  return resumed;
}

async function fetchOne(
  decl: IdStreamDecl,
  ctx: StreamContext,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  try {
    const key = decl.resource === 'Invoice' ? id : Number(id);
    return await ctx.client.get(decl.resource as IR, key, 'all');
  } catch (err) {
    if (err instanceof NotFoundError) return undefined;
    throw err;
  }
}

function commit(
  decl: IdStreamDecl,
  ctx: StreamContext,
  records: Record<string, unknown>[],
  pass: string | undefined,
  also?: () => void,
): void {
  const { adapter } = ctx.mirror;
  const counts = adapter.transaction(() => {
    const c = adapter.upsert(decl.resource, records, { now: nowIso(), pass });
    also?.();
    return c;
  });
  ctx.stats.pages++;
  ctx.stats.inserted += counts.inserted;
  ctx.stats.updated += counts.updated;
  ctx.stats.unchanged += counts.unchanged;
}

/** Ids that other tables of the mirror refer to. */
async function referencedIds(decl: IdStreamDecl, ctx: StreamContext): Promise<string[]> {
  const ids: string[] = [];
  for (const ref of decl.refs) {
    const table = ref.table as ResourceTableName;
    if (ref.column !== undefined) {
      const rows = await ctx.mirror.db
        .selectFrom(table)
        .select(ref.column)
        .where(ref.column, 'is not', null)
        .execute();
      for (const r of rows) ids.push(String((r as Record<string, unknown>)[ref.column]));
    }
    if (ref.fromRaw !== undefined) {
      const rows = await ctx.mirror.db.selectFrom(table).select('raw').execute();
      for (const r of rows) {
        for (const id of ref.fromRaw(JSON.parse(r.raw) as Record<string, unknown>)) {
          if (typeof id === 'number' || typeof id === 'string') ids.push(String(id));
        }
      }
    }
  }
  return ids;
}

/**
 * Probes ids above the highest known one until `probeWindow` consecutive 404s. The service gives
 * new ids above the highest it has held, so a 404 can only turn into a record if the id was asked
 * before the service got there: with ids asked at once, or one after another, a record created
 * just after its 404 is followed by higher ones that are found, and probing goes on above it. So
 * once probing ends, the 404s it left below the highest id found (within the window) are asked
 * again. (A run killed before that loses its last 404s: the next run probes above them.)
 */
async function probeUpward(decl: IdStreamDecl, ctx: StreamContext, table: ResourceTableName): Promise<void> {
  const rows = await ctx.mirror.db.selectFrom(table).select('id').execute();
  const numeric = rows.map((r) => Number(r.id)).filter(Number.isFinite);
  const start = Number(ctx.options.idStart[decl.name] ?? 1);
  const window = ctx.options.probeWindow;
  let top = numeric.length > 0 ? Math.max(...numeric) : start - 1;
  let next = top + 1;
  const holes: number[] = [];
  let misses = 0;
  while (misses < window) {
    const batch = Array.from({ length: Math.min(BATCH, window) }, (_, k) => String(next + k));
    next += batch.length;
    const results = await Promise.all(batch.map((id) => fetchOne(decl, ctx, id)));
    const found: Record<string, unknown>[] = [];
    results.forEach((r, k) => {
      if (r === undefined) {
        misses++;
        holes.push(Number(batch[k]));
      } else {
        misses = 0;
        top = Number(batch[k]);
        found.push(r);
      }
    });
    if (found.length > 0) commit(decl, ctx, found, undefined);
    ctx.progress.add(batch.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
  const again = holes.filter((id) => id < top && id > top - window).map(String);
  for (let i = 0; i < again.length; i += BATCH) {
    const batch = again.slice(i, i + BATCH);
    const found = (await Promise.all(batch.map((id) => fetchOne(decl, ctx, id)))).filter(
      (r): r is Record<string, unknown> => r !== undefined,
    );
    if (found.length > 0) commit(decl, ctx, found, undefined);
    ctx.progress.add(batch.length);
    if (ctx.signal.aborted) throw new InterruptedError();
  }
}
