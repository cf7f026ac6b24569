import {
  type Chart,
  count,
  coveredMonthEnds,
  isTotal,
  level,
  money,
  monthEndBars,
  num,
  palette,
  plural,
  type ReadSheet,
  type SummaryBuilder,
  sheet,
} from '../../render/html/summary.js';
import { TREND_SHEET } from '../core/ar-trend.js';
import type { UnpaidFacts } from './summary.js';

/**
 * The summary of the unpaid invoices page (docs/html-reports.md): the open balance, its oldest
 * bucket and share over 60 days, and charts by bucket, of the largest balances and of the trend.
 * The buckets are read from the sheets' money columns, so configured buckets keep their charts.
 */
export function unpaidInvoicesHtml(): SummaryBuilder<UnpaidFacts> {
  return {
    onRow() {},
    build(sheets, facts) {
      const buckets = (sheet(sheets, 'Buckets')?.rows ?? [])
        .filter((r) => !isTotal(r.bucket))
        .map((r) => ({ bucket: String(r.bucket), dollars: num(r.amount) / 100, invoices: num(r.invoices) }));
      const byOrgSheet = sheet(sheets, 'By org');
      const bucketColumns = ageingColumns(byOrgSheet);
      const byOrg = byOrgSheet?.rows ?? [];
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
      // The figures from the report's typed totals (never the sheet's Total row by its label).
      const over60 = facts === undefined || facts.owed === 0 ? 0 : facts.over60 / facts.owed;
      const share = `${(over60 * 100).toFixed(1)}%`;
      const unknown = facts?.balanceUnknown ?? 0;
      return {
        // Of the balances owed (credits apart): over half past 60 days needs action, a quarter attention.
        status: level(over60 > 0.5, over60 > 0.25 || unknown > 0),
        counts: buckets.map((b) => ({ group: 'bucket', status: b.bucket, count: b.invoices, assumed: 0 })),
        problems: [
          ...(over60 > 0.25 ? [`${share} of the balances owed is over 60 days past due`] : []),
          ...(unknown > 0
            ? [
                `${plural(unknown, 'invoice')} with the balance unknown (null or unreadable): held apart, in no total, never counted as paid`,
              ]
            : []),
        ],
        figures: [
          { label: 'Open balance', value: money(facts?.openBalance) },
          { label: 'Open invoices', value: count(facts?.openInvoices ?? 0) },
          {
            label: `${bucketColumns.at(-1)?.label ?? 'Oldest bucket'} days past due`,
            value: money(facts?.oldestBucket),
          },
          { label: 'Over 60 days (of balances owed)', value: share },
          { label: 'Late fees', value: money(facts?.lateFees) },
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
          ...trendChart(sheet(sheets, TREND_SHEET)),
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
  const { covered, omitted } = coveredMonthEnds(trend);
  if (covered.length === 0) return [];
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
        )}.${omitted.length === 0 ? '' : ` ${omitted.length} earlier month end(s) omitted: before the mirror's history begins.`}`,
      spec: monthEndBars(
        values,
        { field: 'dollars', type: 'quantitative', title: 'open balance ($)', axis: { format: '~s' } },
        bucketColour(columns),
        'bucketIndex',
      ),
    },
  ];
}
