import type { Row } from '../../render/types.js';
import { productKey } from '../core/run.js';
import { figuresKey } from '../core/run-key.js';
import type { ReportInput } from '../core/types.js';
import { Collector } from './collector.js';
import { failingFirst } from './evidence.js';
import { ASSUMED } from './model.js';
import type { ComplianceOptions } from './options.js';
import { planRows, planYear } from './plan.js';
import { type Setup, setup } from './setup.js';
import { OrgWalk, walkOrgs } from './walk.js';

/**
 * Compliance's figures of a run: its setup (year, through-month, policies, rates) and its walk of
 * the year org by org, made once per run (`compliance-walk`) and shared by every report built on
 * them (compliance itself, catch-up, accounts at risk, the audit packet).
 */
export interface ComplianceFigures {
  s: Setup;
  walk: OrgWalk;
  /** The warnings of the setup and the walk. */
  warn: Collector;
  /** Another walk of the same setup (its rows read again when the shared one was read already). */
  fresh(): Promise<OrgWalk>;
}

/** The run's compliance figures, built once per run for equal inputs (figuresKey). */
export const COMPLIANCE_WALK = productKey<ComplianceFigures>('compliance-walk');

/** The run's compliance figures for these options, orgs and instants (made on first use). */
export function complianceFigures(input: ReportInput<ComplianceOptions>): Promise<ComplianceFigures> {
  const { db, common, opts, scope, at, names, run } = input;
  const key = figuresKey(input);
  return run.product(COMPLIANCE_WALK, key, async () => {
    const warn = new Collector();
    const s = await setup(db, common, opts, scope, warn, at);
    const orgs = await walkOrgs(db, scope, names, at);
    return {
      s,
      walk: new OrgWalk(db, s, orgs, names, at, warn),
      warn,
      fresh: async () => {
        run.counted(COMPLIANCE_WALK);
        return new OrgWalk(db, s, orgs, names, at, new Collector());
      },
    };
  });
}

/** Compliance's warnings once its walk is done: assumed rates first, orgs asked for and not seen. */
export function complianceWarnings(f: ComplianceFigures, walk: OrgWalk, orgIds: readonly number[]): string[] {
  const { year, m } = f.s;
  const extra: string[] = [];
  for (const id of orgIds)
    if (!walk.seen.has(id)) extra.push(`Org ${id} has no OrgMonth row for ${year} through month ${m}`);
  if (walk.seen.size === 0)
    extra.push(`No data for this as-of: no OrgMonth row of ${year} through month ${m}`);
  const assumed = walk.lasts.filter((c) => c.rates.assumed);
  const first =
    assumed.length === 0
      ? []
      : [
          `${assumed.length} org(s) scored on an assumed rate (no policy, or no agency: ${[...new Set(assumed.map((c) => c.rates.source))].join(', ')}): their statuses read "...${ASSUMED}", not a measured finding; import their policies (ohs policy import FILE) to score them on their own rates`,
        ];
  return [...first, ...f.warn.lines(100, extra)];
}

/** One employer's year to date as the YTD by org sheet shows it. */
export interface OrgYearToDate {
  orgId: number;
  org: string | null;
  drugStatus: string;
  alcoholStatus: string;
  rateSource: string;
  year: number;
  throughMonth: number;
}

/** Each employer's year to date of a walk done (its YTD rows, read here and nowhere else). */
export function yearToDate(walk: OrgWalk): OrgYearToDate[] {
  return walk.ytd.flatMap((r) =>
    typeof r.orgId !== 'number'
      ? []
      : [
          {
            orgId: r.orgId,
            org: typeof r.org === 'string' ? r.org : null,
            drugStatus: String(r.drugStatus ?? ''),
            alcoholStatus: String(r.alcoholStatus ?? ''),
            rateSource: String(r.rateSource ?? ''),
            year: Number(r.year),
            throughMonth: Number(r.throughMonth),
          },
        ],
  );
}

/**
 * The rows of the workbook's YTD by org sheet of a walk done, failing first, without the program
 * totals under them: one per employer (read by the packet and the sheet alike, never by name).
 */
export function ytdRowsOf(walk: OrgWalk): Row[] {
  return failingFirst(walk.ytd);
}

/**
 * The employer × test-type lines a report scores and the completed-to-date totals they start
 * from, typed (compliance's YTD lines, the catch-up plan's inputs; the run's controls compare them).
 */
export interface YtdFacts {
  lines: number;
  drugCompletedYtd: number;
  alcoholCompletedYtd: number;
}

/**
 * The compliance report's typed product: its YTD lines' counts, each employer's year to date (the
 * YTD by org rows, failing first, without the program totals), the catch-up plan of the same
 * figures and the trend (month ends oldest first). Its sheets are views of these; its page reads
 * them, never a sheet by its name.
 */
export interface ComplianceProduct extends YtdFacts {
  employers: readonly Row[];
  plan: readonly Row[];
  trend: readonly Row[];
}

const n = (v: unknown) => (typeof v === 'number' ? v : 0);

/** Compliance's YTD lines: each YTD by org row, once per test type. */
export function complianceFacts(ytd: readonly Row[]): YtdFacts {
  return {
    lines: ytd.length * 2,
    drugCompletedYtd: ytd.reduce((t, r) => t + n(r.drugCompletedYtd), 0),
    alcoholCompletedYtd: ytd.reduce((t, r) => t + n(r.alcoholCompletedYtd), 0),
  };
}

/** The catch-up plan's inputs: each plan row (an employer and test type) and its completed to date. */
export function planFacts(plan: readonly Row[]): YtdFacts {
  const of = (kind: string) =>
    plan.filter((r) => r.testType === kind).reduce((t, r) => t + n(r.completedYtd), 0);
  return { lines: plan.length, drugCompletedYtd: of('drug'), alcoholCompletedYtd: of('alcohol') };
}

/** The catch-up plan of the figures' walk done: the workbook's Catch-up sheet, the packet's catch-up.csv. */
export function planOf(f: ComplianceFigures, walk: OrgWalk): Row[] {
  return planRows(walk.lasts, planYear(f.s));
}

/**
 * Compliance's setup and walk for one reading, not kept by the run (a second instant read once,
 * e.g. the start of what changed): the caller keeps what it needs of the walk, and the rest of it
 * is freed, so two walks of a large mirror are never held at once.
 */
export async function complianceWalkOnce(
  input: ReportInput<ComplianceOptions>,
): Promise<{ s: Setup; walk: OrgWalk }> {
  const { db, common, opts, scope, at, names } = input;
  const warn = new Collector();
  const s = await setup(db, common, opts, scope, warn, at);
  return { s, walk: new OrgWalk(db, s, await walkOrgs(db, scope, names, at), names, at, warn) };
}
