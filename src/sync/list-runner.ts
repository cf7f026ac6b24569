import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { allowedDeletions, countPage, guardDeletions, nowIso, recordRestorations } from './passes.js';
import type { ListStreamDecl, StreamContext } from './types.js';

/**
 * List streams (OrgMonth, User): the whole list every run, every field asked for. A list is one
 * response, so a run that got it saw everything: rows no longer listed are soft-deleted. The
 * mass-delete guard decides before anything is written; then the list and the deletions are
 * written in one transaction.
 */
export async function runListStream(decl: ListStreamDecl, ctx: StreamContext): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  ctx.stats.mode = 'full';
  const { records } = await ctx.client.list(decl.resource, 'all');
  ctx.progress.add(records.length);
  const listed = new Set(records.map((r) => String(r.id)));
  const active = await ctx.mirror.db.selectFrom(table).select('id').where('deleted_at', 'is', null).execute();
  const gone = allowedDeletions(
    ctx,
    active.map((r) => r.id).filter((id) => !listed.has(String(id))),
  );
  await guardDeletions(ctx, table, gone.length);
  const now = nowIso();
  const counts = await ctx.mirror.bulkLoad(decl.resource, () =>
    ctx.mirror.write(async (w) => {
      await recordRestorations(w, ctx, { stream: decl.name, table }, listed, now);
      const c = await w.upsert(decl.resource, records, { now });
      ctx.stats.deleted += await w.softDelete(decl.resource, gone, {
        runId: ctx.runId,
        stream: decl.name,
        now,
      });
      await w.setPass(decl.name, null, now, ctx.evidence.failed ? 'other' : 'full');
      return c;
    }),
  );
  countPage(ctx, counts, records.length);
}
