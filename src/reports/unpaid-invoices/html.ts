import {
  type Chart,
  count,
  coveredMonthEnds,
  level,
  money,
  monthEndBars,
  num,
  palette,
  plural,
  type SummaryBuilder,
} from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import type { UnpaidProduct } from './summary.js';

/**
 * The summary of the unpaid invoices page (docs/html-reports.md): the open balance, its oldest
 * bucket and share over 60 days, and charts by bucket, of the largest balances and of the trend.
 * All from the report's typed product (its buckets, orgs, lines and trend), so configured buckets
 * keep their charts; never a sheet found by its name.
 */
export function unpaidInvoicesHtml(): SummaryBuilder<UnpaidProduct> {
  return {
    onRow() {},
    build(product) {
      const buckets = (product?.bucketLines ?? [])
        .filter((l) => !l.total)
        .map((l) => ({ bucket: l.bucket, dollars: l.amount / 100, invoices: l.invoices }));
      const bucketColumns = product?.buckets ?? [];
      const largest = [...(product?.orgs ?? [])].sort((a, b) => b.total - a.total).slice(0, 15);
      const stacked = largest.flatMap((o) =>
        bucketColumns.map(({ key, label }, bucketIndex) => ({
          org: String(o.org ?? o.orgId),
          bucket: label,
          bucketIndex,
          dollars: (o.amounts.get(key) ?? 0) / 100,
        })),
      );
      // The figures from the report's typed totals (never the sheet's Total row by its label).
      const facts = product;
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
              .map((o) => `${o.org} ${money(o.total)}`)
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
          ...trendChart(product?.trend ?? [], bucketColumns),
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
const bucketColour = (columns: readonly { label: string }[]) => ({
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
 * The A/R trend (the Trend sheet: open balance by bucket at each past month end, as the mirror
 * knew it then) as stacked bars; month ends before the mirror's history are left out and named
 * in the text alternative. No chart when no month end is covered yet.
 */
function trendChart(trend: readonly Row[], columns: readonly { key: string; label: string }[]): Chart[] {
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
