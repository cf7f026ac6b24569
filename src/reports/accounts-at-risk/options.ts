import type { z } from 'zod';
import { complianceOptions } from '../compliance/options.js';
import { enumOption, intOption, listOption, numberOption } from '../core/params.js';
import { orderAgeingOptions } from '../order-ageing/options.js';
import { unpaidInvoicesOptions } from '../unpaid-invoices/options.js';

/** The compliance statuses a test kind can be behind on (worst first). */
export const behindChoices = ['NOT_MET', 'BEHIND', 'AT_RISK', 'PENDING_RESULTS'] as const;

/**
 * Accounts at risk: the three reports' own options (it runs them, so their readings are the
 * same), and its thresholds. Each threshold may be set for every run in config
 * `reports.options` (e.g. {"recentOrderDays": 45}) or with --option.
 */
export const accountsAtRiskOptions = complianceOptions
  .extend(unpaidInvoicesOptions.shape)
  .extend(orderAgeingOptions.shape)
  .extend({
    /** "Recent" drug or alcohol order: created at most this many days before the as-of instant. @default 30 */
    recentOrderDays: intOption(1, 366)
      .default(30)
      .describe('A recent drug or alcohol order: created at most this many days before the as-of instant.'),
    /** Compliance statuses (the worst of drug and alcohol) that count as behind. @default NOT_MET, BEHIND, AT_RISK */
    behindStatuses: listOption(enumOption(behindChoices))
      .default(['NOT_MET', 'BEHIND', 'AT_RISK'])
      .describe('Compliance statuses (the worse of drug and alcohol) that count as behind.'),
    /** TESTING_UNPAID: the oldest bucket's balance (91+ by default) must be above this many dollars. @default 0 */
    unpaidAbove: numberOption(0, 1_000_000_000)
      .default(0)
      .describe("Testing unpaid: the oldest bucket's balance must be above this many dollars."),
  });

export type AccountsAtRiskOptions = z.output<typeof accountsAtRiskOptions>;
