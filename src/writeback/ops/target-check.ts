import type { ObjectSpec } from '../../schema/index.js';
import type { OpContext, PlanChecks, PlanContext, Work } from './types.js';
import { parseRaw } from './types.js';

/**
 * The plan check of an operation on a mirrored record (column `id`): a target missing from the
 * mirror or deleted upstream is flagged. With `compare` (the body's spec), a row whose every field
 * equals the record's current value changes nothing and is skipped; only fields the mirror can
 * compare count: nested arrays always add records, and masked sensitive fields cannot be compared.
 */
export function targetCheck(
  table: 'person' | 'applicant',
  compare?: ObjectSpec,
): (ctx: PlanContext) => PlanChecks {
  return (ctx) => ({
    async check(r) {
      const flags: string[] = [];
      const current = await ctx.db
        .selectFrom(table)
        .select(['raw', 'deleted_at'])
        .where('id', '=', r.targetId ?? 0)
        .executeTakeFirst();
      if (current === undefined) flags.push(`${table} not in the mirror`);
      else if (current.deleted_at !== null) flags.push(`${table} deleted upstream`);
      if (current === undefined || current.deleted_at !== null || compare === undefined) return { flags };
      const raw = parseRaw(current.raw);
      const same = Object.entries(r.body).every(([k, v]) => {
        const f = compare.fields[k] as { sensitive?: boolean } | undefined;
        if (f === undefined) return false; // a nested array: adds records
        if (f.sensitive === true && !ctx.storeSensitive) return false;
        return raw[k] === v;
      });
      return same ? { flags, outcome: 'skip' } : { flags };
    },
  });
}

/**
 * The check at the moment of sending of a change to a person or applicant: the mirror found the
 * target deleted (by this tool's own delete, or by a sync) after the change was planned. An
 * update of a deleted record would be refused at best: it is held instead.
 */
export async function targetState(ctx: OpContext, table: 'person' | 'applicant', work: Work) {
  return { deletedAt: await ctx.mirror.deletedAt(table, Number(work.targetId)) };
}

export function targetGone(table: 'person' | 'applicant'): (work: Work) => string | undefined {
  return (work) => {
    // Released by a person: the change is meant although the target changed.
    if (work.released != null) return undefined;
    const at = work.before?.deletedAt;
    return typeof at === 'string' ? `${table} ${String(work.targetId)} was deleted (${at})` : undefined;
  };
}
