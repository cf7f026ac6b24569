import type { OrgPolicyTable } from '../../mirror/index.js';
import type { Row } from '../../render/types.js';
import { withDescendants } from '../core/params.js';
import { compareOrgs } from '../core/values.js';
import { kindCells, orgFigures } from './cells.js';
import {
  annualTarget,
  type ComplianceStatus,
  expectedNumerator,
  ratePercent,
  statusOf,
  statusRank,
} from './math.js';
import {
  type Kind,
  type KindFigures,
  kinds,
  type MonthCalc,
  type OrgCalc,
  type Program,
  programs,
} from './model.js';
import type { ComplianceOptions } from './options.js';

/**
 * Rollups: a parent (org_policy.parent_org_id) with members of the report; one per program,
 * since DOT and non-DOT orgs never share a pool.
 */
export function rollupsOf(
  policies: readonly OrgPolicyTable[],
  parentOf: Map<number, number | null>,
  names: Map<number, string | null>,
  scope: Set<number> | null,
  calcs: readonly OrgCalc[],
  opts: ComplianceOptions,
  m: number,
  year: number,
): Row[] {
  const inProgram = (p: Program) => opts.program === 'all' || opts.program === p;
  const calcOf = new Map(calcs.map((c) => [c.orgId, c]));
  const rollups: Row[] = [];
  const parents = [...new Set(policies.map((p) => p.parent_org_id).filter((p): p is number => p !== null))]
    .filter((p) => scope === null || scope.has(p))
    .map((p) => ({ orgId: p, org: names.get(p) ?? null }))
    .sort(compareOrgs);
  for (const parent of parents) {
    const family = [...withDescendants([parent.orgId], parentOf)];
    for (const program of programs) {
      if (!inProgram(program)) continue;
      const members = family
        .map((id) => calcOf.get(id))
        .filter((c): c is OrgCalc => c !== undefined && c.rates.program === program);
      if (!members.some((c) => c.orgId !== parent.orgId)) continue;
      members.sort((a, b) => a.orgId - b.orgId);
      rollups.push(...rollupRows(parent.orgId, parent.org, program, members, opts.rollupMode, m, year));
    }
  }

  return rollups;
}

/**
 * The worst own status of the members at a month (N/A and members without a rate ignored) and
 * the members below ON_TRACK, as `name (id) STATUS completed/target`.
 */
function worstMember(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
  month: number,
): { status: string; below: string[] } {
  let worst: ComplianceStatus | null = null;
  const below: string[] = [];
  for (const { calc, mc } of members) {
    const own = orgFigures(calc, mc, kind);
    if (own.target === null || own.expectedNum === null) continue;
    const st = statusOf(month, own.target, own.expectedNum, own.pickedYtd, own.completedYtd, mc.exposure);
    if (st === 'N/A') {
      // A member with no pool so far is not judged, but listed, never dropped.
      below.push(`${calc.org ?? 'org'} (${calc.orgId}) N/A (pool 0)`);
      continue;
    }
    if (worst === null || statusRank[st] < statusRank[worst]) worst = st;
    if (statusRank[st] < statusRank.ON_TRACK)
      below.push(`${calc.org ?? 'org'} (${calc.orgId}) ${st} ${own.completedYtd}/${own.target}`);
  }
  return {
    status:
      worst ?? (kind === 'drug' && members.every((x) => x.calc.rates.drug === null) ? 'NO_RATE' : 'N/A'),
    below,
  };
}

/** Figures of a kind before any member is added: no counts, no rate. */
function noFigures(kind: Kind): KindFigures {
  return {
    picked: 0,
    completed: 0,
    pickedYtd: 0,
    completedYtd: 0,
    ratePercent: null,
    target: null,
    expectedNum: null,
    noRate: kind === 'drug' ? 'NO_RATE' : 'N/A',
  };
}

/** Sums the figures of several orgs of one kind at a month (sumOfChildren). */
function sumFigures(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
): { f: KindFigures; partial: boolean } {
  const f = noFigures(kind);
  let partial = false;
  for (const { calc, mc } of members) {
    const own = orgFigures(calc, mc, kind);
    if (own.target === null || own.expectedNum === null) {
      partial = true;
      continue;
    }
    f.picked += own.picked;
    f.completed += own.completed;
    f.pickedYtd += own.pickedYtd;
    f.completedYtd += own.completedYtd;
    f.target = (f.target ?? 0) + own.target;
    f.expectedNum = (f.expectedNum ?? 0n) + own.expectedNum;
  }
  return { f, partial: partial && f.target !== null };
}

/** Pools and counts added, the highest member rate used (combinedPool, a C/TPA pool). */
function combinedFigures(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
  month: number,
  pool: number,
  exposure: number,
): KindFigures {
  let units: bigint | null = null;
  const f = noFigures(kind);
  for (const { calc, mc } of members) {
    const r = calc.rates[kind];
    if (r !== null && r > 0n && (units === null || r > units)) units = r;
    f.picked += mc[kind].picked;
    f.completed += mc[kind].completed;
    f.pickedYtd += mc[kind].pickedYtd;
    f.completedYtd += mc[kind].completedYtd;
  }
  if (units !== null) {
    f.ratePercent = ratePercent(units);
    f.target = annualTarget(units, exposure, pool, month);
    f.expectedNum = expectedNumerator(units, exposure);
  }
  return f;
}

function rollupRows(
  parent: number,
  parentName: string | null,
  program: Program,
  members: OrgCalc[],
  mode: 'sumOfChildren' | 'combinedPool',
  m: number,
  year: number,
): Row[] {
  const rows: Row[] = [];
  for (let i = 1; i <= m; i++) {
    const at = members.map((calc) => ({ calc, mc: calc.months[i - 1] as MonthCalc }));
    const pool = at.reduce((s, x) => s + x.mc.pool, 0);
    const exposure = at.reduce((s, x) => s + x.mc.exposure, 0);
    const flags = new Set<string>();
    for (const x of at) for (const f of x.mc.flags) if (f !== 'NO_POOL' && f !== 'NO_RATE') flags.add(f);
    if (exposure === 0) flags.add('NO_POOL');
    const row: Row = {
      orgId: parent,
      org: parentName,
      program,
      rollupMode: mode,
      members: members.map((c) => c.orgId).join(';'),
      year,
      month: i,
      pool,
      exposure,
    };
    for (const kind of kinds) {
      let f: KindFigures;
      if (mode === 'sumOfChildren') {
        const s = sumFigures(at, kind);
        f = s.f;
        if (s.partial) flags.add(`PARTIAL_${kind.toUpperCase()}_RATES`);
      } else f = combinedFigures(at, kind, i, pool, exposure);
      if (kind === 'drug' && f.target === null) flags.add('NO_RATE');
      kindCells(kind, i, exposure, f, row);
      // Each employer outside a consortium meets its own rate (49 CFR 382.305): in sumOfChildren
      // the summed figures are for information and the status is the worst member's. In a
      // combined pool the pool's status stands, and the weakest members are still named.
      const worst = worstMember(at, kind, i);
      if (mode === 'sumOfChildren') row[`${kind}Status`] = worst.status;
      row[`${kind}MembersBelow`] = worst.below.length === 0 ? null : worst.below.join('; ');
    }
    row.flags = flags.size === 0 ? null : [...flags].join(';');
    rows.push(row);
  }
  return rows;
}
