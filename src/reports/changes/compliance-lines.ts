import type { PolicyVersion } from '../../mirror/index.js';
import { ASSUMED } from '../compliance/model.js';
import { complianceWords } from '../compliance/words.js';
import {
  type ComplianceSide,
  type OrgStanding,
  policyWords,
  type Rescored,
  rescoredBy,
  samePolicy,
} from './compliance-side.js';
import { type Change, evidence, type Severity } from './line.js';

/** How bad a compliance status is: the page's red ones above amber ones above the rest. */
const statusRank: Record<string, number> = {
  MET: 0,
  ON_TRACK: 0,
  'N/A': 0,
  PENDING_RESULTS: 1,
  NO_RATE: 1,
  AT_RISK: 2,
  BEHIND: 3,
  NOT_MET: 3,
};
/** A measured one of these is the compliance report's Action needed. */
const statusAction = new Set(['BEHIND', 'NOT_MET']);

/** How bad a catch-up verdict is. */
const verdictRank: Record<string, number> = {
  MET: 0,
  ON_PACE: 0,
  'N/A': 0,
  NEEDS_MORE: 1,
  NEEDS_REVIEW: 1,
  NOT_MET: 2,
  CANNOT_MEET: 2,
};
const verdictAction = new Set(['CANNOT_MEET', 'NOT_MET']);

/** A status or verdict cell: its code, and whether it rests on an assumed rate. */
function codeOf(t: string | null): { code: string; assumed: boolean } | null {
  if (t === null) return null;
  return t.endsWith(ASSUMED)
    ? { code: t.slice(0, -ASSUMED.length), assumed: true }
    : { code: t, assumed: false };
}

/** The severity of a code moving from `a` to `b` (either absent: the employer appeared or left). */
function movement(
  a: { code: string; assumed: boolean } | null,
  b: { code: string; assumed: boolean } | null,
  ranks: Record<string, number>,
  action: ReadonlySet<string>,
): Severity {
  const ra = a === null ? 0 : (ranks[a.code] ?? 1);
  const rb = b === null ? 0 : (ranks[b.code] ?? 1);
  if (rb > ra) return b !== null && action.has(b.code) && !b.assumed ? 'action' : 'worse';
  if (rb < ra) return 'better';
  return 'changed';
}

/** The status or verdict of a change of standing, and its severity and kind, re-scored or not. */
function standing(
  a: string | null,
  b: string | null,
  ranks: Record<string, number>,
  action: ReadonlySet<string>,
  kinds: { moved: string; rescored: string },
  why: Rescored | null,
): { severity: Severity; kind: string; after: string | null } {
  if (why === null)
    return { severity: movement(codeOf(a), codeOf(b), ranks, action), kind: kinds.moved, after: b };
  // Nothing happened in the world: the employer was scored on other rates. A measured failure
  // that appears is still Action needed, and says why.
  const ca = codeOf(a);
  const cb = codeOf(b);
  const failing = (c: { code: string; assumed: boolean } | null) =>
    c !== null && action.has(c.code) && !c.assumed;
  const failed = failing(cb) && !failing(ca);
  const said = cb === null ? '' : (complianceWords[cb.code] ?? cb.code).toLowerCase();
  const note = failed
    ? `; ${ca === null || ca.assumed ? 'measured for the first time' : 'measured'}: ${said}`
    : '';
  return {
    severity: failed ? 'action' : 'changed',
    kind: kinds.rescored,
    after: `${b ?? 'none'} (re-scored: ${why}${note})`,
  };
}

const SHEET = 'YTD by org';

/**
 * Compliance: a status per test type that changed (re-scored when the employer's policy or rates
 * changed in the period), and problems named that are new or gone.
 */
export function complianceChanges(before: ComplianceSide, after: ComplianceSide): Change[] {
  const out: Change[] = [];
  for (const orgId of new Set([...before.orgs.keys(), ...after.orgs.keys()])) {
    const ra = before.orgs.get(orgId);
    const rb = after.orgs.get(orgId);
    const org = rb?.org ?? ra?.org ?? null;
    const ev = (r: OrgStanding | undefined) =>
      r === undefined ? null : evidence('compliance', SHEET, { orgId });
    const why = rescoredBy(before, after, orgId);
    for (const kind of ['drug', 'alcohol'] as const) {
      const sa = ra?.status[kind] ?? null;
      const sb = rb?.status[kind] ?? null;
      if (sa === sb) continue;
      const moved = standing(sa, sb, statusRank, statusAction, STATUS_KINDS, why);
      out.push({
        ...moved,
        area: 'compliance',
        orgId,
        org,
        subject: kind,
        before: sa,
        evidenceBefore: ev(ra),
        evidenceAfter: ev(rb),
        count: 1,
      });
    }
    out.push(...problemChanges(ra, rb, orgId, org, ev));
  }
  return out;
}

const STATUS_KINDS = { moved: 'COMPLIANCE_STATUS', rescored: 'COMPLIANCE_RESCORED' };
const VERDICT_KINDS = { moved: 'CATCH_UP_VERDICT', rescored: 'CATCH_UP_RESCORED' };

/**
 * A policy imported, changed or removed in the period: one line per employer, whose, which rates,
 * in force from when (its effective date, and the instant the mirror recorded it).
 */
export function policyChanges(before: ComplianceSide, after: ComplianceSide): Change[] {
  const out: Change[] = [];
  for (const orgId of new Set([...before.policies.keys(), ...after.policies.keys()])) {
    const pa = before.policies.get(orgId);
    const pb = after.policies.get(orgId);
    if (samePolicy(pa, pb)) continue;
    const org = after.orgs.get(orgId)?.org ?? before.orgs.get(orgId)?.org ?? null;
    const ev = (p: PolicyVersion | undefined) =>
      p === undefined ? null : `org_policy · org_id ${orgId}, recorded ${p.valid_from}`;
    out.push({
      severity: 'changed',
      area: 'compliance',
      kind: pa === undefined ? 'POLICY_IMPORTED' : pb === undefined ? 'POLICY_REMOVED' : 'POLICY_CHANGED',
      orgId,
      org,
      subject: 'rate policy',
      before: pa === undefined ? `no policy: assumed rates (${before.defaults})` : policyWords(pa),
      after: pb === undefined ? `no policy: assumed rates (${after.defaults})` : policyWords(pb),
      evidenceBefore: ev(pa),
      evidenceAfter: ev(pb),
      count: 1,
    });
  }
  return out;
}

/** A problem's kind: its words with the months and counts taken out (a month added is the same kind). */
function problemKind(text: string): string {
  return text
    .replace(/\d+(,\s*\d+)*/g, '#')
    .replace(/months?/g, 'month')
    .replace(/rows?/g, 'row');
}

function problemsOf(r: OrgStanding | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of r?.problems ?? []) out.set(problemKind(p.text), p.text);
  return out;
}

function problemChanges(
  ra: OrgStanding | undefined,
  rb: OrgStanding | undefined,
  orgId: number,
  org: string | null,
  ev: (r: OrgStanding | undefined) => string | null,
): Change[] {
  const pa = problemsOf(ra);
  const pb = problemsOf(rb);
  const out: Change[] = [];
  for (const kind of new Set([...pa.keys(), ...pb.keys()])) {
    const before = pa.get(kind) ?? null;
    const after = pb.get(kind) ?? null;
    if (before === after) continue;
    out.push({
      severity: after === null ? 'better' : 'worse',
      area: 'compliance',
      kind: after === null ? 'PROBLEM_GONE' : before === null ? 'PROBLEM_NEW' : 'PROBLEM_CHANGED',
      orgId,
      org,
      subject: 'data problem',
      before,
      after,
      evidenceBefore: before === null ? null : ev(ra),
      evidenceAfter: after === null ? null : ev(rb),
      count: 1,
    });
  }
  return out;
}

/** Catch-up: a verdict per employer and test type that changed (re-scored as compliance's statuses are). */
export function catchUpChanges(before: ComplianceSide, after: ComplianceSide): Change[] {
  const out: Change[] = [];
  for (const orgId of new Set([...before.orgs.keys(), ...after.orgs.keys()])) {
    const ra = before.orgs.get(orgId);
    const rb = after.orgs.get(orgId);
    const why = rescoredBy(before, after, orgId);
    for (const testType of ['drug', 'alcohol'] as const) {
      const va = ra?.verdict[testType] ?? null;
      const vb = rb?.verdict[testType] ?? null;
      if (va === vb) continue;
      const ev = (r: OrgStanding | undefined) =>
        r === undefined || r.verdict[testType] === null
          ? null
          : evidence('catch-up', 'Catch-up plan', { orgId, testType });
      out.push({
        ...standing(va, vb, verdictRank, verdictAction, VERDICT_KINDS, why),
        area: 'compliance',
        orgId,
        org: rb?.org ?? ra?.org ?? null,
        subject: testType,
        before: va,
        evidenceBefore: ev(ra),
        evidenceAfter: ev(rb),
        count: 1,
      });
    }
  }
  return out;
}
