import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import type { Column, Row } from '../../render/types.js';
import { verdictOf } from '../compliance/plan.js';
import { rateBasis } from '../compliance/rates.js';

/**
 * What an auditor asks of a packet beyond the reports' own rows: when the mirror first observed
 * each month's figures, and a verdict per test type with the source of its rate and the rate
 * achieved to date (index.ts puts them in to evidence.csv and verdicts.csv, the cover shows them).
 */

type Versions = Kysely<
  Database & { h_orgmonth: { id: number; valid_from: string; valid_to: string | null } }
>;

/**
 * Per OrgMonth id: when the mirror first observed the record, and since when it held the figures
 * the packet shows (the version in force at the instant). Empty without history (`at` undefined).
 */
export async function firstObserved(
  db: Kysely<Database>,
  detail: readonly Row[],
  at: string | undefined,
): Promise<Map<number, { firstObservedAt: string; figuresSince: string | null }>> {
  const ids = detail.map((r) => Number(r.orgMonthId)).filter((id) => Number.isInteger(id) && id > 0);
  const out = new Map<number, { firstObservedAt: string; figuresSince: string | null }>();
  if (at === undefined || ids.length === 0) return out;
  const rows = await (db as unknown as Versions)
    .selectFrom('h_orgmonth')
    .select(['id', 'valid_from', 'valid_to'])
    .where('id', 'in', ids)
    .where('valid_from', '<=', at)
    .orderBy('id')
    .orderBy('valid_from')
    .execute();
  for (const r of rows) {
    const id = Number(r.id);
    const held = r.valid_to === null || r.valid_to > at;
    const seen = out.get(id);
    if (seen === undefined)
      out.set(id, { firstObservedAt: r.valid_from, figuresSince: held ? r.valid_from : null });
    else if (held) seen.figuresSince = r.valid_from;
  }
  return out;
}

export const verdictColumns: Column[] = [
  { key: 'testType', title: 'Test type', type: 'string' },
  { key: 'verdict', title: 'Verdict', type: 'string' },
  { key: 'basis', title: 'Measured or assumed', type: 'string' },
  { key: 'complianceStatus', title: 'Compliance status', type: 'string' },
  { key: 'rate', title: 'Rate %', type: 'number', decimals: 1 },
  { key: 'rateSource', title: 'Rate source (the report’s code)', type: 'string' },
  { key: 'rateBasis', title: 'Where the rate comes from', type: 'string' },
  { key: 'annualTarget', title: 'Annual target', type: 'integer' },
  { key: 'completedYtd', title: 'Completed YTD', type: 'integer' },
  { key: 'averagePool', title: 'Average pool of the months passed', type: 'number', decimals: 2 },
  {
    key: 'rateAchievedToDate',
    title: 'Rate achieved to date (completed ÷ average pool of the months passed)',
    type: 'percent',
  },
  { key: 'quartersWithoutSelection', title: 'Quarters without a selection', type: 'string' },
  { key: 'problems', title: 'Problems named', type: 'string' },
];

const verdictWords: Record<string, string> = {
  MET: 'MET',
  NOT_MET: 'NOT_MET',
  ON_PACE: 'on pace',
  NEEDS_MORE: 'needs more picks',
  NEEDS_REVIEW: 'needs review (data problem)',
  CANNOT_MEET: 'cannot meet',
  'N/A': 'N/A (no pool or no rate)',
};

/** Where a rate comes from, in words: the employer's policy, its agency's minimum, or the default. */
function rateBasisWords(rateSource: string, agency: string | null, year: number): string {
  const parts: string[] = [];
  if (rateSource.includes('policy:')) parts.push('the employer’s own policy rate');
  if (agency !== null && (rateSource.includes('agency') || rateSource.includes('default')))
    parts.push(rateBasis(agency, year));
  if (rateSource.includes('default'))
    parts.unshift('ASSUMED: no policy in force for some or all months, the configured default agency’s rate');
  return parts.length === 0 ? rateSource : parts.join('; ');
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);

/** One row per test type: the plan's verdict, measured or assumed, the rate's source, the rate achieved. */
export function verdictRows(ytd: Row | undefined, plan: readonly Row[], year: number): Row[] {
  if (ytd === undefined) return [];
  return (['drug', 'alcohol'] as const).map((kind) => {
    const line = plan.find((p) => p.testType === kind);
    const v = verdictOf(line?.verdict);
    const avg = num(ytd.avgPoolYtd);
    const source = String(ytd.rateSource ?? '');
    return {
      testType: kind,
      verdict: verdictWords[v.verdict] ?? v.verdict,
      basis: v.assumed ? 'assumed rate' : 'measured (own rate)',
      complianceStatus: ytd[`${kind}Status`] ?? null,
      rate: ytd[`${kind}Rate`] ?? null,
      rateSource: source,
      rateBasis: rateBasisWords(source, typeof ytd.agency === 'string' ? ytd.agency : null, year),
      annualTarget: ytd[`${kind}AnnualTarget`] ?? null,
      completedYtd: ytd[`${kind}CompletedYtd`] ?? null,
      averagePool: avg,
      rateAchievedToDate: avg === 0 ? null : num(ytd[`${kind}CompletedYtd`]) / avg,
      quartersWithoutSelection: ytd.quartersWithoutSelection ?? null,
      problems: ytd.problems ?? null,
    };
  });
}

/** What the service does not give, so no packet can show it (said on the cover). */
export const NOT_GIVEN =
  'The service does not give, and this packet therefore cannot show: who was selected and when (only counts of picks per month), specimen collection dates, MIS result categories (negative, positive, refusal, cancelled), alternates and excusals, or Clearinghouse queries. Those records are kept by the collector, the MRO and the employer; ask for them separately.';
