import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { closePass, guardDeletions, nowIso } from './passes.js';
import type { ListStreamDecl, StreamContext } from './types.js';

/**
 * List streams (OrgMonth, User): the whole list every run, every field asked for. A list is one
 * response, so a run that got it saw everything: rows no longer listed are soft-deleted (the
 * mass-delete guard applies).
 */
export async function runListStream(decl: ListStreamDecl, ctx: StreamContext): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  ctx.stats.mode = 'full';
  const { records } = await ctx.client.list(decl.resource, 'all');
  ctx.progress.add(records.length);
  const now = nowIso();
  const { adapter } = ctx.mirror;
  const counts = await adapter.bulkLoad(decl.resource, async () =>
    adapter.transaction(() => adapter.upsert(decl.resource, records, { now })),
  );
  ctx.stats.pages++;
  ctx.stats.inserted += counts.inserted;
  ctx.stats.updated += counts.updated;
  ctx.stats.unchanged += counts.unchanged;
  const listed = new Set(records.map((r) => String(r.id)));
  const active = await ctx.mirror.db.selectFrom(table).select('id').where('deleted_at', 'is', null).execute();
  const gone = active.map((r) => r.id).filter((id) => !listed.has(String(id)));
  await guardDeletions(ctx, table, gone.length);
  closePass(ctx, decl.name, decl.resource, gone, 'full');
}
