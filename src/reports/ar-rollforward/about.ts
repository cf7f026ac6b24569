import { ORG_NAMES_ABOUT } from '../core/org-names.js';
import { LINES, NO_WRITE_OFF } from './columns.js';
import type { ArRollforwardOptions } from './options.js';
import type { Period } from './period.js';

/** The About sheet: the period, each line's rule, and what the roll-forward can and cannot see. */
export function aboutLines(
  period: Period,
  opts: ArRollforwardOptions,
  n: { invoices: number; payments: number; versions: number },
): { method: [string, string][]; results: [string, string][] } {
  const method: [string, string][] = [
    ['Period', period.note],
    ...LINES.map((l): [string, string] => [l.label.replace(/^[\s+−]+/, ''), l.rule]),
    [
      'Identity',
      "opening + new + found + late fees + other increases − decreases − cancellations + restorations − removed = closing, in integer cents, checked invoice by invoice and in total; opening and closing, and their credit balances, are checked against the unpaid-invoices ageing's own totals as of each instant (a difference is a report fault, coloured red and shown as Action needed, never silently OK)",
    ],
    [
      'Ageing',
      `as the unpaid-invoices report with the same options (lateFeeInBalance = ${opts.lateFeeInBalance}, dropInvoice = ${opts.dropInvoice}): an invoice counts from its invoice date, aged to each instant's date in the zone`,
    ],
    [
      'What the mirror sees',
      'the invoice history holds a version per change a sync observed, and the balance a payment write-back read just before sending and the answer after it: a late fee landing before a payment is a late fee and the payment shows whole; between two observations a rise of the lateFee field is a late fee and the rest of the change an increase or a decrease; other changes between two observations net out; the service gives no payment or fee lines, only the balance and lateFee',
    ],
    [
      'Payments reconciliation',
      'each payment write-back applied in the period (outbox state applied, at its settling instant), against its invoice as the mirror held it at the end of the first complete invoice sync started after it: matched (the balance read before sending dropped by the amount), not seen yet (no such sync), different (another change)',
    ],
    ['Write-offs', NO_WRITE_OFF],
    ORG_NAMES_ABOUT,
  ];
  const results: [string, string][] = [
    ['Invoices with a movement or an open balance', String(n.invoices)],
    ['Invoice versions read', String(n.versions)],
    ['Payments applied by this tool in the period', String(n.payments)],
  ];
  return { method, results };
}
