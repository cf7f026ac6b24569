import { NotFoundError } from '../../api/index.js';
import { requests } from '../../schema/index.js';
import { targetCheck, targetGone, targetState } from './target-check.js';
import { fieldCheck, hasNestedArray, type Json, type OpDeclaration, somethingToChange } from './types.js';

/**
 * applicant.update: PATCH. Safe to repeat when it only sets fields; with `info[]` (appended on
 * every send) it is treated like a create: the number of info records is read before the claim,
 * and an unknown outcome is settled by reading it again (grown by the rows sent: applied;
 * unchanged: not applied).
 */
const infoCount = (rec: Json) => (Array.isArray(rec.info) ? rec.info.length : 0);
const added = (body: Json) => (Array.isArray(body.info) ? body.info.length : 0);

export const applicantUpdate: OpDeclaration = {
  operation: 'updateApplicant',
  spec: requests.ApplicantUpdate,
  required: [],
  targeted: true,
  target: 'applicant',
  rowRules: somethingToChange,
  plan: targetCheck('applicant', requests.ApplicantUpdate),
  describe: (b, t) => `update applicant ${String(t)}: ${Object.keys(b).join(', ')}`,
  lane: (_b, t) => `applicant:${String(t)}`,
  idempotent: (b) => !hasNestedArray(b),

  async before(ctx, work) {
    const state = await targetState(ctx, 'applicant', work);
    if (state.deletedAt !== null || !hasNestedArray(work.body)) return state;
    try {
      const rec = await ctx.client.getApplicant(Number(work.targetId), 'all');
      return { ...state, info: infoCount(rec as Json) };
    } catch (err) {
      if (err instanceof NotFoundError) return { deletedAt: 'not found on the service' };
      throw err;
    }
  },

  hold: targetGone('applicant'),

  async send(ctx, work) {
    const target = Number(work.targetId);
    const rec = await ctx.client.updateApplicant(target, work.body, !hasNestedArray(work.body));
    const reread = await ctx.mirror.reread(() => ctx.client.getApplicant(target, 'all'));
    if (reread === undefined)
      return { resultId: String(target), response: rec, note: 'updated; the applicant could not be re-read' };
    await ctx.mirror.store('Applicant', [reread]);
    const check = fieldCheck(work.body, reread as Json);
    return {
      resultId: String(target),
      response: rec,
      note: check.ok
        ? 'updated; re-read shows every field'
        : `updated; re-read differs: ${check.differs.join(', ')}`,
      check,
    };
  },

  async readBack(ctx, work) {
    const rec = (await ctx.client.getApplicant(Number(work.targetId), 'all')) as Json;
    const before = Number(work.before?.info ?? Number.NaN);
    const now = infoCount(rec);
    const evidence = { infoBefore: before, infoNow: now, sent: added(work.body) };
    if (now === before + added(work.body)) {
      await ctx.mirror.store('Applicant', [rec]);
      return { verdict: 'applied', evidence, note: `info records ${before} -> ${now}` };
    }
    if (now === before) return { verdict: 'not-applied', evidence, note: `info records unchanged (${now})` };
    return {
      verdict: 'unclear',
      evidence,
      note: `info records ${now}, expected ${before} or ${before + added(work.body)}`,
    };
  },
};
