import type { Kysely } from 'kysely';
import type { Database, OrgPolicyTable } from './db-types.js';

/**
 * Org rate policies keep history like every mirrored record (history.ts): each import or
 * write-back that changes an org's policy closes its open version in `h_org_policy`
 * (`valid_to`) and adds the new one (`valid_from`), in the transaction that writes `org_policy`.
 * A report as of an instant reads the policies in force then (`policiesAsOf`), so a policy
 * imported today never changes a report as of yesterday. The view `org_policy_history` is the
 * BI users' reading, as for the resources.
 */
export const POLICY_HISTORY = 'h_org_policy';
export const POLICY_HISTORY_VIEW = 'org_policy_history';

/** An org's policy as `org_policy` holds it. */
export type PolicyValues = OrgPolicyTable;

/** A policy version: the policy and the interval it was in force. */
export interface PolicyVersion extends OrgPolicyTable {
  valid_from: string;
  valid_to: string | null;
}

export const policyColumns = [
  'org_id',
  'program',
  'agency',
  'rp_min_drug',
  'rp_min_alc',
  'dot_registration_number',
  'parent_org_id',
  'source',
  'updated_at',
  'effective_from',
] as const;

type PolicyDb = Kysely<Database & { h_org_policy: PolicyVersion }>;
const versions = (db: Kysely<Database>) => db as unknown as PolicyDb;

const same = (a: OrgPolicyTable, b: OrgPolicyTable): boolean =>
  policyColumns.every((c) => c === 'updated_at' || (a[c] ?? null) === (b[c] ?? null));

/**
 * Writes an org's policy (`values.updated_at` is the instant): `org_policy` and, when anything
 * but the time changed, a new version closing the open one. Run it inside a transaction.
 */
export async function writePolicy(db: Kysely<Database>, values: PolicyValues): Promise<void> {
  const now = values.updated_at;
  const current = await db
    .selectFrom('org_policy')
    .selectAll()
    .where('org_id', '=', values.org_id)
    .executeTakeFirst();
  const { org_id: _id, ...rest } = values;
  await db
    .insertInto('org_policy')
    .values(values)
    .onConflict((oc) => oc.column('org_id').doUpdateSet(rest))
    .execute();
  if (current !== undefined && same(current, values)) return;
  const h = versions(db);
  await h
    .updateTable(POLICY_HISTORY)
    .set({ valid_to: now })
    .where('org_id', '=', values.org_id)
    .where('valid_to', 'is', null)
    .execute();
  await h
    .insertInto(POLICY_HISTORY)
    .values({ ...values, valid_from: now, valid_to: null })
    .execute();
}

/**
 * The policies in force at `at` (ISO 8601 UTC), one per org with the instant each took effect;
 * `undefined`: the present (`org_policy`, each with the start of its open version).
 */
export async function policiesAsOf(db: Kysely<Database>, at: string | undefined): Promise<PolicyVersion[]> {
  const h = versions(db);
  let q = h.selectFrom(POLICY_HISTORY).selectAll();
  q =
    at === undefined
      ? q.where('valid_to', 'is', null)
      : q
          .where('valid_from', '<=', at)
          .where((eb) => eb.or([eb('valid_to', 'is', null), eb('valid_to', '>', at)]));
  const rows = await q.orderBy('org_id').execute();
  if (at !== undefined) return rows;
  // The present is org_policy itself (a policy written before the versions were kept, or by a
  // tool that wrote the table alone, still counts), with the start of its open version if any.
  const since = new Map(rows.map((r) => [r.org_id, r.valid_from]));
  const present = await db.selectFrom('org_policy').selectAll().orderBy('org_id').execute();
  return present.map((p) => ({ ...p, valid_from: since.get(p.org_id) ?? p.updated_at, valid_to: null }));
}

/**
 * Every version of one org's policy that had taken effect by `at` (all of them when undefined),
 * oldest first: a version still open then has `valid_to` null as the mirror knew it at `at`.
 */
export async function policyVersionsOf(
  db: Kysely<Database>,
  orgId: number,
  at: string | undefined,
): Promise<PolicyVersion[]> {
  let q = versions(db).selectFrom(POLICY_HISTORY).selectAll().where('org_id', '=', orgId);
  if (at !== undefined) q = q.where('valid_from', '<=', at);
  const rows = await q.orderBy('valid_from').execute();
  return rows.map((r) =>
    at !== undefined && r.valid_to !== null && r.valid_to > at ? { ...r, valid_to: null } : r,
  );
}

/**
 * Every version of every org's policy the mirror knew at `at` (all of them when undefined), by
 * org, oldest first: a report scores each month by the latest of them effective for it (its
 * `effective_from`), so a version superseded later still scores the months before its
 * successor's effective date. The present includes `org_policy` itself as the latest version.
 */
export async function policyVersionsAsOf(
  db: Kysely<Database>,
  at: string | undefined,
): Promise<Map<number, PolicyVersion[]>> {
  let q = versions(db).selectFrom(POLICY_HISTORY).selectAll();
  q = at === undefined ? q.where('valid_to', 'is not', null) : q.where('valid_from', '<=', at);
  const rows = await q.orderBy('org_id').orderBy('valid_from').execute();
  const all = at === undefined ? [...rows, ...(await policiesAsOf(db, undefined))] : rows;
  const out = new Map<number, PolicyVersion[]>();
  for (const r of all) {
    const list = out.get(r.org_id) ?? [];
    list.push(r);
    out.set(r.org_id, list);
  }
  for (const list of out.values())
    list.sort((a, b) => (a.valid_from < b.valid_from ? -1 : a.valid_from > b.valid_from ? 1 : 0));
  return out;
}
