import {
  type Chart,
  count,
  coveredMonthEnds,
  isTotal,
  level,
  monthEndBars,
  num,
  palette,
  type ReadSheet,
  type SummaryBuilder,
  sheet,
  statusColour,
} from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';

/**
 * The summary of the compliance page (docs/html-reports.md): employers behind or at risk per
 * program, and four charts (by status, the 20 furthest behind, tests per month, the trend).
 */
export function complianceHtml(): SummaryBuilder {
  const months = new Map<string, { drug: number; alcohol: number }>();
  return {
    onRow(row) {
      const key = `${row.year}-${String(row.month).padStart(2, '0')}`;
      const m = months.get(key) ?? { drug: 0, alcohol: 0 };
      m.drug += num(row.drugCompleted);
      m.alcohol += num(row.alcoholCompleted);
      months.set(key, m);
    },
    build(sheets) {
      const ytd = (sheet(sheets, 'YTD by org')?.rows ?? []).filter((r) => !isTotal(r.org));
      const statuses = statusCounts(ytd);
      const n = (program: string, ...s: string[]) =>
        statuses.filter((x) => x.program === program && s.includes(x.status)).reduce((a, x) => a + x.orgs, 0);
      const bad = n('drug', 'NOT_MET', 'BEHIND') + n('alcohol', 'NOT_MET', 'BEHIND');
      const risk = n('drug', 'AT_RISK') + n('alcohol', 'AT_RISK');
      return {
        status: level(bad > 0, risk > 0),
        figures: [
          { label: 'Employers', value: count(ytd.length) },
          { label: 'Drug: behind or not met', value: count(n('drug', 'NOT_MET', 'BEHIND')) },
          { label: 'Drug: at risk', value: count(n('drug', 'AT_RISK')) },
          { label: 'Alcohol: behind or not met', value: count(n('alcohol', 'NOT_MET', 'BEHIND')) },
          { label: 'Alcohol: at risk', value: count(n('alcohol', 'AT_RISK')) },
        ],
        charts: [
          statusChart(statuses),
          behindChart(ytd),
          monthsChart(months),
          ...trendChart(sheet(sheets, 'Trend')),
        ],
      };
    },
  };
}

const statusOrder = ['NOT_MET', 'BEHIND', 'AT_RISK', 'PENDING_RESULTS', 'ON_TRACK', 'MET'];

type StatusCount = { program: string; status: string; orgs: number };

/** Employers per program and status (of the YTD by org rows), the statuses no org has left out. */
function statusCounts(ytd: Row[]): StatusCount[] {
  const statuses: StatusCount[] = [];
  for (const program of ['drug', 'alcohol'] as const)
    for (const status of statusOrder) {
      const orgs = ytd.filter((r) => r[`${program}Status`] === status).length;
      if (orgs > 0) statuses.push({ program, status, orgs });
    }
  return statuses;
}

function statusChart(statuses: StatusCount[]): Chart {
  return {
    id: 'chart-status',
    title: 'Employers by status',
    description: `Employers per drug and alcohol testing status: ${statuses.map((s) => `${s.program} ${s.status} ${s.orgs}`).join(', ')}.`,
    spec: {
      data: { values: statuses },
      width: 320,
      height: { step: 18 },
      mark: { type: 'bar' },
      encoding: {
        row: { field: 'program', type: 'nominal', title: null, sort: ['drug', 'alcohol'] },
        y: { field: 'status', type: 'nominal', sort: statusOrder, title: null },
        x: { field: 'orgs', type: 'quantitative', title: 'employers' },
        color: {
          field: 'status',
          type: 'nominal',
          scale: {
            domain: statusOrder,
            range: statusOrder.map((s) => statusColour[s] ?? palette.grey),
          },
          legend: null,
        },
      },
    },
  };
}

/** How far an employer is behind on drug tests: required to date less completed. */
const gap = (r: Row) => num(r.drugExpectedToDate) - num(r.drugCompletedYtd);

/** A bullet chart of the 20 employers furthest behind on drug tests. */
function behindChart(ytd: Row[]): Chart {
  const behind = [...ytd]
    .sort((a, b) => gap(b) - gap(a) || String(a.org).localeCompare(String(b.org)))
    .slice(0, 20)
    .map((r) => ({
      org: String(r.org ?? r.orgId),
      completed: num(r.drugCompletedYtd),
      expected: Math.round(num(r.drugExpectedToDate) * 100) / 100,
      target: num(r.drugAnnualTarget),
      status: String(r.drugStatus ?? ''),
    }));
  return {
    id: 'chart-bullet',
    title: 'Drug tests: completed against required (the 20 employers furthest behind)',
    description: `Bullet chart: for each employer, drug tests completed this year (bar), required to date (tick) and required for the year (pale bar). ${behind
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
          mark: { type: 'bar', color: palette.blue, size: 6 },
          encoding: { x: { field: 'completed', type: 'quantitative' } },
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
function trendChart(trend: ReadSheet | undefined): Chart[] {
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
