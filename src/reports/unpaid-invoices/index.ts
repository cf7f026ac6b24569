import type { Sheet } from '../../render/types.js';
import { omittedNote, TREND_MONTHS } from '../core/ar-trend.js';
import { ORG_ANCHORS } from '../core/org-names.js';
import type { ReportDeclaration, ReportInput } from '../core/types.js';
import { aboutLines } from './about.js';
import { agingBuckets } from './buckets.js';
import { bucketColumnsFor, bucketSheetColumns, unpaidInvoicesColumnsFor } from './columns.js';
import { unpaidFigures } from './figures.js';
import { unpaidInvoicesHtml } from './html.js';
import { type UnpaidInvoicesOptions, unpaidInvoicesOptions } from './options.js';
import { type UnpaidProduct, withCancelled } from './summary.js';
import { arTrend } from './trend.js';
import { unpaidInvoicesWords } from './words.js';

/**
 * Unpaid invoices, A/R aging (docs/reports.md): open balances by org, bucketed by days past due on
 * the as-of date. Invoices are org-sized (thousands), so the open ones are read whole and sorted.
 */
export const unpaidInvoicesReport: ReportDeclaration<
  typeof unpaidInvoicesOptions,
  'unpaid-invoices',
  UnpaidProduct
> = {
  name: 'unpaid-invoices',
  title: 'Unpaid invoices (A/R aging)',
  description:
    'Open invoice balances by org, aged by days past due on the as-of date into Current, 1-30, 31-60, 61-90 and 91+ (credits apart), with totals per org and bucket shares.',
  options: unpaidInvoicesOptions,
  streams: ['invoice', 'orderitem'],
  build,
  html: unpaidInvoicesHtml,
  words: unpaidInvoicesWords,
  async trend({ db, common, opts, scope }, ends) {
    const buckets = agingBuckets(opts.periodDays, opts.periods);
    return (await arTrend(db, common, opts, buckets, scope, ends)).rows;
  },
};

async function build(input: ReportInput<UnpaidInvoicesOptions>) {
  const { db, common, opts, scope, at } = input;
  // The run's figures (shared with accounts at risk).
  const { buckets, c, history, warnings, byOrg, bucketRows, facts } = await unpaidFigures(input);
  const { open, voided } = c;
  const trend = await arTrend(db, common, opts, buckets, scope);
  const about = aboutLines(opts, buckets, voided.length, open.length, c, at, history.about, [
    'Trend',
    `A/R by bucket at each of the last ${TREND_MONTHS} month ends, as the mirror knew it at the end of that day (its history), aged to that day (sheet Trend; CSV unpaid-invoices-trend-DATE.csv)${omittedNote(trend)}`,
  ]);
  const columns = unpaidInvoicesColumnsFor(opts.agingBasis);
  const sheets: Sheet[] = [
    { name: 'By org', columns: bucketColumnsFor(buckets, opts), rows: byOrg, anchors: ORG_ANCHORS },
    { name: 'Buckets', columns: bucketSheetColumns, rows: bucketRows },
  ];
  if (voided.length > 0)
    sheets.push({ name: 'VOID', columns, rows: voided.map((v) => v.row), totals: 'none' });
  const product: UnpaidProduct = { ...facts, trend: trend.rows };
  return {
    detail: {
      name: 'Unpaid invoices',
      columns,
      // Cancelled invoices too (status cancelled, after their org's open ones), so a BI tool
      // can reconcile "Total with cancelled"; in no subtotal or total.
      rows: withCancelled(open, voided),
      subtotals: {
        by: 'orgId',
        label: 'org',
        sum: ['balance', 'lateFee', 'totalDue'],
        skip: { key: 'status', values: ['cancelled'] },
      },
    },
    summaries: () => sheets,
    trend: trend.sheet,
    facts: () => product,
    warnings: () => warnings,
    about: () => about,
  };
}

export { agingBuckets } from './buckets.js';

export { unpaidInvoicesOptions } from './options.js';
