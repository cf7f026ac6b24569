import type { Kysely } from 'kysely';
import { z } from 'zod';
import { asOf, type Database, type OrgPolicyTable } from '../mirror/index.js';
import type { Column, Row, Sheet } from '../render/types.js';
import {
  type MonthEnd,
  monthEnds,
  TREND_MONTHS,
  trendColumns,
  trendNoteColumn,
  trendRowsEach,
} from './ar-trend.js';
import { failingFirst, misColumns, misRows, problemColumns, problemRows } from './compliance-evidence.js';
import {
  annualTarget,
  type ComplianceStatus,
  derive,
  expectedNumerator,
  expectedValue,
  ratePercent,
  rateUnits,
  statusOf,
  statusRank,
} from './compliance-math.js';
import { daysInMonth, formatDate } from './dates.js';
import { ReportParamError } from './errors.js';
import { orgNames } from './org-names.js';
import {
  boolOption,
  type CommonParams,
  commonParams,
  enumOption,
  intOption,
  numberOption,
  parseOptions,
  withDescendants,
} from './params.js';
import { ratesOf } from './rates.js';
import { rawWhereNull, withSentValues } from './sent-values.js';
import { lastSyncLines } from './sync-info.js';
import { reportDb } from './tables.js';
import type { ReportContext, ReportDefinition } from './types.js';
import { asInteger, asNumber, asText, compareOrgs } from './values.js';

/**
 * OrgMonth random-pick compliance (REPORTS.md 1): per org and month of a year, is the org on pace
 * for its minimum annual random drug and alcohol rates, and did it meet them at year end.
 * OrgMonth is per org and month, so the rows of the year are read whole.
 */
const REPORT = 'compliance';

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

/** UNKNOWN: no policy row, so no registration number; never counted with DOT orgs. */
type Program = 'DOT' | 'NON_DOT' | 'UNKNOWN';
const programs: readonly Program[] = ['DOT', 'NON_DOT', 'UNKNOWN'];

interface OrgRates {
  program: Program;
  agency: string | null;
  /** Rate units (compliance-math), null: no rate. */
  drug: bigint | null;
  alcohol: bigint | null;
  source: string;
  /**
   * The rates are assumed, not the org's own: no policy (the default agency's rates) or a DOT
   * policy without an agency (the default agency). Its statuses say so (REPORTS.md 1.2, turn 3).
   */
  assumed: boolean;
  /** Flags of every month of the org: NO_POLICY, BELOW_AGENCY_MIN. */
  flags: string[];
}

interface MonthInput {
  id: number | null;
  label: string;
  pool: number | null;
  eligibleAll: number | null;
  drugPicked: number;
  drugCompleted: number;
  alcoholPicked: number;
  alcoholCompleted: number;
  /** The documents the mirror has for the month, by name (the `drop*` value), or null. */
  randomPickDocument: string | null;
  coveredEmployeeDocument: string | null;
  misReportDocument: string | null;
}

interface KindCalc {
  picked: number;
  completed: number;
  pickedYtd: number;
  completedYtd: number;
}

interface MonthCalc {
  month: number;
  pool: number;
  exposure: number;
  flags: string[];
  input: MonthInput | undefined;
  drug: KindCalc;
  alcohol: KindCalc;
  /** Picks of the month (drug and alcohol) without a result. */
  picksNotCompleted: number;
}

interface OrgCalc {
  orgId: number;
  org: string | null;
  rates: OrgRates;
  months: MonthCalc[];
}

/** A test kind's figures through a month: targets null when there is no rate. */
interface KindFigures extends KindCalc {
  ratePercent: number | null;
  target: number | null;
  expectedNum: bigint | null;
  /** Status when there is no rate: NO_RATE (drug) or N/A (alcohol). */
  noRate: string;
  /** On an assumed rate: the status says so. */
  assumed?: boolean;
}

/** The text of a status computed on an assumed rate: never the bare (red) status of a finding. */
export const ASSUMED = ' (assumed rate)';

const kinds = ['drug', 'alcohol'] as const;
type Kind = (typeof kinds)[number];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `YYYY-MM`, `YYYY-M`, `MM/YYYY` or `M/YYYY` (REPORTS.md 1.2); null when the label is no month. */
export function parseMonthLabel(label: string | null): { year: number; month: number } | null {
  if (label === null) return null;
  const s = label.trim();
  let m = /^(\d{4})-(\d{1,2})$/.exec(s);
  let year: number;
  let month: number;
  if (m !== null) {
    year = Number(m[1]);
    month = Number(m[2]);
  } else {
    m = /^(\d{1,2})\/(\d{4})$/.exec(s);
    if (m === null) return null;
    month = Number(m[1]);
    year = Number(m[2]);
  }
  return month >= 1 && month <= 12 ? { year, month } : null;
}

/** Red: not met or not on pace; amber: waiting for results. */
const statusAlert: Column['alert'] = { red: ['NOT_MET', 'BEHIND', 'AT_RISK'], amber: ['PENDING_RESULTS'] };

function kindColumns(kind: Kind, title: string): Column[] {
  return [
    { key: `${kind}Rate`, title: `${title} rate %`, type: 'number', decimals: 1, width: 9 },
    { key: `${kind}Picked`, title: `${title} picked`, type: 'integer', width: 9 },
    { key: `${kind}Completed`, title: `${title} completed`, type: 'integer', width: 11 },
    { key: `${kind}PickedYtd`, title: `${title} picked YTD`, type: 'integer', width: 11 },
    { key: `${kind}CompletedYtd`, title: `${title} completed YTD`, type: 'integer', width: 13 },
    {
      key: `${kind}ExpectedToDate`,
      title: `${title} expected to date`,
      type: 'number',
      decimals: 2,
      width: 13,
    },
    { key: `${kind}AnnualTarget`, title: `${title} annual target`, type: 'integer', width: 12 },
    { key: `${kind}Status`, title: `${title} status`, type: 'string', width: 16, alert: statusAlert },
  ];
}

function kindExtraColumns(kind: Kind, title: string): Column[] {
  return [
    { key: `${kind}Shortfall`, title: `${title} shortfall`, type: 'number', decimals: 2, width: 10 },
    { key: `${kind}Remaining`, title: `${title} remaining`, type: 'integer', width: 10 },
    {
      key: `${kind}NeededPerMonth`,
      title: `${title} needed per month`,
      type: 'number',
      decimals: 2,
      width: 12,
    },
    { key: `${kind}AnnualizedRate`, title: `${title} annualized rate`, type: 'percent', width: 12 },
    { key: `${kind}CompletionRatio`, title: `${title} completion ratio`, type: 'percent', width: 12 },
  ];
}

/** Detail columns: REPORTS.md's CSV keys in order, then the other computed columns. */
export const complianceColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'month', title: 'Month', type: 'integer', width: 6 },
  { key: 'pool', title: 'Random pool', type: 'integer', width: 9 },
  { key: 'exposure', title: 'Exposure (pool-months YTD)', type: 'integer', width: 11 },
  ...kindColumns('drug', 'Drug'),
  ...kindColumns('alcohol', 'Alcohol'),
  { key: 'rateSource', title: 'Rate source', type: 'string', width: 18 },
  { key: 'flags', title: 'Flags', type: 'string', width: 20 },
  { key: 'program', title: 'Program', type: 'string', width: 9 },
  { key: 'agency', title: 'Agency', type: 'string', width: 8 },
  { key: 'avgPoolYtd', title: 'Average pool YTD', type: 'number', decimals: 2, width: 10 },
  { key: 'projectedAvg', title: 'Projected average pool', type: 'number', decimals: 2, width: 10 },
  ...kindExtraColumns('drug', 'Drug'),
  ...kindExtraColumns('alcohol', 'Alcohol'),
  { key: 'eligibleAll', title: 'Eligible, all', type: 'integer', width: 9 },
  { key: 'randomPickDocument', title: 'Random pick document', type: 'string', width: 30 },
  { key: 'coveredEmployeeDocument', title: 'Covered-employee list', type: 'string', width: 30 },
  { key: 'misReportDocument', title: 'MIS report document', type: 'string', width: 30 },
  { key: 'picksNotCompleted', title: 'Picks not completed (month)', type: 'integer', width: 10 },
  { key: 'orgMonthId', title: 'OrgMonth id', type: 'integer', width: 10 },
  { key: 'label', title: 'OrgMonth label', type: 'string', width: 10 },
];

/**
 * The detail's print view (issue 22): the columns a person reads on paper; the others are
 * grouped and collapsed in the workbook (a click on + shows them), so they do not print. The
 * org id and name are frozen and repeated on every page.
 */
const printColumns = [
  'orgId',
  'org',
  'month',
  'pool',
  'drugCompletedYtd',
  'drugExpectedToDate',
  'drugAnnualTarget',
  'drugStatus',
  'alcoholCompletedYtd',
  'alcoholExpectedToDate',
  'alcoholAnnualTarget',
  'alcoholStatus',
  'flags',
];

const ytdColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'program', title: 'Program', type: 'string', width: 9 },
  { key: 'rateSource', title: 'Rate source', type: 'string', width: 18 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'throughMonth', title: 'Through month', type: 'integer', width: 8 },
  { key: 'exposure', title: 'Exposure (pool-months YTD)', type: 'integer', width: 11 },
  { key: 'avgPoolYtd', title: 'Average pool YTD', type: 'number', decimals: 2, width: 10 },
  { key: 'projectedAvg', title: 'Projected average pool', type: 'number', decimals: 2, width: 10 },
  ...kinds.flatMap((kind) => {
    const title = kind === 'drug' ? 'Drug' : 'Alcohol';
    return [
      {
        key: `${kind}Rate`,
        title: `${title} rate %`,
        type: 'number',
        decimals: 1,
        width: 9,
      } satisfies Column,
      ...kindColumns(kind, title).slice(3),
      ...kindExtraColumns(kind, title),
    ];
  }),
  { key: 'flags', title: 'Flags (months)', type: 'string', width: 24 },
  { key: 'picksNotCompleted', title: 'Picks not completed YTD', type: 'integer', width: 10 },
  { key: 'monthsPicksNotCompleted', title: 'Months with picks not completed', type: 'integer', width: 10 },
  { key: 'quartersWithoutSelection', title: 'Quarters with no selection', type: 'string', width: 12 },
  {
    key: 'monthsWithoutCoveredList',
    title: 'Months with no covered-employee list',
    type: 'integer',
    width: 12,
  },
  { key: 'randomPickDocuments', title: 'Months with a random pick document', type: 'integer', width: 12 },
  { key: 'misReportDocument', title: 'MIS report document', type: 'string', width: 30 },
];

const rollupColumns: Column[] = [
  { key: 'orgId', title: 'Parent org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Parent org', type: 'string', width: 32 },
  { key: 'program', title: 'Program', type: 'string', width: 9 },
  { key: 'rollupMode', title: 'Rollup mode', type: 'string', width: 14 },
  { key: 'members', title: 'Member org ids', type: 'string', width: 20 },
  { key: 'year', title: 'Year', type: 'integer', width: 6 },
  { key: 'month', title: 'Month', type: 'integer', width: 6 },
  { key: 'pool', title: 'Random pool', type: 'integer', width: 9 },
  { key: 'exposure', title: 'Exposure (pool-months YTD)', type: 'integer', width: 11 },
  ...kindColumns('drug', 'Drug'),
  ...kindColumns('alcohol', 'Alcohol'),
  ...kindExtraColumns('drug', 'Drug'),
  ...kindExtraColumns('alcohol', 'Alcohol'),
  {
    key: 'drugMembersBelow',
    title: 'Drug: members below ON_TRACK or with no pool',
    type: 'string',
    width: 40,
  },
  {
    key: 'alcoholMembersBelow',
    title: 'Alcohol: members below ON_TRACK or with no pool',
    type: 'string',
    width: 40,
  },
  { key: 'flags', title: 'Flags', type: 'string', width: 20 },
];

function kindCells(kind: Kind, m: number, exposure: number, f: KindFigures): Row {
  const row: Row = {
    [`${kind}Rate`]: f.ratePercent,
    [`${kind}Picked`]: f.picked,
    [`${kind}Completed`]: f.completed,
    [`${kind}PickedYtd`]: f.pickedYtd,
    [`${kind}CompletedYtd`]: f.completedYtd,
  };
  if (f.target === null || f.expectedNum === null) {
    return {
      ...row,
      [`${kind}ExpectedToDate`]: null,
      [`${kind}AnnualTarget`]: null,
      [`${kind}Status`]: f.noRate,
      [`${kind}Shortfall`]: null,
      [`${kind}Remaining`]: null,
      [`${kind}NeededPerMonth`]: null,
      [`${kind}AnnualizedRate`]: null,
      [`${kind}CompletionRatio`]: f.pickedYtd === 0 ? null : f.completedYtd / f.pickedYtd,
    };
  }
  const d = derive(m, exposure, f.target, f.expectedNum, f.pickedYtd, f.completedYtd);
  const status: ComplianceStatus = statusOf(
    m,
    f.target,
    f.expectedNum,
    f.pickedYtd,
    f.completedYtd,
    exposure,
  );
  return {
    ...row,
    [`${kind}ExpectedToDate`]: d.expectedToDate,
    [`${kind}AnnualTarget`]: f.target,
    [`${kind}Status`]: f.assumed && status !== 'N/A' ? `${status}${ASSUMED}` : status,
    [`${kind}Shortfall`]: d.shortfall,
    [`${kind}Remaining`]: d.remaining,
    [`${kind}NeededPerMonth`]: d.neededPerMonth,
    [`${kind}AnnualizedRate`]: d.annualizedRate,
    [`${kind}CompletionRatio`]: d.completionRatio,
  };
}

function poolCells(m: number, pool: number, exposure: number): Row {
  return {
    pool,
    exposure,
    avgPoolYtd: exposure / m,
    projectedAvg: (exposure + pool * (12 - m)) / 12,
  };
}

/** An org's own figures of a kind at a month. */
function orgFigures(calc: OrgCalc, mc: MonthCalc, kind: Kind): KindFigures {
  const units = calc.rates[kind];
  const has = units !== null && units > 0n;
  return {
    ...mc[kind],
    ratePercent: units === null ? null : ratePercent(units),
    target: has ? annualTarget(units, mc.exposure, mc.pool, mc.month) : null,
    expectedNum: has ? expectedNumerator(units, mc.exposure) : null,
    noRate: kind === 'drug' ? 'NO_RATE' : 'N/A',
    assumed: calc.rates.assumed,
  };
}

class Collector {
  readonly warnings: string[] = [];
  private readonly limited = new Map<string, string[]>();

  /** Many warnings of one kind are listed up to a limit, then counted. */
  add(kind: string, line: string): void {
    const list = this.limited.get(kind) ?? [];
    list.push(line);
    this.limited.set(kind, list);
  }

  lines(limit = 100): string[] {
    const out = [...this.warnings];
    for (const list of this.limited.values()) {
      out.push(...list.slice(0, limit));
      if (list.length > limit) out.push(`... and ${list.length - limit} more like the above`);
    }
    return out;
  }
}

/** The year reported and its last month m. */
interface YearChoice {
  year: number;
  m: number;
  monthNote: string;
}

function resolveYear(common: CommonParams, opts: ComplianceOptions, warn: Collector): YearChoice {
  const asOf = common.asOf;
  const lastFull = (year: number) =>
    year < asOf.year
      ? 12
      : year > asOf.year
        ? 0
        : asOf.day === daysInMonth(asOf.year, asOf.month)
          ? asOf.month
          : asOf.month - 1;
  let year = opts.year ?? asOf.year;
  if (opts.throughMonth !== undefined) {
    if (opts.throughMonth > lastFull(year))
      warn.warnings.push(
        `throughMonth ${opts.throughMonth} of ${year} is not complete on the as-of date ${common.asOfText}: its counts may still grow`,
      );
    return { year, m: opts.throughMonth, monthNote: 'throughMonth as given' };
  }
  let m = lastFull(year);
  let monthNote = year < asOf.year ? 'the year is over' : `the last full month before the as-of date`;
  if (m === 0 && opts.year === undefined) {
    year -= 1;
    m = 12;
    monthNote = `no month of ${asOf.year} is complete on the as-of date, so the year before is reported`;
  }
  if (m === 0)
    throw new ReportParamError(
      REPORT,
      'options.year',
      `no month of ${year} is complete on the as-of date ${common.asOfText}; give options.throughMonth`,
    );
  return { year, m, monthNote };
}

function resolveDefaults(
  opts: ComplianceOptions,
  year: number,
  warn: Collector,
): { defaults: OrgRates; note: string } {
  const d = opts.defaultRates;
  const agency = d.agency.toUpperCase();
  const table = ratesOf(agency, year);
  if ((d.drug === undefined || d.alcohol === undefined) && table === undefined)
    throw new ReportParamError(
      REPORT,
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
 * An org's program and rates from its policy row (REPORTS.md 1.2). DOT means a DOT registration
 * number; a DOT org without an agency takes the default agency; a DOT policy rate below its
 * agency's minimum is raised to that minimum (BELOW_AGENCY_MIN), since the regulation's rate is a
 * floor no policy can lower.
 */
function policyRates(p: OrgPolicyTable, year: number, defaults: OrgRates, warn: Collector): OrgRates {
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

/** A pool that is not a number is a missing pool (DATA_GAP); a non-empty one is also listed. */
function unreadablePool(v: unknown, where: string, warn: Collector): null {
  if (v !== null && v !== undefined && v !== '')
    warn.add('unreadable', `${where}: pool ${JSON.stringify(v)} is not a number; read as missing`);
  return null;
}

/** Counts a value of an OrgMonth count; an unreadable one (`"lots"`) is 0, listed in the warnings. */
function count(v: unknown, what: string, where: string, warn: Collector): number {
  const n = asNumber(v);
  if (n === null) {
    if (v !== null && v !== undefined && v !== '')
      warn.add('unreadable', `${where}: ${what} ${JSON.stringify(v)} is not a number; read as 0`);
    return 0;
  }
  if (!Number.isInteger(n) || n < 0) {
    warn.add('counts', `${where}: ${what} ${n} is not a whole count; read as ${Math.max(0, Math.round(n))}`);
    return Math.max(0, Math.round(n));
  }
  return n;
}

function computeOrg(
  orgId: number,
  org: string | null,
  rows: Map<number, MonthInput>,
  m: number,
  year: number,
  rates: OrgRates,
  warn: Collector,
): OrgCalc {
  const first = Math.min(...rows.keys());
  const months: MonthCalc[] = [];
  let pool = 0;
  let exposure = 0;
  const ytd = { drug: { picked: 0, completed: 0 }, alcohol: { picked: 0, completed: 0 } };
  const name = `${org ?? 'org'} (${orgId})`;
  const quarter = { picks: 0, pool: 0 };
  for (let i = 1; i <= m; i++) {
    const input = rows.get(i);
    const flags: string[] = [];
    const when = `${year}-${String(i).padStart(2, '0')}`;
    if (input !== undefined && input.pool !== null) pool = input.pool;
    else if (i < first) pool = 0;
    else {
      // A missing month (or a row without a pool) after the org's first row: the pool is taken
      // as unchanged from the month before (REPORTS.md gap rule).
      flags.push('DATA_GAP');
      warn.add(
        'gap',
        `${name} ${when}: ${input === undefined ? 'no OrgMonth row' : 'no pool count'}; pool ${pool} carried forward (DATA_GAP)`,
      );
    }
    exposure += pool;
    const kindCalc = (kind: Kind): KindCalc => {
      const picked = input === undefined ? 0 : kind === 'drug' ? input.drugPicked : input.alcoholPicked;
      const completed =
        input === undefined ? 0 : kind === 'drug' ? input.drugCompleted : input.alcoholCompleted;
      ytd[kind].picked += picked;
      ytd[kind].completed += completed;
      if (completed > picked) {
        if (!flags.includes('DATA_CHECK')) flags.push('DATA_CHECK');
        warn.add(
          'check',
          `${name} ${when}: ${kind} results ${completed} exceed picks ${picked} (DATA_CHECK)`,
        );
      }
      if (picked > 0 && pool === 0) {
        if (!flags.includes('DATA_CHECK')) flags.push('DATA_CHECK');
        warn.add('check', `${name} ${when}: ${picked} ${kind} picks with a pool of 0 (DATA_CHECK)`);
      }
      return { picked, completed, pickedYtd: ytd[kind].picked, completedYtd: ytd[kind].completed };
    };
    const drug = kindCalc('drug');
    const alcohol = kindCalc('alcohol');
    // Evidence an auditor asks for: picks never completed, and a quarter with no selection
    // (selections are spread over the year; at least quarterly is DOT best practice [S20]).
    const picksNotCompleted =
      Math.max(0, drug.picked - drug.completed) + Math.max(0, alcohol.picked - alcohol.completed);
    if (picksNotCompleted > 0) flags.push('PICKS_NOT_COMPLETED');
    quarter.picks += drug.picked + alcohol.picked;
    quarter.pool += pool;
    if (i % 3 === 0) {
      if (quarter.picks === 0 && quarter.pool > 0) flags.push(`NO_SELECTION_Q${i / 3}`);
      quarter.picks = 0;
      quarter.pool = 0;
    }
    if (exposure === 0) flags.push('NO_POOL');
    if (rates.drug === null) flags.push('NO_RATE');
    flags.push(...rates.flags);
    months.push({ month: i, pool, exposure, flags, input, drug, alcohol, picksNotCompleted });
  }
  return { orgId, org, rates, months };
}

function detailRow(calc: OrgCalc, mc: MonthCalc, year: number): Row {
  const input = mc.input;
  return {
    orgId: calc.orgId,
    org: calc.org,
    year,
    month: mc.month,
    ...poolCells(mc.month, mc.pool, mc.exposure),
    ...kindCells('drug', mc.month, mc.exposure, orgFigures(calc, mc, 'drug')),
    ...kindCells('alcohol', mc.month, mc.exposure, orgFigures(calc, mc, 'alcohol')),
    rateSource: calc.rates.source,
    flags: mc.flags.length === 0 ? null : mc.flags.join(';'),
    program: calc.rates.program,
    agency: calc.rates.agency,
    eligibleAll: input?.eligibleAll ?? null,
    randomPickDocument: input?.randomPickDocument ?? null,
    coveredEmployeeDocument: input?.coveredEmployeeDocument ?? null,
    misReportDocument: input?.misReportDocument ?? null,
    picksNotCompleted: mc.picksNotCompleted,
    orgMonthId: input?.id ?? null,
    label: input?.label ?? null,
  };
}

function ytdRow(calc: OrgCalc, year: number): Row {
  const last = calc.months[calc.months.length - 1] as MonthCalc;
  const flagCounts = new Map<string, number>();
  for (const mc of calc.months) for (const f of mc.flags) flagCounts.set(f, (flagCounts.get(f) ?? 0) + 1);
  const row = detailRow(calc, last, year);
  delete row.month;
  const quarters = calc.months.flatMap((mc) =>
    mc.flags.filter((f) => f.startsWith('NO_SELECTION_')).map((f) => f.slice('NO_SELECTION_'.length)),
  );
  return {
    ...row,
    picksNotCompleted: calc.months.reduce((sum, mc) => sum + mc.picksNotCompleted, 0),
    monthsPicksNotCompleted: calc.months.filter((mc) => mc.picksNotCompleted > 0).length,
    quartersWithoutSelection: quarters.length === 0 ? null : quarters.join(';'),
    monthsWithoutCoveredList: calc.months.filter((mc) => mc.input?.coveredEmployeeDocument == null).length,
    randomPickDocuments: calc.months.filter((mc) => mc.input?.randomPickDocument != null).length,
    misReportDocument:
      calc.months.map((mc) => mc.input?.misReportDocument ?? null).findLast((d) => d !== null) ?? null,
    throughMonth: last.month,
    flags: flagCounts.size === 0 ? null : [...flagCounts].map(([f, n]) => `${f}(${n})`).join(';'),
  };
}

/**
 * The worst own status of the members at a month (N/A and members without a rate ignored) and
 * the members below ON_TRACK, as `name (id) STATUS completed/target`.
 */
function worstMember(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
  month: number,
): { status: string; below: string[] } {
  let worst: ComplianceStatus | null = null;
  const below: string[] = [];
  for (const { calc, mc } of members) {
    const own = orgFigures(calc, mc, kind);
    if (own.target === null || own.expectedNum === null) continue;
    const st = statusOf(month, own.target, own.expectedNum, own.pickedYtd, own.completedYtd, mc.exposure);
    if (st === 'N/A') {
      // A member with no pool so far is not judged, but listed, never dropped.
      below.push(`${calc.org ?? 'org'} (${calc.orgId}) N/A (pool 0)`);
      continue;
    }
    if (worst === null || statusRank[st] < statusRank[worst]) worst = st;
    if (statusRank[st] < statusRank.ON_TRACK)
      below.push(`${calc.org ?? 'org'} (${calc.orgId}) ${st} ${own.completedYtd}/${own.target}`);
  }
  return {
    status:
      worst ?? (kind === 'drug' && members.every((x) => x.calc.rates.drug === null) ? 'NO_RATE' : 'N/A'),
    below,
  };
}

/** Sums the figures of several orgs of one kind at a month (sumOfChildren). */
function sumFigures(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
): { f: KindFigures; partial: boolean } {
  const f: KindFigures = {
    picked: 0,
    completed: 0,
    pickedYtd: 0,
    completedYtd: 0,
    ratePercent: null,
    target: null,
    expectedNum: null,
    noRate: kind === 'drug' ? 'NO_RATE' : 'N/A',
  };
  let partial = false;
  for (const { calc, mc } of members) {
    const own = orgFigures(calc, mc, kind);
    if (own.target === null || own.expectedNum === null) {
      partial = true;
      continue;
    }
    f.picked += own.picked;
    f.completed += own.completed;
    f.pickedYtd += own.pickedYtd;
    f.completedYtd += own.completedYtd;
    f.target = (f.target ?? 0) + own.target;
    f.expectedNum = (f.expectedNum ?? 0n) + own.expectedNum;
  }
  return { f, partial: partial && f.target !== null };
}

/** Pools and counts added, the highest member rate used (combinedPool, a C/TPA pool). */
function combinedFigures(
  members: { calc: OrgCalc; mc: MonthCalc }[],
  kind: Kind,
  month: number,
  pool: number,
  exposure: number,
): KindFigures {
  let units: bigint | null = null;
  const f: KindFigures = {
    picked: 0,
    completed: 0,
    pickedYtd: 0,
    completedYtd: 0,
    ratePercent: null,
    target: null,
    expectedNum: null,
    noRate: kind === 'drug' ? 'NO_RATE' : 'N/A',
  };
  for (const { calc, mc } of members) {
    const r = calc.rates[kind];
    if (r !== null && r > 0n && (units === null || r > units)) units = r;
    f.picked += mc[kind].picked;
    f.completed += mc[kind].completed;
    f.pickedYtd += mc[kind].pickedYtd;
    f.completedYtd += mc[kind].completedYtd;
  }
  if (units !== null) {
    f.ratePercent = ratePercent(units);
    f.target = annualTarget(units, exposure, pool, month);
    f.expectedNum = expectedNumerator(units, exposure);
  }
  return f;
}

function rollupRows(
  parent: number,
  parentName: string | null,
  program: Program,
  members: OrgCalc[],
  mode: 'sumOfChildren' | 'combinedPool',
  m: number,
  year: number,
): Row[] {
  const rows: Row[] = [];
  for (let i = 1; i <= m; i++) {
    const at = members.map((calc) => ({ calc, mc: calc.months[i - 1] as MonthCalc }));
    const pool = at.reduce((s, x) => s + x.mc.pool, 0);
    const exposure = at.reduce((s, x) => s + x.mc.exposure, 0);
    const flags = new Set<string>();
    for (const x of at) for (const f of x.mc.flags) if (f !== 'NO_POOL' && f !== 'NO_RATE') flags.add(f);
    if (exposure === 0) flags.add('NO_POOL');
    const row: Row = {
      orgId: parent,
      org: parentName,
      program,
      rollupMode: mode,
      members: members.map((c) => c.orgId).join(';'),
      year,
      month: i,
      pool,
      exposure,
    };
    for (const kind of kinds) {
      let f: KindFigures;
      if (mode === 'sumOfChildren') {
        const s = sumFigures(at, kind);
        f = s.f;
        if (s.partial) flags.add(`PARTIAL_${kind.toUpperCase()}_RATES`);
      } else f = combinedFigures(at, kind, i, pool, exposure);
      if (kind === 'drug' && f.target === null) flags.add('NO_RATE');
      Object.assign(row, kindCells(kind, i, exposure, f));
      // Each employer outside a consortium meets its own rate (49 CFR 382.305): in sumOfChildren
      // the summed figures are for information and the status is the worst member's. In a
      // combined pool the pool's status stands, and the weakest members are still named.
      const worst = worstMember(at, kind, i);
      if (mode === 'sumOfChildren') row[`${kind}Status`] = worst.status;
      row[`${kind}MembersBelow`] = worst.below.length === 0 ? null : worst.below.join('; ');
    }
    row.flags = flags.size === 0 ? null : [...flags].join(';');
    rows.push(row);
  }
  return rows;
}

/**
 * The total of a program's orgs (DOT, non-DOT and orgs without policy are never added together).
 * Picks and completions of a kind count only for orgs with a target of that kind, so the counts
 * and the targets they are read against cover the same orgs.
 */
function totalRow(calcs: OrgCalc[], program: Program, year: number, m: number): Row {
  const row: Row = { org: `Total ${programLabel[program]}`, program, year, throughMonth: m };
  for (const kind of kinds) {
    let picked = 0;
    let completed = 0;
    let target = 0;
    let expected = 0n;
    for (const { f } of withTargets(calcs, kind)) {
      picked += f.pickedYtd;
      completed += f.completedYtd;
      target += f.target;
      expected += f.expectedNum;
    }
    row[`${kind}PickedYtd`] = picked;
    row[`${kind}CompletedYtd`] = completed;
    row[`${kind}AnnualTarget`] = target;
    row[`${kind}ExpectedToDate`] = expectedValue(expected);
  }
  row.exposure = calcs.reduce((sum, c) => sum + (c.months[c.months.length - 1] as MonthCalc).exposure, 0);
  return row;
}

/** Each org's figures of a kind at its last month, for the orgs with a target of that kind. */
function withTargets(
  calcs: OrgCalc[],
  kind: Kind,
): { last: MonthCalc; f: KindFigures & { target: number; expectedNum: bigint } }[] {
  const out: { last: MonthCalc; f: KindFigures & { target: number; expectedNum: bigint } }[] = [];
  for (const calc of calcs) {
    const last = calc.months[calc.months.length - 1] as MonthCalc;
    const f = orgFigures(calc, last, kind);
    if (f.target !== null && f.expectedNum !== null)
      out.push({ last, f: { ...f, target: f.target, expectedNum: f.expectedNum } });
  }
  return out;
}

const programLabel: Record<Program, string> = {
  DOT: 'DOT',
  NON_DOT: 'non-DOT',
  UNKNOWN: 'without policy',
};

/** The statuses the Trend sheet counts, worst last (an org's is the worse of its two kinds). */
const trendStatuses: readonly ComplianceStatus[] = [
  'MET',
  'ON_TRACK',
  'PENDING_RESULTS',
  'AT_RISK',
  'BEHIND',
  'NOT_MET',
  'N/A',
];
const trendKey = (s: ComplianceStatus) => (s === 'N/A' ? 'noStatus' : s);

export const complianceTrendColumns: Column[] = [
  ...trendColumns,
  { key: 'orgs', title: 'Orgs scored', type: 'integer', width: 8 },
  ...trendStatuses.map(
    (s): Column => ({
      key: trendKey(s),
      title: s === 'N/A' ? 'N/A (no pool or rate)' : s,
      type: 'integer',
      width: 10,
    }),
  ),
  { key: 'assumed', title: 'Of them on an assumed rate', type: 'integer', width: 12 },
  { key: 'drugCompletedYtd', title: 'Drug completed YTD', type: 'integer', width: 11 },
  { key: 'drugExpectedToDate', title: 'Drug required to date', type: 'number', decimals: 2, width: 11 },
  { key: 'alcoholCompletedYtd', title: 'Alcohol completed YTD', type: 'integer', width: 11 },
  { key: 'alcoholExpectedToDate', title: 'Alcohol required to date', type: 'number', decimals: 2, width: 11 },
  trendNoteColumn,
];

/**
 * An org's status in a YTD row: the worse (REPORTS.md 1.4 ranks) of its drug and alcohol
 * statuses, without "(assumed rate)"; N/A when neither has one (no pool, no rate).
 */
export function orgStatus(row: Row): ComplianceStatus {
  let worst: ComplianceStatus = 'N/A';
  for (const kind of kinds) {
    const text = String(row[`${kind}Status`] ?? '');
    const bare = text.endsWith(ASSUMED) ? text.slice(0, -ASSUMED.length) : text;
    const status = trendStatuses.find((s) => s === bare) ?? 'N/A';
    if (statusRank[status] < statusRank[worst]) worst = status;
  }
  return worst;
}

interface TrendScope {
  year: number;
  m: number;
  defaults: OrgRates;
  policyOf: Map<number, OrgPolicyTable>;
  scope: Set<number> | null;
  inProgram: (p: Program) => boolean;
}

/**
 * The org statuses at one month end, scored as of it with the report's own per-org maths on the
 * OrgMonth rows the mirror held at `end.instant`, ORGS_PER_QUERY orgs at a time (memory by org).
 */
async function trendAt(db: Kysely<Database>, t: TrendScope, end: MonthEnd): Promise<Row> {
  const warn = new Collector(); // the report warns of the present; a past month end's are not repeated
  const m = end.day.month;
  const row: Row = { orgs: 0, assumed: 0 };
  for (const s of trendStatuses) row[trendKey(s)] = 0;
  const sums = {
    drugCompletedYtd: 0,
    drugExpectedToDate: 0,
    alcoholCompletedYtd: 0,
    alcoholExpectedToDate: 0,
  };
  const ids = (await orgMonthOrgs(db, end.instant)).filter((id) => t.scope === null || t.scope.has(id));
  for (let k = 0; k < ids.length; k += ORGS_PER_QUERY) {
    const rows = await orgMonthRows(db, ids.slice(k, k + ORGS_PER_QUERY), end.instant);
    for (const [orgId, months] of monthsByOrg(rows, new Map(), null, t.year, m, warn)) {
      const policy = t.policyOf.get(orgId);
      const rates = policy === undefined ? t.defaults : policyRates(policy, t.year, t.defaults, warn);
      if (!t.inProgram(rates.program)) continue;
      const ytd = ytdRow(computeOrg(orgId, null, months, m, t.year, rates, warn), t.year);
      const status = orgStatus(ytd);
      row.orgs = Number(row.orgs) + 1;
      row[trendKey(status)] = Number(row[trendKey(status)]) + 1;
      if (rates.assumed && status !== 'N/A') row.assumed = Number(row.assumed) + 1;
      for (const key of Object.keys(sums) as (keyof typeof sums)[]) sums[key] += asNumber(ytd[key]) ?? 0;
    }
  }
  return { ...row, ...sums };
}

/**
 * Compliance at each past month end of the report's year (at most TREND_MONTHS), as the mirror
 * knew it at the end of that day (sheet Trend and its CSV); month ends before the mirror's
 * history are omitted (ar-trend.ts). One month end is read at a time.
 */
export async function complianceTrend(db: Kysely<Database>, common: CommonParams, t: TrendScope) {
  const anchor = t.year < common.asOf.year ? { year: t.year, month: 12, day: 31 } : common.asOf;
  const ends = monthEnds(anchor, common.timezone, TREND_MONTHS).filter(
    (e) => e.day.year === t.year && e.day.month <= t.m,
  );
  const trend = await trendRowsEach(db, ends, (end) => trendAt(db, t, end));
  const about: [string, string] = [
    'Trend',
    `Orgs per status (the worse of drug and alcohol) and tests completed against required, at each past month end of ${t.year} (up to ${TREND_MONTHS}), scored as of that day on the OrgMonth rows the mirror held at its end (its history); policies as they are now (sheet Trend; CSV compliance-trend-DATE.csv)${trend.omitted.length === 0 ? '' : `; omitted, before the mirror's history begins (${trend.start ?? 'no history yet'}): ${trend.omitted.map((e) => formatDate(e.day)).join(', ')}`}`,
  ];
  const sheet: Sheet = { name: 'Trend', columns: complianceTrendColumns, rows: trend.rows, totals: 'none' };
  return { ...trend, sheet, about };
}

/** Orgs whose OrgMonth rows are read by one query of the walk (REPORTS.md: memory by org). */
const ORGS_PER_QUERY = 200;

/** What the report and its trend decide from the parameters before reading OrgMonth rows. */
async function setup(db: Kysely<Database>, params: ReportContext['params'], warn: Collector) {
  const common = commonParams(REPORT, params);
  const parsed = parseOptions(REPORT, complianceOptions, params.options);
  const opts = parsed.options;
  for (const k of parsed.unknown) warn.warnings.push(`Option ${k} is not an option of any report: ignored`);
  const { year, m, monthNote } = resolveYear(common, opts, warn);
  const { defaults, note: defaultsNote } = resolveDefaults(opts, year, warn);
  const policies = await db.selectFrom('org_policy').selectAll().execute();
  const policyOf = new Map(policies.map((p) => [p.org_id, p]));
  const parentOf = new Map(policies.map((p) => [p.org_id, p.parent_org_id]));
  const scope: Set<number> | null =
    common.orgIds.length === 0
      ? null
      : opts.includeChildren
        ? withDescendants(common.orgIds, parentOf)
        : new Set(common.orgIds);
  const inProgram = (p: Program) => opts.program === 'all' || opts.program === p;
  return {
    common,
    opts,
    year,
    m,
    monthNote,
    defaults,
    defaultsNote,
    policies,
    policyOf,
    parentOf,
    scope,
    inProgram,
  };
}

/** The Trend rows of the report's parameters at the given month ends (or any instants of them). */
export async function complianceTrendRows(
  db: Kysely<Database>,
  params: ReportContext['params'],
  ends: readonly MonthEnd[],
): Promise<Row[]> {
  const s = await setup(db, params, new Collector());
  return (await trendRowsEach(db, ends, (end) => trendAt(db, s, end))).rows;
}

async function run(ctx: ReportContext) {
  const { db, params } = ctx;
  const warn = new Collector();
  const setupOf = await setup(db, params, warn);
  const { common, opts, year, m, policies, policyOf, parentOf, scope, inProgram, defaults } = setupOf;
  // Orgs of a rollup (a parent and every org with one): their months are kept for the Rollups
  // sheet; of every other org only its last month (YTD, totals, MIS) is kept.
  const inFamilies = new Set<number>();
  for (const p of policies)
    if (p.parent_org_id !== null) {
      inFamilies.add(p.org_id);
      inFamilies.add(p.parent_org_id);
    }
  // The mirror as known at params.mirrorAsOf (history.ts); org_policy is local data: the present.
  const at = params.mirrorAsOf;
  const names = await orgNames(db, at);
  const walk = (await orgMonthOrgs(db, at))
    .filter((id) => scope === null || scope.has(id))
    .map((orgId) => ({ orgId, org: names.get(orgId) ?? null }))
    .sort(compareOrgs);

  const rateCounts = new Map<string, number>();
  const kept: OrgCalc[] = [];
  const lasts: OrgCalc[] = [];
  const ytd: Row[] = [];
  const seen = new Set<number>();
  let details = 0;
  /**
   * The detail, org by org in name order: one query per ORGS_PER_QUERY orgs, each org's months
   * computed, its rows yielded and only its YTD row (and last month) kept, so memory grows with
   * the orgs, not with the org-months (issue 21).
   */
  async function* detail(): AsyncGenerator<Row> {
    for (let k = 0; k < walk.length; k += ORGS_PER_QUERY) {
      const chunk = walk.slice(k, k + ORGS_PER_QUERY);
      const byOrg = monthsByOrg(
        await orgMonthRows(
          db,
          chunk.map((c) => c.orgId),
          at,
        ),
        names,
        null,
        year,
        m,
        warn,
      );
      for (const { orgId, org } of chunk) {
        const months = byOrg.get(orgId);
        if (months === undefined) continue;
        seen.add(orgId);
        const policy = policyOf.get(orgId);
        const rates = policy === undefined ? defaults : policyRates(policy, year, defaults, warn);
        if (!inProgram(rates.program)) continue;
        rateCounts.set(rates.source, (rateCounts.get(rates.source) ?? 0) + 1);
        const calc = computeOrg(orgId, org, months, m, year, rates, warn);
        for (const mc of calc.months) {
          details++;
          yield detailRow(calc, mc, year);
        }
        ytd.push(ytdRow(calc, year));
        lasts.push({ ...calc, months: calc.months.slice(-1) });
        if (inFamilies.has(orgId)) kept.push(calc);
      }
    }
  }
  const syncLines = await lastSyncLines(db, ['orgmonth', 'orderitem', 'invoice'], at);
  const trend = await complianceTrend(db, common, setupOf);

  let sheets: Sheet[] | null = null;
  const summaries = (): Sheet[] => {
    if (sheets !== null) return sheets;
    const rollups = rollupsOf(policies, parentOf, names, scope, kept, opts, m, year);
    const totals: Row[] = [];
    for (const program of programs) {
      const members = lasts.filter((c) => c.rates.program === program);
      if (members.length > 0) totals.push(totalRow(members, program, year, m));
    }
    const byOrg = failingFirst(ytd);
    sheets = [
      {
        name: 'Problems',
        columns: problemColumns,
        rows: problemRows(byOrg, year, m),
        totals: 'none',
        wrap: true,
      },
      { name: 'YTD by org', columns: ytdColumns, rows: [...byOrg, ...totals] },
    ];
    if (rollups.length > 0) sheets.push({ name: 'Rollups', columns: rollupColumns, rows: rollups });
    const mis = misRows(byOrg, year, m);
    if (mis.length > 0) sheets.push({ name: 'MIS random by employer', columns: misColumns, rows: mis });
    sheets.push(trend.sheet);
    return sheets;
  };
  const warnings = (): string[] => {
    for (const id of common.orgIds)
      if (!seen.has(id)) warn.warnings.push(`Org ${id} has no OrgMonth row for ${year} through month ${m}`);
    if (seen.size === 0)
      warn.warnings.push(`No data for this as-of: no OrgMonth row of ${year} through month ${m}`);
    const assumed = lasts.filter((c) => c.rates.assumed);
    const first =
      assumed.length === 0
        ? []
        : [
            `${assumed.length} org(s) scored on an assumed rate (no policy, or no agency: ${[...new Set(assumed.map((c) => c.rates.source))].join(', ')}): their statuses read "...${ASSUMED}", not a measured finding; import their policies (ohs policy import FILE) to score them on their own rates`,
          ];
    return [...first, ...warn.lines()];
  };
  const about = (): [string, string][] => {
    const sourceLine = [...rateCounts]
      .sort()
      .map(([s, n]) => `${s}: ${n} org${n === 1 ? '' : 's'}`)
      .join('; ');
    return [
      ...aboutLines({
        year,
        m,
        monthNote: setupOf.monthNote,
        defaultsNote: setupOf.defaultsNote,
        sourceLine,
        opts,
        rollups: rollupCount(summaries()),
        syncLines,
        at,
        orgs: lasts.length,
        details,
        assumed: lasts.filter((c) => c.rates.assumed).length,
      }),
      trend.about,
    ];
  };
  return {
    detail: {
      name: 'Compliance',
      columns: complianceColumns,
      rows: { [Symbol.asyncIterator]: detail },
      print: { columns: printColumns, titleColumns: 2 },
    },
    summaries,
    warnings,
    about,
  };
}

/** OrgMonth rows of the year through month `m`, by org then month; unreadable labels warned. */
function monthsByOrg(
  rows: Awaited<ReturnType<typeof orgMonthRows>>,
  names: Map<number, string | null>,
  scope: Set<number> | null,
  year: number,
  m: number,
  warn: Collector,
): Map<number, Map<number, MonthInput>> {
  const byOrg = new Map<number, Map<number, MonthInput>>();
  const badLabels: string[] = [];
  for (const r of rows) {
    const orgId = asInteger(r.OrgId);
    if (orgId === null || (scope !== null && !scope.has(orgId))) continue;
    const label = asText(r.label);
    const parsedLabel = parseMonthLabel(label);
    const id = asInteger(r.id);
    const name = names.get(orgId);
    const where = `OrgMonth ${id ?? '?'} of org ${name === undefined ? '' : `${name} `}(${orgId})`;
    if (parsedLabel === null) {
      badLabels.push(
        `${where}: label ${JSON.stringify(label)} is not a month (YYYY-MM, MM/YYYY, YYYY-M); row not used`,
      );
      continue;
    }
    if (parsedLabel.year !== year || parsedLabel.month > m) continue;
    const input: MonthInput = {
      id,
      label: label ?? '',
      pool:
        asNumber(r.countEligibleRandomPool) === null
          ? unreadablePool(r.countEligibleRandomPool, where, warn)
          : count(r.countEligibleRandomPool, 'pool', where, warn),
      eligibleAll: asNumber(r.countEligibleAll),
      drugPicked: count(r.countPickedDrug, 'countPickedDrug', where, warn),
      drugCompleted: count(r.countPickedDrugResult, 'countPickedDrugResult', where, warn),
      alcoholPicked: count(r.countPickedAlcohol, 'countPickedAlcohol', where, warn),
      alcoholCompleted: count(r.countPickedAlcoholResult, 'countPickedAlcoholResult', where, warn),
      randomPickDocument: asText(r.dropRandomPick),
      coveredEmployeeDocument: asText(r.dropCoveredEmployee),
      misReportDocument: asText(r.dropMisReport),
    };
    const months = byOrg.get(orgId) ?? new Map<number, MonthInput>();
    const prev = months.get(parsedLabel.month);
    if (prev !== undefined) {
      // Two rows of one month (e.g. labels 2025-03 and 03/2025): the later row (higher id) is used.
      const keep = (input.id ?? 0) > (prev.id ?? 0) ? input : prev;
      warn.add(
        'duplicate',
        `Org ${orgId}: OrgMonth rows ${prev.id} (${prev.label}) and ${input.id} (${input.label}) are both ${year}-${String(parsedLabel.month).padStart(2, '0')}; row ${keep.id} is used`,
      );
      months.set(parsedLabel.month, keep);
    } else months.set(parsedLabel.month, input);
    byOrg.set(orgId, months);
  }
  for (const line of badLabels) warn.add('label', line);
  return byOrg;
}

/**
 * Rollups: a parent (org_policy.parent_org_id) with members of the report; one per program,
 * since DOT and non-DOT orgs never share a pool.
 */
function rollupsOf(
  policies: readonly OrgPolicyTable[],
  parentOf: Map<number, number | null>,
  names: Map<number, string | null>,
  scope: Set<number> | null,
  calcs: readonly OrgCalc[],
  opts: ComplianceOptions,
  m: number,
  year: number,
): Row[] {
  const inProgram = (p: Program) => opts.program === 'all' || opts.program === p;
  const calcOf = new Map(calcs.map((c) => [c.orgId, c]));
  const rollups: Row[] = [];
  const parents = [...new Set(policies.map((p) => p.parent_org_id).filter((p): p is number => p !== null))]
    .filter((p) => scope === null || scope.has(p))
    .map((p) => ({ orgId: p, org: names.get(p) ?? null }))
    .sort(compareOrgs);
  for (const parent of parents) {
    const family = [...withDescendants([parent.orgId], parentOf)];
    for (const program of programs) {
      if (!inProgram(program)) continue;
      const members = family
        .map((id) => calcOf.get(id))
        .filter((c): c is OrgCalc => c !== undefined && c.rates.program === program);
      if (!members.some((c) => c.orgId !== parent.orgId)) continue;
      members.sort((a, b) => a.orgId - b.orgId);
      rollups.push(...rollupRows(parent.orgId, parent.org, program, members, opts.rollupMode, m, year));
    }
  }

  return rollups;
}

interface AboutFacts {
  year: number;
  m: number;
  monthNote: string;
  defaultsNote: string;
  sourceLine: string;
  opts: ComplianceOptions;
  rollups: number;
  syncLines: [string, string][];
  /** The instant the mirror was read as of; undefined: the present. */
  at: string | undefined;
  orgs: number;
  details: number;
  /** Orgs scored on an assumed rate. */
  assumed: number;
}

/** The About sheet: what the report read and how. */
function aboutLines(f: AboutFacts): [string, string][] {
  const { year, m, monthNote, defaultsNote, sourceLine, opts, syncLines } = f;
  const about: [string, string][] = [
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
      'Mirror read',
      `${f.at === undefined ? 'The present: OrgMonth rows as last synced' : `As known at ${f.at}: OrgMonth rows as the mirror held them then (its history); a count changed before that instant but synced after it is not known`}. Policies (org_policy) are local data and read as they are now. A December pick collected in January stays in its pick month.`,
    ],
    ...syncLines,
    ['Orgs', String(f.orgs)],
    ['Detail rows', String(f.details)],
    ['Rollup rows', String(f.rollups)],
  ];

  return about;
}

/** Rows of the Rollups sheet. */
function rollupCount(sheets: Sheet[]): number {
  const rows = sheets.find((x) => x.name === 'Rollups')?.rows;
  return Array.isArray(rows) ? rows.length : 0;
}

/** The orgs with an OrgMonth row (one row per org: the walk's list), as known at `at`. */
async function orgMonthOrgs(db: Kysely<Database>, at: string | undefined): Promise<number[]> {
  const rows = await reportDb(db)
    .selectFrom(asOf(reportDb(db), 'orgmonth', at))
    .select('OrgId')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('OrgId', 'is not', null)
    .execute();
  return rows.map((r) => asInteger(r.OrgId)).filter((id): id is number => id !== null);
}

/** The OrgMonth rows of some orgs, by org then id, as known at `at`. */
async function orgMonthRows(db: Kysely<Database>, orgIds: number[], at: string | undefined) {
  return reportDb(db)
    .selectFrom(asOf(reportDb(db), 'orgmonth', at))
    .select([
      'id',
      'OrgId',
      'label',
      'countEligibleRandomPool',
      'countEligibleAll',
      'countPickedDrug',
      'countPickedDrugResult',
      'countPickedAlcohol',
      'countPickedAlcoholResult',
      'dropRandomPick',
      'dropCoveredEmployee',
      'dropMisReport',
    ])
    .select(rawWhereNull(SENT).as('sent'))
    .where('deleted_at', 'is', null)
    .where('OrgId', 'in', orgIds)
    .orderBy('OrgId')
    .orderBy('id')
    .execute()
    .then((rows) => rows.map(({ sent, ...r }) => withSentValues(r, sent, SENT)));
}

/** The counts whose unreadable values the report lists (see sent-values.ts). */
const SENT = [
  'countEligibleRandomPool',
  'countEligibleAll',
  'countPickedDrug',
  'countPickedDrugResult',
  'countPickedAlcohol',
  'countPickedAlcoholResult',
] as const;

export const compliance: ReportDefinition = {
  name: 'compliance',
  title: 'Random testing compliance',
  description:
    'Per org and month of a year: random drug and alcohol tests against the minimum annual rates (exposure, expected to date, annual target, status), with rollups of parent orgs.',
  options: Object.keys(complianceOptions.shape),
  run,
};
