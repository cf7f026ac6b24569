import { type PolicyVersion, policyColumns } from '../../mirror/index.js';
import { complianceFigures, complianceWalkOnce, yearToDate } from '../compliance/figures.js';
import { complianceReport } from '../compliance/index.js';
import type { NamedProblem, OrgRates } from '../compliance/model.js';
import { planRows, planYear } from '../compliance/plan.js';
import type { ReportInput } from '../core/types.js';
import type { ChangesOptions } from './options.js';
import { inputAt } from './sides.js';

/** One employer at one end, as compliance and its catch-up plan scored it (typed, no sheet read). */
export interface OrgStanding {
  orgId: number;
  org: string | null;
  /** The YTD status per test type as compliance writes it (" (assumed rate)" when assumed). */
  status: { drug: string | null; alcohol: string | null };
  /** The catch-up verdict per test type as the plan writes it. */
  verdict: { drug: string | null; alcohol: string | null };
  problems: readonly NamedProblem[];
  /** The rates its last month was scored on. */
  rates: OrgRates;
}

/** Compliance at one end: each employer's standing, the policies in force, the assumed rates. */
export interface ComplianceSide {
  orgs: Map<number, OrgStanding>;
  policies: Map<number, PolicyVersion>;
  /** The assumed (default) rates in words, for an employer with no policy. */
  defaults: string;
}

/**
 * Compliance's figures at one end (`at` undefined: the run's own, shared with the compliance and
 * catch-up reports of the run): its walk done (only each employer's last month and YTD are kept,
 * so memory grows with the employers, not their months), the plan made from it, the policies.
 */
export async function complianceSide(
  input: ReportInput<ChangesOptions>,
  at: number | undefined,
): Promise<ComplianceSide> {
  const cin = await inputAt(input, complianceReport, at);
  // The run's own figures at its instant (shared with the reports of the run); an earlier instant
  // is walked for this report alone and only the employers' standings below are kept.
  const f = at === undefined ? await complianceFigures(cin) : await complianceWalkOnce(cin);
  const walk = await f.walk.walked();
  const orgs = new Map<number, OrgStanding>();
  for (const calc of walk.lasts)
    orgs.set(calc.orgId, {
      orgId: calc.orgId,
      org: calc.org,
      status: { drug: null, alcohol: null },
      verdict: { drug: null, alcohol: null },
      problems: calc.problems ?? [],
      rates: calc.rates,
    });
  for (const y of yearToDate(walk)) {
    const o = orgs.get(y.orgId);
    if (o !== undefined) o.status = { drug: y.drugStatus || null, alcohol: y.alcoholStatus || null };
  }
  for (const r of planRows(walk.lasts, planYear(f.s))) {
    const o = typeof r.orgId === 'number' ? orgs.get(r.orgId) : undefined;
    const kind = r.testType === 'drug' || r.testType === 'alcohol' ? r.testType : null;
    if (o !== undefined && kind !== null) o.verdict[kind] = typeof r.verdict === 'string' ? r.verdict : null;
  }
  return {
    orgs,
    policies: new Map(f.s.policies.map((p) => [p.org_id, p])),
    defaults: f.s.defaultsNote,
  };
}

/** Why an employer's statuses moved with no event in the world: its rates, or null. */
export type Rescored = 'policy imported' | 'policy changed' | 'policy removed' | 'rates changed';

/** What a policy says (the instant it was written aside). */
const policyKeys = policyColumns.filter((k) => k !== 'updated_at');

/** Whether two versions of a policy say the same (the instant written aside). */
export function samePolicy(a: PolicyVersion | undefined, b: PolicyVersion | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return policyKeys.every((k) => (a[k] ?? null) === (b[k] ?? null));
}

/** Whether an employer was scored on other rates at the two ends (either end absent: no). */
function otherRates(a: OrgStanding | undefined, b: OrgStanding | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return (
    a.rates.drug !== b.rates.drug ||
    a.rates.alcohol !== b.rates.alcohol ||
    a.rates.source !== b.rates.source ||
    a.rates.assumed !== b.rates.assumed
  );
}

/** Why the employer's statuses would move with nothing done: a policy imported or changed, other rates. */
export function rescoredBy(before: ComplianceSide, after: ComplianceSide, orgId: number): Rescored | null {
  const pa = before.policies.get(orgId);
  const pb = after.policies.get(orgId);
  if (!samePolicy(pa, pb))
    return pa === undefined ? 'policy imported' : pb === undefined ? 'policy removed' : 'policy changed';
  return otherRates(before.orgs.get(orgId), after.orgs.get(orgId)) ? 'rates changed' : null;
}

const pct = (v: number | null, agency: string | null) =>
  v === null ? (agency === null ? 'none' : `${agency}'s rate`) : `${v}%`;

/** A policy in words: program, agency, rates, and the months it scores. */
export function policyWords(p: PolicyVersion): string {
  const from = p.effective_from ?? null;
  return `${p.program}${p.agency === null ? '' : ` ${p.agency}`}: drug ${pct(p.rp_min_drug, p.agency)}, alcohol ${pct(p.rp_min_alc, p.agency)}; in force from ${from === null ? 'every month' : from} (recorded ${p.valid_from})`;
}
