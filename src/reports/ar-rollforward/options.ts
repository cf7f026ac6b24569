import type { z } from 'zod';
import { instantOption } from '../core/params.js';
import { unpaidInvoicesOptions } from '../unpaid-invoices/options.js';

/**
 * The A/R roll-forward's options: the period, and the ageing's own options (its opening and
 * closing are the ageing's totals, so they read invoices the same way: late fees, dropInvoice).
 */
export const arRollforwardOptions = unpaidInvoicesOptions.extend({
  /** Start of the period, an instant (a date alone: its start in the zone). @default the start of the last full month */
  from: instantOption()
    .optional()
    .describe(
      'Start of the period, an instant (a date alone: its start in the zone). Default: the start of the last full month.',
    ),
  /** End of the period, an instant (a date alone: its start in the zone). @default the start of the as-of month */
  to: instantOption()
    .optional()
    .describe(
      'End of the period, an instant (a date alone: its start in the zone). Default: the start of the as-of month.',
    ),
});

export type ArRollforwardOptions = z.output<typeof arRollforwardOptions>;
