import { z } from 'zod';
import { boolOption, enumOption, intOption, numberOption } from '../params.js';

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
  year: intOption(1900, 2200).optional(),
  /** @default the last full month before the as-of date; 12 for a past year */
  throughMonth: intOption(1, 12).optional(),
  /** With params.orgIds: their descendants (org_policy.parent_org_id) too. @default false */
  includeChildren: boolOption().default(false),
  /**
   * DOT = the policy's DOT registration number is not blank; orgs without a policy are UNKNOWN
   * (shown under `all` only). @default 'all'
   */
  program: programOption.default('all'),
  /** @default 'sumOfChildren' */
  rollupMode: enumOption(['sumOfChildren', 'combinedPool']).default('sumOfChildren'),
  /**
   * The selection periods of the catch-up plan (sheet Catch-up, report catch-up): the periods
   * left after the through-month are months, or quarters. @default 'monthly'
   */
  selectionPeriod: enumOption(['monthly', 'quarterly']).default('monthly'),
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
    .default({ agency: 'FMCSA' }),
});

export type ComplianceOptions = z.output<typeof complianceOptions>;
