import type { Kysely } from 'kysely';
import { type Database, policiesAsOf, policyVersionsAsOf } from '../../mirror/index.js';
import type { CommonParams } from '../core/params.js';
import type { Collector } from './collector.js';
import type { Program } from './model.js';
import { resolveYear } from './months.js';
import type { ComplianceOptions } from './options.js';
import { resolveDefaults } from './policy.js';

export type Setup = Awaited<ReturnType<typeof setup>>;

/** What the report and its trend decide from the parameters before reading OrgMonth rows. */
export async function setup(
  db: Kysely<Database>,
  common: CommonParams,
  opts: ComplianceOptions,
  scope: Set<number> | null,
  warn: Collector,
  at: string | undefined,
) {
  const { year, m, monthNote } = resolveYear(common, opts, warn);
  const { defaults, note: defaultsNote } = resolveDefaults(opts, year, warn);
  // The policies in force at the instant the mirror is read as of (the present: now).
  const policies = await policiesAsOf(db, at);
  const policyOf = new Map(policies.map((p) => [p.org_id, p]));
  // Every version known then: each month is scored by the one effective for it (month-rates.ts).
  const versionsOf = await policyVersionsAsOf(db, at);
  const parentOf = new Map(policies.map((p) => [p.org_id, p.parent_org_id]));
  const inProgram = (p: Program) => opts.program === 'all' || opts.program === p;
  return {
    common,
    opts,
    year,
    m,
    monthNote,
    defaults,
    defaultsNote,
    policies,
    policyOf,
    versionsOf,
    parentOf,
    scope,
    inProgram,
  };
}
