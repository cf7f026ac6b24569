import { requests } from '../../schema/index.js';
import type { Json, OpContext, OpDeclaration } from './types.js';

/**
 * person.create: POST, never idempotent. Evidence: the users with the e-mail addresses of the
 * body's `user[]`, read before the claim; after an unknown outcome, a new user with one of them
 * linked to a person shows the person was made. Without a user e-mail the service has no read
 * that can tell (it has no Person read): a person decides.
 */
function emails(body: Json): string[] {
  const users = Array.isArray(body.user) ? (body.user as Json[]) : [];
  return users.map((u) => u.email).filter((e): e is string => typeof e === 'string' && e !== '');
}

async function usersWith(ctx: OpContext, wanted: string[]): Promise<Json[]> {
  const set = new Set(wanted.map((e) => e.toLowerCase()));
  const { records } = await ctx.client.listUser();
  return records.filter((u) => typeof u.email === 'string' && set.has(u.email.toLowerCase())) as Json[];
}

export const personCreate: OpDeclaration = {
  operation: 'createPerson',
  spec: requests.PersonCreate,
  required: ['nameFirst', 'nameLast', 'OrgId'],
  targeted: false,
  describe: (b) => `create person ${String(b.nameFirst)} ${String(b.nameLast)} in org ${String(b.OrgId)}`,
  lane: (_b, _t, id) => `item:${id}`,
  idempotent: () => false,

  async before(ctx, work) {
    const wanted = emails(work.body);
    if (wanted.length === 0) return { usersBefore: [] };
    return { usersBefore: (await usersWith(ctx, wanted)).map((u) => Number(u.id)) };
  },

  async send(ctx, work) {
    const rec = await ctx.client.createPerson(work.body);
    await ctx.mirror.storePerson(rec);
    return { resultId: String(rec.id), response: rec, note: `created person ${String(rec.id)}` };
  },

  async readBack(ctx, work) {
    const wanted = emails(work.body);
    if (wanted.length === 0)
      return {
        verdict: 'unclear',
        evidence: {},
        note: 'no user e-mail to look for (the service has no Person read)',
      };
    const before = new Set(((work.before?.usersBefore as number[] | undefined) ?? []).map(Number));
    const users = await usersWith(ctx, wanted);
    const found = users.filter((u) => !before.has(Number(u.id)) && typeof u.PersonId === 'number');
    const evidence = { emails: wanted.length, usersBefore: [...before], usersNow: users.map((u) => u.id) };
    const first = found[0];
    if (first === undefined) return { verdict: 'not-applied', evidence, note: 'no new user with the e-mail' };
    await ctx.mirror.store('User', found);
    return {
      verdict: 'applied',
      evidence,
      note: `user ${String(first.id)} links person ${String(first.PersonId)}`,
      resultId: String(first.PersonId),
    };
  },
};
