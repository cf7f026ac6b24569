/**
 * Minimum annual random testing rates by agency and year, percent (the regulations
 * cited in docs/reports.md). `null` alcohol: the agency has no random alcohol testing. FRA is read as covered
 * service and maintenance-of-way (25 / 10); FRA mechanical (50 / 25, then 50 / 10 in 2026) needs
 * a policy row with its own rates.
 */
export interface AgencyRates {
  drug: number;
  alcohol: number | null;
}

export const agencyRates: Readonly<Record<string, Readonly<Record<number, AgencyRates>>>> = {
  FMCSA: {
    2024: { drug: 50, alcohol: 10 },
    2025: { drug: 50, alcohol: 10 },
    2026: { drug: 50, alcohol: 10 },
  },
  FTA: { 2024: { drug: 50, alcohol: 10 }, 2025: { drug: 50, alcohol: 10 }, 2026: { drug: 50, alcohol: 10 } },
  FAA: { 2024: { drug: 25, alcohol: 10 }, 2025: { drug: 25, alcohol: 10 }, 2026: { drug: 25, alcohol: 10 } },
  FRA: { 2024: { drug: 25, alcohol: 10 }, 2025: { drug: 25, alcohol: 10 }, 2026: { drug: 25, alcohol: 10 } },
  PHMSA: {
    2024: { drug: 25, alcohol: null },
    2025: { drug: 50, alcohol: null },
    2026: { drug: 50, alcohol: null },
  },
  USCG: {
    2024: { drug: 50, alcohol: null },
    2025: { drug: 50, alcohol: null },
    2026: { drug: 50, alcohol: null },
  },
};

/**
 * An agency's rates for a year; a year outside the table takes the nearest year listed
 * (`nearest` says so, for a warning). Undefined for an agency not in the table.
 */
export function ratesOf(
  agency: string,
  year: number,
): { rates: AgencyRates; year: number; nearest: boolean } | undefined {
  const table = agencyRates[agency.toUpperCase()];
  if (table === undefined) return undefined;
  const years = Object.keys(table)
    .map(Number)
    .sort((a, b) => a - b);
  const exact = table[year];
  if (exact !== undefined) return { rates: exact, year, nearest: false };
  const first = years[0] as number;
  const last = years[years.length - 1] as number;
  const y = year < first ? first : last;
  return { rates: table[y] as AgencyRates, year: y, nearest: true };
}

/**
 * Where an agency's minimum rate comes from: the regulation that sets random testing and the
 * notice that announces the rate of a year (the agencies publish it in the Federal Register each
 * year; the notices found are named, else the regulation and "the agency's notice for YEAR").
 */
const rateRules: Readonly<Record<string, { regulation: string; notices: Readonly<Record<number, string>> }>> =
  {
    FMCSA: { regulation: '49 CFR 382.305', notices: {} },
    FTA: { regulation: '49 CFR 655.45', notices: {} },
    FAA: {
      regulation: '14 CFR 120.109 (drug), 14 CFR 120.217 (alcohol)',
      notices: { 2024: '88 FR 80376 (FR doc. 2023-25488)', 2025: '89 FR 87717 (FR doc. 2024-25569)' },
    },
    FRA: { regulation: '49 CFR 219.625', notices: { 2025: '90 FR 384 (FR doc. 2024-31582)' } },
    PHMSA: { regulation: '49 CFR 199.105 (drug only)', notices: { 2025: 'PHMSA notice FR doc. 2024-26737' } },
    USCG: {
      regulation: '46 CFR 16.230 (drug only)',
      notices: {},
    },
  };

/** The source of an agency's rate for a year, in words: agency, regulation, notice, year. */
export function rateBasis(agency: string, year: number): string {
  const a = agency.toUpperCase();
  const rule = rateRules[a];
  const table = ratesOf(a, year);
  if (rule === undefined || table === undefined) return `${a}: no rate table (the policy's own rates)`;
  const notice =
    rule.notices[table.year] ?? `the ${a} minimum-rate notice for ${table.year} (Federal Register)`;
  return `${a} minimum for ${table.year}: ${rule.regulation}; ${notice}${table.nearest ? ` (no ${year} rate known: ${table.year}'s used)` : ''}`;
}
