import type { ObjectSpec } from '../../schema/index.js';
import type { OpDeclaration } from './types.js';

/** person.delete: DELETE, safe to repeat (a repeat finding the person gone counts as done). */
const none = { fields: {} } as const satisfies ObjectSpec;

export const personDelete: OpDeclaration = {
  operation: 'deletePerson',
  spec: none,
  required: [],
  targeted: true,
  target: 'person',
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
