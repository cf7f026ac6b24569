import { requests } from '../../schema/index.js';
import { targetCheck, targetGone, targetState } from './target-check.js';
import { fieldCheck, hasNestedArray, type OpDeclaration, somethingToChange } from './types.js';

/**
 * person.update: PATCH. Safe to repeat when it only sets fields; a body with nested arrays
 * (staff[], user[], ...) appends records on every send, so it is treated like a create: sent
 * once, and an unknown outcome waits for a person (the service has no Person read).
 */
export const personUpdate: OpDeclaration = {
  operation: 'updatePerson',
  spec: requests.PersonUpdate,
  required: [],
  targeted: true,
  target: 'person',
  rowRules: somethingToChange,
  plan: targetCheck('person', requests.PersonUpdate),
  describe: (b, t) => `update person ${String(t)}: ${Object.keys(b).join(', ')}`,
  lane: (_b, t) => `person:${String(t)}`,
  idempotent: (b) => !hasNestedArray(b),
  before: (ctx, work) => targetState(ctx, 'person', work),
  hold: targetGone('person'),

  async send(ctx, work) {
    const target = Number(work.targetId);
    const rec = await ctx.client.updatePerson(target, work.body, !hasNestedArray(work.body));
    await ctx.mirror.storePerson(rec);
    const check = fieldCheck(work.body, rec);
    return {
      resultId: String(target),
      response: rec,
      note: check.ok
        ? 'updated; the answer shows every field'
        : `updated; differs: ${check.differs.join(', ')}`,
      check,
    };
  },
};
