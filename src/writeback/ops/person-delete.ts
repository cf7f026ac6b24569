import type { ObjectSpec } from '../../schema/index.js';
import { targetCheck } from './target-check.js';
import type { OpDeclaration } from './types.js';

/**
 * person.delete: DELETE, safe to repeat (a repeat finding the person gone counts as done).
 * Permanent: sent only once confirmed. A row with only an id is the whole change, and the plan
 * never skips it as unchanged.
 */
const none = { fields: {} } as const satisfies ObjectSpec;

export const personDelete: OpDeclaration = {
  operation: 'deletePerson',
  spec: none,
  required: [],
  targeted: true,
  target: 'person',
  plan: targetCheck('person'),
  destructive: true,
  describe: (_b, t) => `delete person ${String(t)} permanently`,
  lane: (_b, t) => `person:${String(t)}`,
  idempotent: () => true,

  async send(ctx, work) {
    const target = Number(work.targetId);
    const rec = await ctx.client.deletePerson(target);
    await ctx.mirror.softDeletePerson(target);
    return {
      resultId: String(target),
      response: rec ?? null,
      note: `deleted person ${target}`,
      check: { deleted: true },
    };
  },
};
