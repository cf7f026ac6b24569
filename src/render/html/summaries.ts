import { formatCents } from '../csv-renderer.js';
import type { Column, Row } from '../types.js';
import { type Chart, palette, statusColour } from './charts.js';
import { groupDigits } from './escape.js';

/** A summary sheet with its rows read (they are few: one per org or bucket). */
export interface ReadSheet {
  name: string;
  columns: Column[];
  rows: Row[];
}

export type Level = 'ok' | 'warn' | 'bad';

/** What the dashboard shows of a report: a few figures and a status. */
export interface Headline {
  report: string;
  title: string;
  asOf: string;
  status: Level;
  figures: { label: string; value: string }[];
}

/** A report's page summary: its headline figures, charts, and a short list shown first. */
export interface PageSummary {
  status: Level;
  figures: { label: string; value: string }[];
  charts: Chart[];
  /** Detail rows shown before the charts, in the detail's columns (order ageing: the stuck list). */
  first?: { title: string; rows: Row[]; more: number };
}

/**
 * The per-report part of the page: it sees every detail row as it streams (to count or keep a
 * few) and builds the summary from the summary sheets once the detail is done. Reports it does
 * not know get the generic page (tables only).
 */
export interface SummaryBuilder {
  onRow(row: Row): void;
  build(sheets: ReadSheet[]): PageSummary;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const money = (cents: unknown) => `$${groupDigits(formatCents(num(cents)))}`;
const count = (n: number) => groupDigits(String(n));
const sheet = (sheets: ReadSheet[], name: string) => sheets.find((s) => s.name === name);
const isTotal = (v: unknown) => typeof v === 'string' && /^Total/.test(v);

function level(bad: boolean, warn: boolean): Level {
  return bad ? 'bad' : warn ? 'warn' : 'ok';
}

const statusOrder = ['NOT_MET', 'BEHIND', 'AT_RISK', 'PENDING_RESULTS', 'ON_TRACK', 'MET'];

/** How far an employer is behind on drug tests: required to date less completed. */
const gap = (r: Row) => num(r.drugExpectedToDate) - num(r.drugCompletedYtd);

/** Stacked bars per month end of a Trend sheet (oldest first), stacked in `order`'s order. */
function monthEndBars(
  values: Row[],
  y: Record<string, unknown>,
  color: Record<string, unknown>,
  order: string,
): Chart['spec'] {
  return {
    data: { values },
    width: 320,
    height: 180,
    mark: { type: 'bar' },
    encoding: {
      x: { field: 'monthEnd', type: 'ordinal', title: null, sort: null },
      y,
      color,
      order: { field: order },
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
function complianceTrendChart(trend: ReadSheet | undefined): Chart[] {
  const rows = trend?.rows ?? [];
  const covered = rows.filter((r) => r.note === null || r.note === undefined || r.note === '');
  if (covered.length === 0) return [];
  const omitted = rows.filter((r) => !covered.includes(r)).map((r) => String(r.monthEnd));
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

function compliance(): SummaryBuilder {
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
      const statuses: { program: string; status: string; orgs: number }[] = [];
      for (const program of ['drug', 'alcohol'] as const)
        for (const status of statusOrder) {
          const orgs = ytd.filter((r) => r[`${program}Status`] === status).length;
          if (orgs > 0) statuses.push({ program, status, orgs });
        }
      const n = (program: string, ...s: string[]) =>
        statuses.filter((x) => x.program === program && s.includes(x.status)).reduce((a, x) => a + x.orgs, 0);
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
      const byMonth = [...months.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .flatMap(([month, m]) => [
          { month, program: 'drug', completed: m.drug },
          { month, program: 'alcohol', completed: m.alcohol },
        ]);
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
          {
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
          },
          {
            id: 'chart-bullet',
            title: 'Drug tests: completed against required (the 20 employers furthest behind)',
            description: `Bullet chart: for each employer, drug tests completed this year (bar), required to date (tick) and required for the year (pale bar). ${behind
              .slice(0, 5)
              .map(
                (b) =>
                  `${b.org}: ${b.completed} completed, ${b.expected} required to date, ${b.target} for the year`,
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
          },
          {
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
          },
          ...complianceTrendChart(sheet(sheets, 'Trend')),
        ],
      };
    },
  };
}

const bucketColours = [
  palette.green,
  palette.sky,
  palette.yellow,
  palette.orange,
  palette.vermillion,
  palette.purple,
];

/** The colour encoding of ageing buckets (by org and trend charts alike). */
const bucketColour = (columns: { label: string }[]) => ({
  field: 'bucket',
  type: 'ordinal',
  sort: columns.map((b) => b.label),
  scale: {
    domain: columns.map((b) => b.label),
    range: columns.map((_, i) => bucketColours[i % bucketColours.length]),
  },
  title: 'days past due',
});

/**
 * The ageing buckets of a By org sheet: its money columns between the org and Credits / the
 * totals (their keys and titles come from the report, which may configure its buckets).
 */
function ageingColumns(sheet: ReadSheet | undefined): { key: string; label: string }[] {
  const notBuckets = new Set(['credits', 'total', 'lateFees']);
  return (sheet?.columns ?? [])
    .filter((c) => c.type === 'money' && !notBuckets.has(c.key))
    .map((c) => ({ key: c.key, label: c.title }));
}

/**
 * The A/R trend (the Trend sheet: open balance by bucket at each past month end, as the mirror
 * knew it then) as stacked bars; month ends before the mirror's history are left out and named
 * in the text alternative. No chart when no month end is covered yet.
 */
function trendChart(trend: ReadSheet | undefined): Chart[] {
  const columns = ageingColumns(trend);
  const rows = trend?.rows ?? [];
  const covered = rows.filter((r) => r.note === null || r.note === undefined || r.note === '');
  if (covered.length === 0) return [];
  const omitted = rows.length - covered.length;
  const values = covered.flatMap((r) =>
    columns.map(({ key, label }, bucketIndex) => ({
      monthEnd: String(r.monthEnd),
      bucket: label,
      bucketIndex,
      dollars: num(r[key]) / 100,
    })),
  );
  return [
    {
      id: 'chart-trend',
      title: 'Open balance at each month end, by days past due (as the mirror knew it then)',
      description: `Open balance at month end: ${covered
        .map((r) => `${String(r.monthEnd)} ${money(r.total)}`)
        .join(
          ', ',
        )}.${omitted === 0 ? '' : ` ${omitted} earlier month end(s) omitted: before the mirror's history begins.`}`,
      spec: monthEndBars(
        values,
        { field: 'dollars', type: 'quantitative', title: 'open balance ($)', axis: { format: '~s' } },
        bucketColour(columns),
        'bucketIndex',
      ),
    },
  ];
}

function unpaidInvoices(): SummaryBuilder {
  return {
    onRow() {},
    build(sheets) {
      const buckets = (sheet(sheets, 'Buckets')?.rows ?? [])
        .filter((r) => !isTotal(r.bucket))
        .map((r) => ({ bucket: String(r.bucket), dollars: num(r.amount) / 100, invoices: num(r.invoices) }));
      const byOrgSheet = sheet(sheets, 'By org');
      const bucketColumns = ageingColumns(byOrgSheet);
      const byOrg = byOrgSheet?.rows ?? [];
      const total = byOrg.find((r) => isTotal(r.org));
      const largest = byOrg
        .filter((r) => !isTotal(r.org))
        .sort((a, b) => num(b.total) - num(a.total))
        .slice(0, 15);
      const stacked = largest.flatMap((r) =>
        bucketColumns.map(({ key, label }, bucketIndex) => ({
          org: String(r.org ?? r.orgId),
          bucket: label,
          bucketIndex,
          dollars: num(r[key]) / 100,
        })),
      );
      const over60 = num(total?.over60Share);
      return {
        status: level(over60 > 0.5, over60 > 0.25),
        figures: [
          { label: 'Open balance', value: money(total?.total) },
          { label: 'Open invoices', value: count(num(total?.openInvoices)) },
          {
            label: `${bucketColumns.at(-1)?.label ?? 'Oldest bucket'} days past due`,
            value: money(total?.[bucketColumns.at(-1)?.key ?? '']),
          },
          { label: 'Over 60 days', value: `${(over60 * 100).toFixed(1)}%` },
          { label: 'Late fees', value: money(total?.lateFees) },
        ],
        charts: [
          {
            id: 'chart-buckets',
            title: 'Open balance by days past due',
            description: `Open balance per ageing bucket: ${buckets.map((b) => `${b.bucket} $${b.dollars.toFixed(2)} (${b.invoices} invoices)`).join(', ')}.`,
            spec: {
              data: { values: buckets },
              width: 320,
              height: { step: 20 },
              mark: { type: 'bar', color: palette.blue },
              encoding: {
                y: { field: 'bucket', type: 'nominal', sort: null, title: null },
                x: {
                  field: 'dollars',
                  type: 'quantitative',
                  title: 'open balance ($)',
                  axis: { format: '~s' },
                },
              },
            },
          },
          {
            id: 'chart-largest',
            title: 'Largest open balances by org (15), by days past due',
            description: `The 15 orgs with the largest open balances: ${largest
              .map((r) => `${r.org} ${money(r.total)}`)
              .join(', ')}.`,
            spec: {
              data: { values: stacked },
              width: 320,
              height: { step: 16 },
              mark: { type: 'bar' },
              encoding: {
                y: { field: 'org', type: 'nominal', sort: null, title: null },
                x: {
                  field: 'dollars',
                  type: 'quantitative',
                  title: 'open balance ($)',
                  axis: { format: '~s' },
                },
                color: bucketColour(bucketColumns),
                order: { field: 'bucketIndex' },
              },
            },
          },
          ...trendChart(sheet(sheets, 'Trend')),
        ],
      };
    },
  };
}

/** The time-in-status buckets of a By status sheet: its integer columns but the counts and flags. */
function statusAgeColumns(sheet: ReadSheet | undefined): { key: string; label: string }[] {
  const notBuckets = new Set(['count', 'warn', 'stuck']);
  return (sheet?.columns ?? [])
    .filter((c) => c.type === 'integer' && !notBuckets.has(c.key))
    .map((c) => ({ key: c.key, label: c.title.replace(/^In status /, '') }));
}

const ageColours = [
  palette.sky,
  palette.blue,
  palette.green,
  palette.yellow,
  palette.orange,
  palette.vermillion,
  palette.purple,
];

/** Rows of the stuck list shown first; the rest are in the detail table and the CSV. */
const STUCK_SHOWN = 100;

function orderAgeing(): SummaryBuilder {
  const stuck: Row[] = [];
  let stuckCount = 0;
  return {
    onRow(row) {
      if (row.flag !== 'STUCK') return;
      stuckCount++;
      if (stuck.length < STUCK_SHOWN) stuck.push(row);
    },
    build(sheets) {
      const byStatus = sheet(sheets, 'By status');
      const ageColumns = statusAgeColumns(byStatus);
      const rows = (byStatus?.rows ?? []).filter((r) => !isTotal(r.status));
      const total = (byStatus?.rows ?? []).find((r) => isTotal(r.status));
      const stages = new Map<string, Record<string, number>>();
      // Orders whose time in status is not known (no bucket counts them) are drawn as such.
      const unknown = { key: 'unknownTimeInStatus', label: 'unknown' };
      for (const r of rows) {
        const stage = String(r.stage ?? r.status);
        const s = stages.get(stage) ?? {};
        let bucketed = 0;
        for (const { key } of ageColumns) {
          s[key] = (s[key] ?? 0) + num(r[key]);
          bucketed += num(r[key]);
        }
        s[unknown.key] = (s[unknown.key] ?? 0) + Math.max(0, num(r.count) - bucketed);
        stages.set(stage, s);
      }
      if ([...stages.values()].some((s) => (s[unknown.key] ?? 0) > 0)) ageColumns.push(unknown);
      const values = [...stages.entries()].flatMap(([stage, s]) =>
        ageColumns.map(({ key, label }, i) => ({ stage, age: label, order: i, orders: s[key] ?? 0 })),
      );
      return {
        status: level(num(total?.stuck) > 0, num(total?.warn) > 0),
        figures: [
          { label: 'Open orders', value: count(num(total?.count)) },
          { label: 'Stuck', value: count(num(total?.stuck)) },
          { label: 'Warning', value: count(num(total?.warn)) },
          {
            label: 'Oldest (days)',
            value: (total?.maxAgeDays !== undefined
              ? num(total.maxAgeDays)
              : num(total?.maxAgeHours) / 24
            ).toFixed(1),
          },
        ],
        charts: [
          {
            id: 'chart-stages',
            title: 'Open orders by stage and time in status',
            description: `Open orders per stage, split by time in their status: ${[...stages.entries()]
              .map(
                ([stage, s]) =>
                  `${stage} ${ageColumns.map(({ key, label }) => `${label} ${s[key] ?? 0}`).join(' ')}`,
              )
              .join('; ')}.`,
            spec: {
              data: { values },
              width: 320,
              height: { step: 22 },
              mark: { type: 'bar' },
              encoding: {
                y: { field: 'stage', type: 'nominal', sort: null, title: null },
                x: { field: 'orders', type: 'quantitative', title: 'open orders' },
                color: {
                  field: 'age',
                  type: 'ordinal',
                  sort: ageColumns.map((a) => a.label),
                  scale: {
                    domain: ageColumns.map((a) => a.label),
                    range: ageColumns.map((a, n) =>
                      a.key === unknown.key ? palette.grey : ageColours[n % ageColours.length],
                    ),
                  },
                  title: 'time in status',
                },
                order: { field: 'order' },
              },
            },
          },
        ],
        first: { title: `Stuck orders (${count(stuckCount)})`, rows: stuck, more: stuckCount - stuck.length },
      };
    },
  };
}

/** The builder of a report's summary, by report name; undefined: tables only. */
export function summaryBuilder(report: string): SummaryBuilder | undefined {
  if (report === 'compliance') return compliance();
  if (report === 'unpaid-invoices') return unpaidInvoices();
  if (report === 'order-ageing') return orderAgeing();
  return undefined;
}
