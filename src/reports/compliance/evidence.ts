import type { Column, Row } from '../../render/types.js';
import { complianceWords, statusSaid } from './words.js';

/**
 * The compliance summaries an auditor reads first, built from the YTD rows (one per
 * org, so they cost nothing per org-month): the one-page list of problems, failing employers
 * first, and the MIS random-testing figures per employer (a DOT MIS is per employer).
 */

/** Statuses of a measured failure (the red ones), and the suffix of a status on an assumed rate. */
const FAILING = new Set(['NOT_MET', 'BEHIND', 'AT_RISK']);
const ASSUMED_SUFFIX = ' (assumed rate)';

const kinds = ['drug', 'alcohol'] as const;

function statusText(row: Row, kind: (typeof kinds)[number]): string {
  const v = row[`${kind}Status`];
  return typeof v === 'string' ? v : '';
}

/** A failing status of a kind: 'measured', 'assumed' (on an assumed rate), or null. */
function failing(row: Row): 'measured' | 'assumed' | null {
  let assumed = false;
  for (const kind of kinds) {
    const st = statusText(row, kind);
    const bare = st.endsWith(ASSUMED_SUFFIX) ? st.slice(0, -ASSUMED_SUFFIX.length) : st;
    if (!FAILING.has(bare)) continue;
    if (bare === st) return 'measured';
    assumed = true;
  }
  return assumed ? 'assumed' : null;
}

/** YTD rows with measured failures first, then failures on assumed rates, then the rest (stable). */
export function failingFirst(rows: readonly Row[]): Row[] {
  const rank = (r: Row) => {
    const f = failing(r);
    return f === 'measured' ? 0 : f === 'assumed' ? 1 : 2;
  };
  return rows
    .map((row, i) => ({ row, i, rank: rank(row) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.row);
}

export const problemColumns: Column[] = [
  { key: 'problem', title: 'Problem', type: 'string', width: 48, words: complianceWords },
  { key: 'count', title: 'Count', type: 'integer', width: 8 },
  // The orgs with their statuses ("drug BEHIND (assumed rate)"): the statuses in words.
  { key: 'orgs', title: 'Orgs (first 12)', type: 'string', width: 70, words: statusSaid },
];

const EXAMPLES = 12;

function named(rows: Row[], detail?: (r: Row) => string): string | null {
  if (rows.length === 0) return null;
  const list = rows
    .slice(0, EXAMPLES)
    .map(
      (r) => `${String(r.org ?? 'org')} (${String(r.orgId)})${detail === undefined ? '' : ` ${detail(r)}`}`,
    );
  return `${list.join('; ')}${rows.length > EXAMPLES ? `; ... ${rows.length - EXAMPLES} more` : ''}`;
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const statuses = (r: Row) => `drug ${statusText(r, 'drug')}, alcohol ${statusText(r, 'alcohol')}`;

/**
 * The one-page list of problems (the first sheet): orgs on an assumed rate first, then the
 * measured failures, then the evidence gaps. Counts over all orgs; at most 12 named per line.
 */
export function problemRows(ytd: readonly Row[], year: number, m: number): Row[] {
  const assumed = ytd.filter((r) => String(r.rateSource ?? '').includes('default'));
  const measured = ytd.filter((r) => failing(r) === 'measured');
  const onAssumed = ytd.filter((r) => failing(r) === 'assumed');
  const notCompleted = ytd.filter((r) => num(r.monthsPicksNotCompleted) > 0);
  const noSelection = ytd.filter((r) => r.quartersWithoutSelection != null);
  const noCovered = ytd.filter((r) => num(r.monthsWithoutCoveredList) > 0);
  const gaps = ytd.filter((r) => String(r.flags ?? '').includes('DATA_GAP'));
  const checks = ytd.filter((r) => String(r.flags ?? '').includes('DATA_CHECK'));
  const labels = ytd.filter((r) => num(r.unreadableLabels) > 0);
  const sum = (rows: Row[], key: string) => rows.reduce((s, r) => s + num(r[key]), 0);
  return [
    {
      problem: `Orgs scored on an assumed rate (no policy or no agency): status "...${ASSUMED_SUFFIX}", not a finding`,
      count: assumed.length,
      orgs: named(assumed, (r) => String(r.rateSource)),
    },
    {
      problem: `Employers failing on their own rate (NOT_MET / BEHIND / AT_RISK), ${year} through month ${m}`,
      count: measured.length,
      orgs: named(measured, statuses),
    },
    {
      problem: 'Orgs behind on an assumed rate only (would need their policy to tell)',
      count: onAssumed.length,
      orgs: named(onAssumed, statuses),
    },
    {
      problem: `Org-months before month ${m} whose picks were never completed (${sum(notCompleted, 'picksNotCompleted')} picks)`,
      count: sum(notCompleted, 'monthsPicksNotCompleted'),
      orgs: named(notCompleted, (r) => `${num(r.picksNotCompleted)} picks`),
    },
    {
      problem: 'Quarters with no random selection (pool above 0)',
      count: noSelection.reduce((s, r) => s + String(r.quartersWithoutSelection).split(';').length, 0),
      orgs: named(noSelection, (r) => String(r.quartersWithoutSelection)),
    },
    {
      problem: 'Months with an OrgMonth row and no covered-employee list in the mirror',
      count: sum(noCovered, 'monthsWithoutCoveredList'),
      orgs: named(noCovered, (r) => `${num(r.monthsWithoutCoveredList)} months`),
    },
    {
      problem: 'Orgs with a month missing (pool carried forward, DATA_GAP)',
      count: gaps.length,
      orgs: named(gaps),
    },
    {
      problem: 'Orgs with results above picks, or picks with pool 0 (DATA_CHECK)',
      count: checks.length,
      orgs: named(checks),
    },
    {
      problem: 'OrgMonth rows whose label is no month (not used)',
      count: sum(labels, 'unreadableLabels'),
      orgs: named(labels, (r) => `${num(r.unreadableLabels)} rows`),
    },
  ];
}

export const misColumns: Column[] = [
  { key: 'agency', title: 'Agency', type: 'string', width: 10 },
  { key: 'orgId', title: 'Employer id', type: 'integer', width: 9 },
  { key: 'org', title: 'Employer', type: 'string', width: 32 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'throughMonth', title: 'Through month', type: 'integer', width: 8 },
  {
    key: 'averagePool',
    title: 'Average covered employees (pool) of the months passed (none projected)',
    type: 'number',
    decimals: 2,
    width: 14,
  },
  ...kinds.flatMap((kind): Column[] => {
    const title = kind === 'drug' ? 'Drug' : 'Alcohol';
    return [
      {
        key: `${kind}Required`,
        title: `${title} random tests required for the year (rate × projected average pool)`,
        type: 'integer',
        width: 12,
      },
      { key: `${kind}Completed`, title: `${title} random tests completed`, type: 'integer', width: 12 },
      {
        key: `${kind}RateAchieved`,
        title: `${title} rate achieved to date (completed ÷ average pool of the months passed)`,
        type: 'percent',
        width: 10,
      },
      {
        key: `${kind}Status`,
        title: `${title} status`,
        type: 'string',
        width: 16,
        alert: { red: ['NOT_MET', 'BEHIND', 'AT_RISK'], amber: ['PENDING_RESULTS'] },
      },
    ];
  }),
  { key: 'failingEmployers', title: 'Failing employers (total rows)', type: 'string', width: 50 },
];

/**
 * The MIS random-testing figures of DOT employers, one row per employer (a DOT MIS is filed per
 * employer), failing employers first. The average of covered employees and the rate achieved are
 * of the months that have passed (no projected month); the tests required are the year's target
 * (on the projected average pool, as the status is). Then, then per agency a total row named for what it is (a sum of
 * employers, for information) with the failing employers beside it.
 */
export function misRows(ytd: readonly Row[], year: number, m: number): Row[] {
  const dot = ytd.filter((r) => r.program === 'DOT');
  const agencies = [...new Set(dot.map((r) => String(r.agency ?? '(none)')))].sort();
  const out: Row[] = [];
  for (const agency of agencies) {
    const list = dot.filter((r) => String(r.agency ?? '(none)') === agency);
    const total: Row = {
      agency,
      org: `Total ${agency}: sum of ${list.length} employers (information only; each employer meets its own rate)`,
      year,
      throughMonth: m,
      averagePool: 0,
    };
    for (const r of list) {
      const row: Row = {
        agency,
        orgId: r.orgId,
        org: r.org,
        year,
        throughMonth: m,
        // The months that have passed only: a projected month is no covered employee yet.
        averagePool: r.avgPoolYtd,
      };
      total.averagePool = num(total.averagePool) + num(r.avgPoolYtd);
      for (const kind of kinds) {
        const required = r[`${kind}AnnualTarget`];
        const done = num(r[`${kind}CompletedYtd`]);
        row[`${kind}Required`] = required;
        row[`${kind}Completed`] = done;
        row[`${kind}RateAchieved`] = num(r.avgPoolYtd) === 0 ? null : done / num(r.avgPoolYtd);
        row[`${kind}Status`] = r[`${kind}Status`];
        if (typeof required === 'number') {
          total[`${kind}Required`] = num(total[`${kind}Required`]) + required;
          total[`${kind}Completed`] = num(total[`${kind}Completed`]) + done;
        }
      }
      out.push(row);
    }
    const avg = num(total.averagePool);
    for (const kind of kinds)
      total[`${kind}RateAchieved`] = avg === 0 ? null : num(total[`${kind}Completed`]) / avg;
    const failingList = list.filter((r) => failing(r) !== null);
    total.failingEmployers =
      failingList.length === 0
        ? `0 of ${list.length} failing`
        : `${failingList.length} of ${list.length} failing: ${named(failingList, statuses)}`;
    out.push(total);
  }
  return out;
}
