import type { Kysely } from 'kysely';
import { type Database, policyVersionsAsOf } from '../../mirror/index.js';
import type { Column, Row, Sheet } from '../../render/types.js';
import {
  type MonthEnd,
  monthEnds,
  omittedNote,
  TREND_MONTHS,
  TREND_SHEET,
  trendColumns,
  trendNoteColumn,
  trendRowsEach,
} from '../core/ar-trend.js';
import type { CommonParams } from '../core/params.js';
import { asNumber } from '../core/values.js';
import { Collector } from './collector.js';
import { type ComplianceStatus, statusRank } from './math.js';
import { ASSUMED, kinds, type OrgRates, type Program } from './model.js';
import { monthsByOrg } from './month-inputs.js';
import { yearRates } from './month-rates.js';
import { computeOrg } from './org-calc.js';
import { ORGS_PER_QUERY, orgMonthOrgs, orgMonthRows } from './queries.js';
import { ytdRow } from './rows.js';

/** The statuses the Trend sheet counts, worst last (an org's is the worse of its two kinds). */
const trendStatuses: readonly ComplianceStatus[] = [
  'MET',
  'ON_TRACK',
  'PENDING_RESULTS',
  'AT_RISK',
  'BEHIND',
  'NOT_MET',
  'N/A',
];
const trendKey = (s: ComplianceStatus) => (s === 'N/A' ? 'noStatus' : s);

export const complianceTrendColumns: Column[] = [
  ...trendColumns,
  { key: 'orgs', title: 'Orgs scored', type: 'integer', width: 8 },
  ...trendStatuses.map(
    (s): Column => ({
      key: trendKey(s),
      title: s === 'N/A' ? 'N/A (no pool or rate)' : s,
      type: 'integer',
      width: 10,
    }),
  ),
  { key: 'assumed', title: 'Of them on an assumed rate', type: 'integer', width: 12 },
  { key: 'drugCompletedYtd', title: 'Drug completed YTD', type: 'integer', width: 11 },
  { key: 'drugExpectedToDate', title: 'Drug required to date', type: 'number', decimals: 2, width: 11 },
  { key: 'alcoholCompletedYtd', title: 'Alcohol completed YTD', type: 'integer', width: 11 },
  { key: 'alcoholExpectedToDate', title: 'Alcohol required to date', type: 'number', decimals: 2, width: 11 },
  trendNoteColumn,
];

/**
 * An org's status in a YTD row: the worse (docs/reports.md ranks) of its drug and alcohol
 * statuses, without "(assumed rate)"; N/A when neither has one (no pool, no rate).
 */
export function orgStatus(row: Row): ComplianceStatus {
  let worst: ComplianceStatus = 'N/A';
  for (const kind of kinds) {
    const text = String(row[`${kind}Status`] ?? '');
    const bare = text.endsWith(ASSUMED) ? text.slice(0, -ASSUMED.length) : text;
    const status = trendStatuses.find((s) => s === bare) ?? 'N/A';
    if (statusRank[status] < statusRank[worst]) worst = status;
  }
  return worst;
}

export interface TrendScope {
  year: number;
  m: number;
  defaults: OrgRates;
  scope: Set<number> | null;
  inProgram: (p: Program) => boolean;
}

/**
 * The org statuses at one month end, scored as of it with the report's own per-org maths on the
 * OrgMonth rows the mirror held at `end.instant`, ORGS_PER_QUERY orgs at a time (memory by org).
 */
export async function trendAt(db: Kysely<Database>, t: TrendScope, end: MonthEnd): Promise<Row> {
  const warn = new Collector(); // the report warns of the present; a past month end's are not repeated
  const m = end.day.month;
  const row: Row = { orgs: 0, assumed: 0 };
  for (const s of trendStatuses) row[trendKey(s)] = 0;
  const sums = {
    drugCompletedYtd: 0,
    drugExpectedToDate: 0,
    alcoholCompletedYtd: 0,
    alcoholExpectedToDate: 0,
  };
  const ids = (await orgMonthOrgs(db, end.instant)).filter((id) => t.scope === null || t.scope.has(id));
  // The policies in force at that month end, as the OrgMonth rows are.
  const versionsOf = await policyVersionsAsOf(db, end.instant);
  for (let k = 0; k < ids.length; k += ORGS_PER_QUERY) {
    const rows = await orgMonthRows(db, ids.slice(k, k + ORGS_PER_QUERY), end.instant);
    for (const [orgId, months] of monthsByOrg(rows, new Map(), null, t.year, m, warn)) {
      const { rates, byMonth } = yearRates(versionsOf.get(orgId), t.year, m, t.defaults, warn);
      if (!t.inProgram(rates.program)) continue;
      const ytd = ytdRow(computeOrg(orgId, null, months, m, t.year, rates, warn, byMonth), t.year);
      const status = orgStatus(ytd);
      row.orgs = Number(row.orgs) + 1;
      row[trendKey(status)] = Number(row[trendKey(status)]) + 1;
      if (rates.assumed && status !== 'N/A') row.assumed = Number(row.assumed) + 1;
      for (const key of Object.keys(sums) as (keyof typeof sums)[]) sums[key] += asNumber(ytd[key]) ?? 0;
    }
  }
  return { ...row, ...sums };
}

/**
 * Compliance at each past month end of the report's year (at most TREND_MONTHS), as the mirror
 * knew it at the end of that day (sheet Trend and its CSV); month ends before the mirror's
 * history are omitted (ar-trend.ts). One month end is read at a time.
 */
export async function complianceTrend(db: Kysely<Database>, common: CommonParams, t: TrendScope) {
  const anchor = t.year < common.asOf.year ? { year: t.year, month: 12, day: 31 } : common.asOf;
  const ends = monthEnds(anchor, common.timezone, TREND_MONTHS).filter(
    (e) => e.day.year === t.year && e.day.month <= t.m,
  );
  const trend = await trendRowsEach(db, ends, (end) => trendAt(db, t, end));
  const about: [string, string] = [
    'Trend',
    `Orgs per status (the worse of drug and alcohol) and tests completed against required, at each past month end of ${t.year} (up to ${TREND_MONTHS}), scored as of that day on the OrgMonth rows the mirror held at its end (its history); the policies in force at that month end (sheet Trend; CSV compliance-trend-DATE.csv)${omittedNote(trend)}`,
  ];
  const sheet: Sheet = {
    name: TREND_SHEET,
    columns: complianceTrendColumns,
    rows: trend.rows,
    totals: 'none',
  };
  return { ...trend, sheet, about };
}
