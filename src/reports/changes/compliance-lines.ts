import type { Row } from '../../render/types.js';
import { ASSUMED } from '../compliance/model.js';
import { type Change, evidence, numOf, type Severity, textOf } from './line.js';
import type { BaseResult } from './sides.js';

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
function codeOf(v: Row[string]): { code: string; assumed: boolean } | null {
  const t = textOf(v);
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

const orgKey = (r: Row) => (typeof r.orgId === 'number' ? String(r.orgId) : null);

/** YTD rows by org (the total rows have no org id). */
function ytd(result: BaseResult): Map<string, Row> {
  const out = new Map<string, Row>();
  for (const r of result.sheets.get('YTD by org') ?? []) {
    const k = orgKey(r);
    if (k !== null) out.set(k, r);
  }
  return out;
}

/** Compliance: a status per test type that changed, and problems named that are new or gone. */
export function complianceChanges(before: BaseResult, after: BaseResult): Change[] {
  const a = ytd(before);
  const b = ytd(after);
  const out: Change[] = [];
  const sheet = 'YTD by org';
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const ra = a.get(key);
    const rb = b.get(key);
    const orgId = Number(key);
    const org = textOf(rb?.org) ?? textOf(ra?.org);
    const ev = (r: Row | undefined) => (r === undefined ? null : evidence('compliance', sheet, { orgId }));
    for (const kind of ['drug', 'alcohol'] as const) {
      const sa = textOf(ra?.[`${kind}Status`]);
      const sb = textOf(rb?.[`${kind}Status`]);
      if (sa === sb) continue;
      out.push({
        severity: movement(codeOf(sa), codeOf(sb), statusRank, statusAction),
        area: 'compliance',
        kind: 'COMPLIANCE_STATUS',
        orgId,
        org,
        subject: kind,
        before: sa,
        after: sb,
        evidenceBefore: ev(ra),
        evidenceAfter: ev(rb),
        count: 1,
      });
    }
    out.push(...problemChanges(ra, rb, orgId, org, ev));
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

function problemsOf(r: Row | undefined): Map<string, string> {
  const t = textOf(r?.problems);
  const out = new Map<string, string>();
  if (t === null) return out;
  for (const p of t.split('; ')) out.set(problemKind(p), p);
  return out;
}

function problemChanges(
  ra: Row | undefined,
  rb: Row | undefined,
  orgId: number,
  org: string | null,
  ev: (r: Row | undefined) => string | null,
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

/** Catch-up: a verdict per employer and test type that changed. */
export function catchUpChanges(before: BaseResult, after: BaseResult): Change[] {
  const key = (r: Row) =>
    typeof r.orgId === 'number' && typeof r.testType === 'string' ? `${r.orgId}\u0000${r.testType}` : null;
  const index = (rows: readonly Row[]) => {
    const m = new Map<string, Row>();
    for (const r of rows) {
      const k = key(r);
      if (k !== null) m.set(k, r);
    }
    return m;
  };
  const a = index(before.detail.rows);
  const b = index(after.detail.rows);
  const out: Change[] = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const ra = a.get(k);
    const rb = b.get(k);
    const va = textOf(ra?.verdict);
    const vb = textOf(rb?.verdict);
    if (va === vb) continue;
    const any = (rb ?? ra) as Row;
    const orgId = numOf(any.orgId);
    const testType = String(any.testType);
    const ev = (r: Row | undefined) =>
      r === undefined ? null : evidence('catch-up', after.detail.name, { orgId: orgId ?? '', testType });
    out.push({
      severity: movement(codeOf(va), codeOf(vb), verdictRank, verdictAction),
      area: 'compliance',
      kind: 'CATCH_UP_VERDICT',
      orgId,
      org: textOf(rb?.org) ?? textOf(ra?.org),
      subject: testType,
      before: va,
      after: vb,
      evidenceBefore: ev(ra),
      evidenceAfter: ev(rb),
      count: 1,
    });
  }
  return out;
}
