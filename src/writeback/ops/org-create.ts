import { requests } from '../../schema/index.js';
import type { OpDeclaration } from './types.js';

/**
 * org.create: POST, never idempotent. The service has no Org read, so an unknown outcome cannot
 * be read back: it waits for a person (`ohs outbox resolve`).
 */
export const orgCreate: OpDeclaration = {
  operation: 'createOrg',
  spec: requests.OrgCreate,
  required: ['name', 'zip'],
  targeted: false,
  describe: (b) => `create org ${String(b.name)} (${String(b.zip)})`,
  lane: (_b, _t, id) => `item:${id}`,
  idempotent: () => false,

  async send(ctx, work) {
    const rec = await ctx.client.createOrg(work.body);
    await ctx.mirror.storeOrg(rec, work.body);
    return { resultId: String(rec.id), response: rec, note: `created org ${String(rec.id)}` };
  },
};
