import { z } from 'zod';
import { boolOption, enumOption, intOption, numberOption } from '../core/params.js';

const programOption = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v.trim().toLowerCase() === 'all'
        ? 'all'
        : v.trim().toUpperCase().replace(/[- ]/g, '_')
      : v,
  enumOption(['DOT', 'NON_DOT', 'all']),
);

export const complianceOptions = z.object({
  /** @default the as-of year (the year before when no month of it is complete yet) */
  year: intOption(1900, 2200)
    .optional()
    .describe(
      'The year reported. Default: the as-of year (the year before when no month of it is complete yet).',
    ),
  /** @default the last full month before the as-of date; 12 for a past year */
  throughMonth: intOption(1, 12)
    .optional()
    .describe(
      'The last month counted. Default: the last full month before the as-of date; 12 for a past year.',
    ),
  /** With params.orgIds: their descendants (org_policy.parent_org_id) too. @default false */
  includeChildren: boolOption()
    .default(false)
    .describe('With --org: their child orgs (org_policy.parent_org_id) too.'),
  /**
   * DOT = the policy's DOT registration number is not blank; orgs without a policy are UNKNOWN
   * (shown under `all` only). @default 'all'
   */
  program: programOption
    .default('all')
    .describe(
      'DOT: orgs whose policy has a DOT registration number; NON_DOT: the others; all: every org (orgs without a policy are UNKNOWN, shown under all only).',
    ),
  /** @default 'sumOfChildren' */
  rollupMode: enumOption(['sumOfChildren', 'combinedPool'])
    .default('sumOfChildren')
    .describe(
      "A parent org's rollup: the sum of its children's figures, or one pool of all their employees.",
    ),
  /**
   * The selection periods of the catch-up plan (sheet Catch-up, report catch-up): the periods
   * left after the through-month are months, or quarters. @default 'monthly'
   */
  selectionPeriod: enumOption(['monthly', 'quarterly'])
    .default('monthly')
    .describe('The selection periods of the catch-up plan after the through-month: months, or quarters.'),
  /** Rates of orgs without a policy: an agency's table rates unless drug / alcohol are given. @default FMCSA */
  defaultRates: z
    .object(
      {
        agency: z
          .string({ error: 'expected an agency name' })
          .min(1, { error: 'expected an agency name' })
          .default('FMCSA'),
        drug: numberOption(0, 100).optional(),
        alcohol: numberOption(0, 100).nullable().optional(),
      },
      { error: 'expected an object {agency, drug, alcohol}' },
    )
    .default({ agency: 'FMCSA' })
    .describe(
      "Rates of orgs without a policy: an agency's table rates (FMCSA, FTA, FAA, FRA, PHMSA, USCG), unless drug and alcohol rates (percent) are given.",
    ),
});

export type ComplianceOptions = z.output<typeof complianceOptions>;
