import { z } from 'zod';
import { boolOption, enumOption, intOption } from '../params.js';

export const unpaidInvoicesOptions = z.object({
  /** Age from the due date (QuickBooks) or from the invoice date. @default 'dueDate' */
  agingBasis: enumOption(['dueDate', 'invoiceDate']).default('dueDate'),
  /** Days per aging period. @default 30 */
  periodDays: intOption(1, 366).default(30),
  /** Aging periods between Current and the open-ended last bucket. @default 3 */
  periods: intOption(1, 24).default(3),
  /** The balance already holds the late fee (then lateFee is informational). @default true */
  lateFeeInBalance: boolOption().default(true),
  /** Org summary order: total descending, or org name. @default 'total' */
  summarySort: enumOption(['total', 'name']).default('total'),
  /** With params.orgIds: their descendants (org_policy.parent_org_id) too. @default false */
  includeChildren: boolOption().default(false),
  /**
   * How Invoice.dropInvoice is read: `cancelled` (the interface: "whether the invoice was
   * cancelled"; any value but blank, false, 0 or no cancels it) or `ignore` (a service that fills
   * it with something else: shown only). @default 'cancelled'
   */
  dropInvoice: enumOption(['cancelled', 'ignore']).default('cancelled'),
});

export type UnpaidInvoicesOptions = z.output<typeof unpaidInvoicesOptions>;
