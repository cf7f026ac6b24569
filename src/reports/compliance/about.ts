import { ASSUMED } from './model.js';
import { MONTHS } from './months.js';
import type { ComplianceOptions } from './options.js';

interface AboutFacts {
  year: number;
  m: number;
  monthNote: string;
  defaultsNote: string;
  sourceLine: string;
  opts: ComplianceOptions;
  rollups: number;
  /** The About line of the Trend sheet. */
  trend: [string, string];
  /** The instant the mirror was read as of; undefined: the present. */
  at: string | undefined;
  orgs: number;
  details: number;
  /** Orgs scored on an assumed rate. */
  assumed: number;
  /** The policies in force at the report's instant, named. */
  policies: string;
}

/** The About sheet: what the report read and how (method), and what it found (results). */
export function aboutLines(f: AboutFacts): { method: [string, string][]; results: [string, string][] } {
  const { year, m, monthNote, defaultsNote, sourceLine, opts } = f;
  const method: [string, string][] = [
    [
      'Orgs on an assumed rate',
      `${f.assumed} of ${f.orgs}: no policy (or a DOT policy without an agency), so scored on the default rates; their statuses read "...${ASSUMED}" and are not coloured as a measured failure`,
    ],
    ['Year and months', `${year}, ${MONTHS[0]} to ${MONTHS[m - 1]} (month ${m}: ${monthNote})`],
    [
      'Rates',
      `Per org from org_policy (its own rpMinDrug / rpMinAlc, else its agency's table rate), else the default agency. Column rateSource per org. ${sourceLine || 'No orgs.'}`,
    ],
    [
      'Default rates',
      `${defaultsNote}; used for orgs without a policy (program UNKNOWN, flag NO_POLICY, never in DOT totals) and as the agency of DOT policies that name none`,
    ],
    [
      'Program',
      'DOT = the policy has a DOT registration number (rpDotRegistrationNumber); a DOT policy rate below its agency minimum is raised to it (BELOW_AGENCY_MIN)',
    ],
    ['Policies in force', f.policies],
    ['Program filter', opts.program],
    [
      'Rollup mode',
      `${opts.rollupMode}${f.rollups > 0 ? ' (sheet Rollups; parents from org_policy.parent_org_id)' : ' (no parent org in the report)'}: ${opts.rollupMode === 'sumOfChildren' ? 'each member is judged on its own target; the rollup status is the worst member status and names the members below ON_TRACK; summed counts are for information' : 'pools and counts added, the highest member rate used (a C/TPA pool)'}`,
    ],
    [
      'Status',
      'MET / ON_TRACK / PENDING_RESULTS / AT_RISK (remaining > months left × own monthly pace) / BEHIND; at month 12 MET or NOT_MET; N/A with no pool (NO_POOL)',
    ],
    ['Include children', String(opts.includeChildren)],
    [
      'Method',
      'Only completed tests (countPicked…Result) count; a missing month after the first row of the year carries the pool forward (DATA_GAP); targets are exact (ceil of rate × projected average pool)',
    ],
    [
      'Rates achieved',
      'Two rates, named for what they are: "rate achieved to date" (MIS random by employer) = completed ÷ the average pool of the months that have passed (no projected month averaged in); "annualized rate" (YTD by org, detail) = completed × 12 ÷ exposure, the rate the year reaches if the pace so far goes on. At month 12 both are completed ÷ the year\'s average pool. The tests required (annual target) use the projected average pool: the months passed, and the last pool for the months left',
    ],
    [
      'Mirror read',
      `${f.at === undefined ? 'The present: OrgMonth rows as last synced' : `As known at ${f.at}: OrgMonth rows as the mirror held them then (its history); a count changed before that instant but synced after it is not known`}. Policies as in force at that instant (Policies in force). A December pick collected in January stays in its pick month.`,
    ],
  ];
  const results: [string, string][] = [
    ['Orgs', String(f.orgs)],
    ['Detail rows', String(f.details)],
    ['Rollup rows', String(f.rollups)],
    f.trend,
  ];
  return { method, results };
}
