import type { ResourceTableName } from '../mirror/index.js';
import { tableOf } from '../mirror/index.js';
import { finishPass, stagePage, startPass, unseenIds } from './passes.js';
import type { ListStreamDecl, StreamContext } from './types.js';

/** Records per staged page of a list (one write transaction each). */
const LIST_PAGE = 500;

/**
 * List streams (OrgMonth, User): the whole list every run, every field asked for. A list is one
 * answer with no paging, of any size: it is parsed as a stream and staged page by page (memory
 * is a page, not the list), as a pass of a query stream is. A run that got the whole list saw
 * everything: active rows it did not list are soft-deleted. The mass-delete guard decides before
 * anything is applied; then the staged pages and the deletions are applied in one transaction. A
 * list cut short and retried stages its first pages again, which changes nothing.
 */
export async function runListStream(decl: ListStreamDecl, ctx: StreamContext): Promise<void> {
  const table = tableOf(decl.resource).table as ResourceTableName;
  ctx.stats.mode = 'full';
  await startPass(ctx, decl.name, 'full', []);
  await ctx.mirror.bulkLoad(decl.resource, async () => {
    await ctx.client.listInPages(
      decl.resource,
      'all',
      async (page) => {
        await stagePage(ctx, decl.name, decl.resource, page);
        ctx.progress.add(page.length);
      },
      LIST_PAGE,
    );
    const gone = await unseenIds(ctx, decl.name, table);
    await finishPass(ctx, { stream: decl.name, resource: decl.resource, table }, gone, {
      completed: 'full',
      dropWhenGuarded: true,
    });
  });
}
