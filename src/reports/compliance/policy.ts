import type { OrgPolicyTable } from '../../mirror/index.js';
import { ReportParamError } from '../core/errors.js';
import type { Collector } from './collector.js';
import { rateUnits } from './math.js';
import type { Kind, OrgRates, Program } from './model.js';
import type { ComplianceOptions } from './options.js';
import { ratesOf } from './rates.js';

export function resolveDefaults(
  opts: ComplianceOptions,
  year: number,
  warn: Collector,
): { defaults: OrgRates; note: string } {
  const d = opts.defaultRates;
  const agency = d.agency.toUpperCase();
  const table = ratesOf(agency, year);
  if ((d.drug === undefined || d.alcohol === undefined) && table === undefined)
    throw new ReportParamError(
      'compliance',
      d.drug === undefined ? 'options.defaultRates.drug' : 'options.defaultRates.alcohol',
      `required when the agency is not one of the rate table's (FMCSA, FTA, FAA, FRA, PHMSA, USCG), got agency ${JSON.stringify(d.agency)}`,
    );
  if (table?.nearest && (d.drug === undefined || d.alcohol === undefined))
    warn.warnings.push(`No ${agency} rates known for ${year}: the ${table.year} rates are used as defaults`);
  const drug = d.drug ?? table?.rates.drug ?? null;
  const alcohol = d.alcohol !== undefined ? d.alcohol : (table?.rates.alcohol ?? null);
  const from =
    d.drug !== undefined && d.alcohol !== undefined
      ? 'options.defaultRates'
      : `the ${agency} table for ${table?.year ?? year}`;
  return {
    defaults: {
      program: 'UNKNOWN',
      agency,
      drug: drug === null ? null : rateUnits(drug),
      alcohol: alcohol === null ? null : rateUnits(alcohol),
      source: `default:${agency}`,
      assumed: true,
      flags: ['NO_POLICY'],
    },
    note: `${agency}: drug ${drug ?? 'none'}%, alcohol ${alcohol ?? 'none'}% (from ${from})`,
  };
}

/**
 * An org's program and rates from its policy row (docs/reports.md). DOT means a DOT registration
 * number; a DOT org without an agency takes the default agency; a DOT policy rate below its
 * agency's minimum is raised to that minimum (BELOW_AGENCY_MIN), since the regulation's rate is a
 * floor no policy can lower.
 */
export function policyRates(p: OrgPolicyTable, year: number, defaults: OrgRates, warn: Collector): OrgRates {
  const registered = p.dot_registration_number !== null && p.dot_registration_number.trim() !== '';
  const program: Program = registered || p.program === 'DOT' ? 'DOT' : 'NON_DOT';
  if (!registered && p.program === 'DOT')
    warn.add(
      'policy',
      `org_policy of org ${p.org_id}: program DOT without a DOT registration number; read as DOT as the policy says, without a default agency`,
    );
  const flags: string[] = [];
  let agency = p.agency === null || p.agency.trim() === '' ? null : p.agency.trim().toUpperCase();
  const sources = new Set<string>();
  if (agency === null && registered) {
    agency = defaults.agency;
    sources.add(`default-agency:${agency}`);
  }
  const table = agency === null ? undefined : ratesOf(agency, year);
  if (agency !== null && table === undefined && (p.rp_min_drug === null || p.rp_min_alc === null))
    warn.add(
      'policy',
      `org_policy of org ${p.org_id}: agency ${agency} has no rate table; its missing rates stay empty`,
    );
  const pick = (kind: Kind, own: number | null, fromTable: number | null | undefined): bigint | null => {
    if (own !== null) {
      sources.add(`policy:${p.source}`);
      if (program === 'DOT' && table !== undefined && fromTable != null && own < fromTable) {
        if (!flags.includes('BELOW_AGENCY_MIN')) flags.push('BELOW_AGENCY_MIN');
        warn.add(
          'policy',
          `org_policy of org ${p.org_id}: ${kind} rate ${own}% is below the ${agency} minimum ${fromTable}% for ${table.year}; the minimum is used (BELOW_AGENCY_MIN)`,
        );
        sources.add(`agency-min:${agency}`);
        return rateUnits(fromTable);
      }
      return rateUnits(own);
    }
    if (fromTable !== undefined && table !== undefined) {
      sources.add(`agency:${agency}${table.nearest ? `:${table.year}` : ''}`);
      return fromTable === null ? null : rateUnits(fromTable);
    }
    return null;
  };
  const drug = pick('drug', p.rp_min_drug, table?.rates.drug);
  const alcohol = pick('alcohol', p.rp_min_alc, table === undefined ? undefined : table.rates.alcohol);
  if (sources.size === 0) sources.add(`policy:${p.source}`);
  const source = [...sources].join('+');
  return { program, agency, drug, alcohol, source, assumed: source.includes('default-agency:'), flags };
}
