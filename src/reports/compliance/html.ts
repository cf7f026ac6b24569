import { basisBars } from '../../render/html/charts.js';
import {
  type Chart,
  count,
  countFigure,
  coveredMonthEnds,
  type Figure,
  level,
  monthEndBars,
  num,
  palette,
  type StatusCount,
  type SummaryBuilder,
  withAssumed,
} from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { statusColour } from './colours.js';
import { statusWords } from './columns.js';
import type { ComplianceProduct } from './figures.js';
import { ASSUMED } from './model.js';
import { verdictOf } from './plan.js';
import { employersWithProblems } from './problems.js';

/**
 * The summary of the compliance report (docs/html-reports.md): employers behind or at risk per
 * program, counted from the YTD by org rows with the statuses on an assumed rate among them (they
 * count, and say so), and four charts (by status, the 20 furthest behind, tests per month, the
 * trend). The report's verdict (page, workbook, dashboard) is made from these counts alone.
 */
export function complianceHtml(): SummaryBuilder<ComplianceProduct> {
  const months = new Map<string, { drug: number; alcohol: number }>();
  return {
    onRow(row) {
      const key = `${row.year}-${String(row.month).padStart(2, '0')}`;
      const m = months.get(key) ?? { drug: 0, alcohol: 0 };
      m.drug += num(row.drugCompleted);
      m.alcohol += num(row.alcoholCompleted);
      months.set(key, m);
    },
    build(product) {
      // One row per employer (the YTD by org rows without their program totals).
      const ytd = product?.employers ?? [];
      const counts = statusCounts(ytd);
      const n = (program: string, ...s: string[]) => {
        const of = counts.filter((x) => x.group === program && s.includes(x.status));
        return { n: of.reduce((a, x) => a + x.count, 0), assumed: of.reduce((a, x) => a + x.assumed, 0) };
      };
      // The number alone; what of it rests on an assumed rate is said under it.
      const figure = (label: string, c: { n: number; assumed: number }) => countFigure(label, c.n, c.assumed);
      const problems: string[] = [];
      let measuredFailure = false;
      for (const program of ['drug', 'alcohol'] as const) {
        const title = program === 'drug' ? 'Drug' : 'Alcohol';
        const said: [string, { n: number; assumed: number }][] = [
          ['behind or not met', n(program, 'NOT_MET', 'BEHIND')],
          ['at risk', n(program, 'AT_RISK')],
          ['pending results', n(program, 'PENDING_RESULTS')],
          ['no rate (not measured)', n(program, 'NO_RATE')],
        ];
        for (const [what, c] of said)
          if (c.n > 0) problems.push(`${title}: ${what} ${withAssumed(c.n, c.assumed)}`);
        const failing = n(program, 'NOT_MET', 'BEHIND');
        if (failing.n > failing.assumed) measuredFailure = true;
      }
      const onAssumed = ytd.filter(
        (r) => statusOf(r.drugStatus).assumed || statusOf(r.alcoholStatus).assumed,
      );
      // The one rule of compliance and catch-up: never OK while a problem is named for an employer.
      const named = employersWithProblems(ytd);
      if (named.size > 0)
        problems.push(
          `${count(named.size)} employer${named.size === 1 ? '' : 's'} with a problem named (sheet Problems, column Problems of YTD by org)`,
        );
      return {
        // A measured failure needs action; anything else behind, at risk, pending or assumed needs
        // attention; OK only when nothing is.
        status: level(measuredFailure, problems.length > 0 || onAssumed.length > 0),
        figures: [
          { label: 'Employers', value: count(ytd.length) },
          figure('Drug: behind or not met', n('drug', 'NOT_MET', 'BEHIND')),
          figure('Drug: at risk', n('drug', 'AT_RISK')),
          figure('Alcohol: behind or not met', n('alcohol', 'NOT_MET', 'BEHIND')),
          figure('Alcohol: at risk', n('alcohol', 'AT_RISK')),
          { label: 'Scored on an assumed rate', value: count(onAssumed.length) },
          ...catchUpFigures(product?.plan ?? []),
        ],
        counts,
        problems:
          onAssumed.length > 0
            ? [
                ...problems,
                `${count(onAssumed.length)} employer${onAssumed.length === 1 ? '' : 's'} scored on an assumed rate (import their policies: ohs policy import)`,
              ]
            : problems,
        charts: [
          statusChart(counts),
          behindChart(ytd),
          monthsChart(months),
          ...trendChart(product?.trend ?? []),
        ],
      };
    },
  };
}

const statusOrder = ['NOT_MET', 'BEHIND', 'AT_RISK', 'PENDING_RESULTS', 'ON_TRACK', 'MET'];
/** Every status a YTD row may carry, in the order they are shown. */
const everyStatus = [...statusOrder, 'NO_RATE', 'N/A'];

/** A status cell read: its code and whether it was computed on an assumed rate. */
function statusOf(v: unknown): { status: string; assumed: boolean } {
  const s = typeof v === 'string' ? v : '';
  return s.endsWith(ASSUMED)
    ? { status: s.slice(0, -ASSUMED.length), assumed: true }
    : { status: s, assumed: false };
}

/** Employers per program and status (of the YTD by org rows), those on an assumed rate counted too. */
function statusCounts(ytd: readonly Row[]): StatusCount[] {
  const out: StatusCount[] = [];
  for (const program of ['drug', 'alcohol'] as const)
    for (const status of everyStatus) {
      let n = 0;
      let assumed = 0;
      for (const r of ytd) {
        const st = statusOf(r[`${program}Status`]);
        if (st.status !== status) continue;
        n++;
        if (st.assumed) assumed++;
      }
      if (n > 0) out.push({ group: program, status, count: n, assumed });
    }
  return out;
}

function statusChart(counts: StatusCount[]): Chart {
  const shown = everyStatus.map((s) => statusWords[s] ?? s);
  return {
    id: 'chart-status',
    title: 'Employers by status (pale: on an assumed rate)',
    description: `Employers per drug and alcohol testing status: ${counts
      .map(
        (c) =>
          `${c.group} ${statusWords[c.status] ?? c.status} ${c.count}${c.assumed === 0 ? '' : ` (${c.assumed === c.count ? 'all' : c.assumed} on an assumed rate)`}`,
      )
      .join(', ')}.`,
    spec: basisBars(
      counts.map((c) => ({ ...c, category: statusWords[c.status] ?? c.status })),
      {
        groupField: 'program',
        categoryField: 'status',
        shown,
        colours: everyStatus.map((s) => statusColour[s] ?? palette.grey),
      },
    ),
  };
}

/** How far an employer is behind on drug tests: required to date less completed. */
const gap = (r: Row) => num(r.drugExpectedToDate) - num(r.drugCompletedYtd);

/** A bullet chart of the 20 employers furthest behind on drug tests. */
function behindChart(ytd: readonly Row[]): Chart {
  const behind = [...ytd]
    .sort((a, b) => gap(b) - gap(a) || String(a.org).localeCompare(String(b.org)))
    .slice(0, 20)
    .map((r) => {
      const st = statusOf(r.drugStatus);
      return {
        org: `${String(r.org ?? r.orgId)}${st.assumed ? ' (assumed rate)' : ''}`,
        completed: num(r.drugCompletedYtd),
        expected: Math.round(num(r.drugExpectedToDate) * 100) / 100,
        target: num(r.drugAnnualTarget),
        status: st.status,
        rate: st.assumed ? 'assumed rate' : 'own rate',
      };
    });
  const assumed = behind.filter((b) => b.rate === 'assumed rate').length;
  return {
    id: 'chart-bullet',
    title:
      'Drug tests: completed against required (the 20 employers furthest behind; orange: on an assumed rate)',
    description: `Bullet chart: for each employer, drug tests completed this year (bar), required to date (tick) and required for the year (pale bar). ${assumed === 0 ? '' : `${assumed === behind.length ? 'All' : assumed} of these ${behind.length} are scored on an assumed rate (no policy imported), marked "(assumed rate)". `}${behind
      .slice(0, 5)
      .map(
        (b) => `${b.org}: ${b.completed} completed, ${b.expected} required to date, ${b.target} for the year`,
      )
      .join('; ')}.`,
    spec: {
      data: { values: behind },
      width: 320,
      height: { step: 16 },
      encoding: { y: { field: 'org', type: 'nominal', sort: null, title: null } },
      layer: [
        {
          mark: { type: 'bar', color: '#dddddd', size: 12 },
          encoding: { x: { field: 'target', type: 'quantitative', title: 'drug tests' } },
        },
        {
          mark: { type: 'bar', size: 6 },
          encoding: {
            x: { field: 'completed', type: 'quantitative' },
            color: {
              field: 'rate',
              type: 'nominal',
              scale: { domain: ['own rate', 'assumed rate'], range: [palette.blue, palette.orange] },
              title: 'rate',
            },
          },
        },
        {
          mark: { type: 'tick', color: '#000000', thickness: 2, size: 14 },
          encoding: { x: { field: 'expected', type: 'quantitative' } },
        },
      ],
    },
  };
}

/** Drug and alcohol tests completed per month (counted from the detail rows). */
function monthsChart(months: Map<string, { drug: number; alcohol: number }>): Chart {
  const byMonth = [...months.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([month, m]) => [
      { month, program: 'drug', completed: m.drug },
      { month, program: 'alcohol', completed: m.alcohol },
    ]);
  return {
    id: 'chart-months',
    title: 'Tests completed by month, this year',
    description: `Drug and alcohol tests completed per month: ${byMonth.map((m) => `${m.month} ${m.program} ${m.completed}`).join(', ')}.`,
    spec: {
      data: { values: byMonth },
      width: 320,
      height: 160,
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'month', type: 'ordinal', title: null },
        xOffset: { field: 'program', sort: ['drug', 'alcohol'] },
        y: { field: 'completed', type: 'quantitative', title: 'tests completed' },
        color: {
          field: 'program',
          type: 'nominal',
          sort: ['drug', 'alcohol'],
          scale: { range: [palette.blue, palette.orange] },
          title: null,
        },
      },
    },
  };
}

/** The Trend sheet's status columns (keys of its integer columns named after a status). */
const trendStatusKeys: Record<string, string> = {
  MET: 'MET',
  ON_TRACK: 'ON_TRACK',
  PENDING_RESULTS: 'PENDING_RESULTS',
  AT_RISK: 'AT_RISK',
  BEHIND: 'BEHIND',
  NOT_MET: 'NOT_MET',
  'N/A': 'noStatus',
};

/**
 * The compliance trend (the Trend sheet: orgs per status at each past month end, as the mirror
 * knew them then) as stacked bars in the status colours; month ends before the mirror's history
 * are left out and named in the text alternative. No chart when no month end is covered yet.
 */
function trendChart(trend: readonly Row[]): Chart[] {
  const { covered, omitted } = coveredMonthEnds(trend);
  if (covered.length === 0) return [];
  const statuses = [...statusOrder, 'N/A'];
  const values = covered.flatMap((r) =>
    statuses.map((status, statusIndex) => ({
      monthEnd: String(r.monthEnd),
      status,
      statusIndex,
      orgs: num(r[trendStatusKeys[status] ?? status]),
    })),
  );
  const figures = (r: Row) =>
    `${String(r.monthEnd)}: ${statuses
      .filter((s) => num(r[trendStatusKeys[s] ?? s]) > 0)
      .map((s) => `${s} ${num(r[trendStatusKeys[s] ?? s])}`)
      .join(
        ', ',
      )} of ${num(r.orgs)} (drug ${num(r.drugCompletedYtd)} completed of ${Math.round(num(r.drugExpectedToDate))} required)`;
  return [
    {
      id: 'chart-trend',
      title: 'Employers by status at each month end (as the mirror knew them then)',
      description: `Employers per status (the worse of drug and alcohol) at month end: ${covered.map(figures).join('; ')}.${omitted.length === 0 ? '' : ` Omitted, before the mirror's history begins: ${omitted.join(', ')}.`}`,
      spec: monthEndBars(
        values,
        { field: 'orgs', type: 'quantitative', title: 'employers' },
        {
          field: 'status',
          type: 'nominal',
          sort: statuses,
          scale: { domain: statuses, range: statuses.map((s) => statusColour[s] ?? palette.grey) },
          title: 'status',
        },
        'statusIndex',
      ),
    },
  ];
}

/**
 * The catch-up card of the page: plan lines (employer and test type) that cannot meet the
 * target or need more picks per period, those on an assumed rate said so (the product's plan).
 */
function catchUpFigures(plan: readonly Row[]): Figure[] {
  const of = (label: string, verdict: string) => {
    const rows = plan.filter((r) => verdictOf(r.verdict).verdict === verdict);
    return countFigure(label, rows.length, rows.filter((r) => verdictOf(r.verdict).assumed).length);
  };
  return [
    of('Catch-up: cannot meet (employer, test type)', 'CANNOT_MEET'),
    of('Catch-up: needs more (employer, test type)', 'NEEDS_MORE'),
    of('Catch-up: needs review (employer, test type)', 'NEEDS_REVIEW'),
  ];
}
