import { z } from 'zod';
import { boolOption, enumOption, intOption } from '../core/params.js';

export const unpaidInvoicesOptions = z.object({
  /** Age from the due date (QuickBooks) or from the invoice date. @default 'dueDate' */
  agingBasis: enumOption(['dueDate', 'invoiceDate'])
    .default('dueDate')
    .describe('Age from the due date (as QuickBooks does) or from the invoice date.'),
  /** Days per aging period. @default 30 */
  periodDays: intOption(1, 366).default(30).describe('Days per ageing period.'),
  /** Aging periods between Current and the open-ended last bucket. @default 3 */
  periods: intOption(1, 24)
    .default(3)
    .describe('Ageing periods between Current and the open-ended last bucket.'),
  /** The balance already holds the late fee (then lateFee is informational). @default true */
  lateFeeInBalance: boolOption()
    .default(true)
    .describe('The balance already holds the late fee (then lateFee is only shown).'),
  /** Org summary order: total descending, or org name. @default 'total' */
  summarySort: enumOption(['total', 'name'])
    .default('total')
    .describe('Order of the org summary: total owed, largest first, or org name.'),
  /** With params.orgIds: their descendants (org_policy.parent_org_id) too. @default false */
  includeChildren: boolOption()
    .default(false)
    .describe('With --org: their child orgs (org_policy.parent_org_id) too.'),
  /**
   * How Invoice.dropInvoice is read: `cancelled` (the interface: "whether the invoice was
   * cancelled"; any value but blank, false, 0 or no cancels it) or `ignore` (a service that fills
   * it with something else: shown only). @default 'cancelled'
   */
  dropInvoice: enumOption(['cancelled', 'ignore'])
    .default('cancelled')
    .describe(
      'How Invoice.dropInvoice is read: cancelled (any value but blank, false, 0 or no cancels the invoice) or ignore (shown only: a service that fills it with something else).',
    ),
});

export type UnpaidInvoicesOptions = z.output<typeof unpaidInvoicesOptions>;
