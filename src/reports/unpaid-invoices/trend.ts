import type { Kysely } from 'kysely';
import { formatDate } from '../../dates.js';
import type { Database } from '../../mirror/index.js';
import type { Column, Sheet } from '../../render/types.js';
import {
  type MonthEnd,
  monthEnds,
  TREND_MONTHS,
  TREND_SHEET,
  trendColumns,
  trendNoteColumn,
  trendRows,
} from '../core/ar-trend.js';
import type { CommonParams } from '../core/params.js';
import { type Bucket, CREDITS } from './buckets.js';
import { classify } from './classify.js';
import { bucketColumnsFor } from './columns.js';
import type { UnpaidInvoicesOptions } from './options.js';
import { invoiceVersions } from './queries.js';
import { summarise } from './summary.js';

/**
 * A/R by bucket at each of the last TREND_MONTHS month ends, as the mirror knew them then (the
 * sheet Trend and its CSV): the report's own ageing of the invoices it held at each month end,
 * aged to that day; month ends before the mirror's history are omitted (ar-trend.ts).
 */
export async function arTrend(
  db: Kysely<Database>,
  common: CommonParams,
  opts: UnpaidInvoicesOptions,
  buckets: Bucket[],
  scope: Set<number> | null,
  ends: readonly MonthEnd[] = monthEnds(common.asOf, common.timezone, TREND_MONTHS),
) {
  const keys = [...buckets.map((b) => b.key), CREDITS.key, 'total', 'openInvoices'];
  const trend = await trendRows(
    db,
    ends,
    (from, to) => invoiceVersions(db, from, to),
    (rows, end) => {
      const at = { ...common, asOf: end.day, asOfText: formatDate(end.day) };
      const c = classify(rows, scope, new Map(), at, opts, buckets);
      const { byOrg } = summarise(c.open, [], buckets, 'total');
      const grand = byOrg[byOrg.length - 1] ?? {};
      return Object.fromEntries(keys.map((k) => [k, grand[k] ?? 0]));
    },
  );
  const columns: Column[] = [
    ...trendColumns,
    ...bucketColumnsFor(buckets, opts).filter((c) => keys.includes(c.key)),
    trendNoteColumn,
  ];
  return {
    ...trend,
    sheet: { name: TREND_SHEET, columns, rows: trend.rows, totals: 'none' } satisfies Sheet,
  };
}
