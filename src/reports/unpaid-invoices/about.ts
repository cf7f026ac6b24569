import { ORG_NAMES_ABOUT } from '../core/org-names.js';
import type { Bucket } from './buckets.js';
import type { Classified } from './classify.js';
import type { UnpaidInvoicesOptions } from './options.js';

/** The About sheet: how the invoices were aged and what was left out. */
export function aboutLines(
  opts: UnpaidInvoicesOptions,
  buckets: Bucket[],
  voided: number,
  open: number,
  c: Classified,
  at: string | undefined,
  history: [string, string],
  trend: [string, string],
): { method: [string, string][]; results: [string, string][] } {
  const method: [string, string][] = [
    history,
    [
      'Aging',
      `${opts.agingBasis === 'dueDate' ? 'Days past the due date' : 'Days since the invoice date'} on the as-of date; buckets ${buckets.map((b) => b.label).join(', ')}; negative balances under Credits whatever their age`,
    ],
    [
      'Late fees',
      opts.lateFeeInBalance
        ? 'lateFeeInBalance = true: the balance already holds the late fee; lateFee is informational, totalDue = balance'
        : 'lateFeeInBalance = false: totalDue = balance + lateFee, and totalDue is bucketed',
    ],
    [
      'Cancelled invoices',
      opts.dropInvoice === 'cancelled'
        ? `dropInvoice = cancelled: an invoice whose dropInvoice holds anything but blank, false, 0 or no is cancelled (the interface: "whether the invoice was cancelled"); it is in no bucket and no total${voided === 0 ? ' (none in this report)' : ', and is listed on the sheet VOID with reconciling lines on the sheet Buckets, and in the detail and the CSV with status cancelled (bucket VOID), after its org\u2019s open invoices and in no subtotal'}`
        : 'dropInvoice = ignore: dropInvoice cancels nothing; every invoice has status open',
    ],
    [
      'Limitation',
      at === undefined
        ? 'Balances are the present ones (the mirror as it is now), so the as-of date changes the aging, not the amounts; rows synced after the as-of date are not excluded (only invoices dated after it are).'
        : `Balances as the mirror knew them at ${at} (its history): a payment made before that instant but synced after it is not known; invoices dated after the as-of date are excluded.`,
    ],
    [
      'Not given by the service',
      'The original invoice amount, payments, credits applied and their dates: the service gives only the present balance, so there is no paid or credited column and no DSO (days sales outstanding)',
    ],
    ORG_NAMES_ABOUT,
  ];
  const results: [string, string][] = [
    ['Open invoices', String(open)],
    ['Cancelled (VOID, excluded)', String(voided)],
    ['Dated after the as-of date (excluded)', String(c.future)],
    ['Unreadable date (excluded)', String(c.unreadable)],
    ['Balance unknown: null or unreadable (held apart, never paid)', String(c.unknown.length)],
    trend,
  ];
  return { method, results };
}
