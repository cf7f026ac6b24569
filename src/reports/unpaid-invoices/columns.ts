import type { Column } from '../../render/types.js';
import { type Bucket, CREDITS } from './buckets.js';
import type { UnpaidInvoicesOptions } from './options.js';
import { flagWords } from './words.js';

/** Detail columns; the days column is titled after the aging basis. */
export function unpaidInvoicesColumnsFor(basis: 'dueDate' | 'invoiceDate'): Column[] {
  return unpaidInvoicesColumns.map((c) =>
    c.key === 'daysPastDue' && basis === 'invoiceDate' ? { ...c, title: 'Days since invoice date' } : c,
  );
}

export const unpaidInvoicesColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'invoiceId', title: 'Invoice', type: 'string', width: 12 },
  { key: 'invoiceDate', title: 'Invoice date', type: 'date', width: 12 },
  { key: 'dueDate', title: 'Due date', type: 'date', width: 12 },
  { key: 'billingPeriod', title: 'Billing period', type: 'string', width: 10 },
  { key: 'daysPastDue', title: 'Days past due', type: 'integer', width: 9 },
  { key: 'bucket', title: 'Bucket', type: 'string', width: 9, alert: { red: ['91+'], amber: ['61-90'] } },
  { key: 'balance', title: 'Balance', type: 'money', width: 13 },
  { key: 'lateFee', title: 'Late fee', type: 'money', width: 11 },
  { key: 'totalDue', title: 'Total due', type: 'money', width: 13 },
  {
    key: 'flags',
    title: 'Flags',
    type: 'string',
    width: 18,
    words: flagWords,
  },
  {
    key: 'status',
    title: 'Status (cancelled: in no total)',
    type: 'string',
    width: 11,
    alert: { amber: ['cancelled'] },
  },
];

/** Columns of the By org sheet: one per ageing bucket, then credits and totals. */
export function bucketColumnsFor(buckets: Bucket[], opts: UnpaidInvoicesOptions): Column[] {
  return [
    { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
    { key: 'org', title: 'Org', type: 'string', width: 32 },
    ...buckets.map(
      (b, i): Column => ({
        key: b.key,
        title: b.label,
        type: 'money',
        width: 13,
        // The last bucket red, the one before it amber (91+ and 61-90 by default).
        ...(i === buckets.length - 1
          ? { alert: { positive: 'red' } }
          : i === buckets.length - 2 && i > 0
            ? { alert: { positive: 'amber' } }
            : {}),
      }),
    ),
    { key: CREDITS.key, title: CREDITS.label, type: 'money', width: 13 },
    { key: 'total', title: 'Total (net)', type: 'money', width: 14 },
    { key: 'lateFees', title: 'Late fees', type: 'money', width: 11 },
    { key: 'openInvoices', title: 'Open invoices', type: 'integer', width: 9 },
    {
      key: 'oldestDaysPastDue',
      title: opts.agingBasis === 'dueDate' ? 'Oldest days past due' : 'Oldest days since invoice date',
      type: 'integer',
      width: 10,
    },
    {
      key: 'over60Share',
      title: '% over 60 days (of balances owed, credits apart)',
      type: 'percent',
      width: 10,
    },
  ];
}

/** Columns of the Buckets sheet: each bucket's amount, share and invoices. */
export const bucketSheetColumns: Column[] = [
  { key: 'bucket', title: 'Bucket', type: 'string', width: 10 },
  { key: 'amount', title: 'Amount', type: 'money', width: 14 },
  { key: 'share', title: '% of balances owed (credits apart)', type: 'percent', width: 12 },
  { key: 'invoices', title: 'Invoices', type: 'integer', width: 9 },
];
