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
