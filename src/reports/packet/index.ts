import type { Kysely } from 'kysely';
import { type AsOf, reportTime } from '../../dates.js';
import { OhsError } from '../../errors.js';
import { type Database, policyVersionsOf } from '../../mirror/index.js';
import type { Column, Row } from '../../render/types.js';
import { complianceColumns, ytdColumns } from '../compliance/columns.js';
import { complianceFigures, planOf, ytdRowsOf } from '../compliance/figures.js';
import { complianceReport } from '../compliance/index.js';
import { parseMonthLabel } from '../compliance/months.js';
import { catchUpColumns } from '../compliance/plan-columns.js';
import { orgMonthRows } from '../compliance/queries.js';
import { ReportRun } from '../core/run.js';
import { reportInput } from '../core/runner.js';
import { asInteger } from '../core/values.js';
import { coverPage } from './cover.js';
import { firstObserved, verdictColumns, verdictRows } from './facts.js';

/**
 * The audit packet of one employer and year as of an instant (`ohs packet`), a product of the
 * compliance report: the employer's compliance rows and YTD, the month-by-month evidence, its
 * policy versions, its catch-up plan, the sync runs behind the figures and a cover page. Every
 * figure comes from one run of the compliance report scoped to the employer. Nothing here holds
 * the time it was made: the same arguments on the same mirror give the same contents. The
 * application (src/app/packet.ts) writes them into a private folder with MANIFEST.sha256.
 */

/** What a packet is of: the employer, the year, the instant and how the mirror is read. */
export interface PacketAsked {
  orgId: number;
  year: number;
  /** The packet's as-of: the instant, in the reporting zone. */
  asOf: AsOf;
  /** The instant the mirror is read at (its history); undefined: the present. */
  at: string | undefined;
  /** The packet's instant, ISO 8601 UTC (its name's). */
  instant: string;
  /** The reports' configured options (config `reports.options`): compliance reads its own. */
  options: Record<string, unknown>;
}

/** A CSV file of the packet: its name, columns and rows. */
export interface PacketCsv {
  name: string;
  columns: Column[];
  rows: Row[];
}

/** A packet that cannot be made as asked: a stable code, exit status 2, nothing written. */
export class PacketInputError extends OhsError {
  override name = 'PacketInputError';
  override readonly exitCode = 2;
}

/** The packet's files, in the manifest's (name) order, with what each holds. */
export const packetFiles: readonly [string, string][] = [
  ['catch-up.csv', 'the catch-up plan of the employer (drug and alcohol)'],
  ['compliance.csv', 'the compliance rows, one per month (the compliance report’s detail)'],
  [
    'evidence.csv',
    'month by month: picks, completions, documents by name, flags, DATA_CHECK, when the mirror first observed the month and its figures',
  ],
  ['index.html', 'this cover page'],
  [
    'policy.csv',
    'every version of the employer’s policy taken effect by the instant, the one in force marked',
  ],
  ['sync-runs.csv', 'the sync runs behind the figures (provenance)'],
  [
    'verdicts.csv',
    'a verdict per test type (met, not met, on pace...; measured or assumed), each rate’s source, the rate achieved to date, quarters without a selection',
  ],
  ['warnings.csv', 'what the compliance report found wrong in the data of the employer'],
  ['ytd.csv', 'the year to date (the compliance report’s YTD by org row)'],
];

const evidenceColumns: Column[] = [
  { key: 'month', title: 'Month', type: 'integer' },
  { key: 'orgMonthId', title: 'OrgMonth id', type: 'integer' },
  { key: 'label', title: 'OrgMonth label', type: 'string' },
  { key: 'pool', title: 'Random pool', type: 'integer' },
  { key: 'drugPicked', title: 'Drug picked', type: 'integer' },
  { key: 'drugCompleted', title: 'Drug completed (counted)', type: 'integer' },
  { key: 'alcoholPicked', title: 'Alcohol picked', type: 'integer' },
  { key: 'alcoholCompleted', title: 'Alcohol completed (counted)', type: 'integer' },
  { key: 'picksNotCompleted', title: 'Picks not completed', type: 'integer' },
  { key: 'randomPickDocument', title: 'Random pick document', type: 'string' },
  { key: 'coveredEmployeeDocument', title: 'Covered-employee list', type: 'string' },
  { key: 'misReportDocument', title: 'MIS report document', type: 'string' },
  { key: 'flags', title: 'Flags', type: 'string' },
  { key: 'dataCheck', title: 'DATA_CHECK', type: 'boolean' },
  { key: 'firstObservedAt', title: 'OrgMonth first observed by the mirror', type: 'datetime' },
  { key: 'figuresSince', title: 'These figures observed since', type: 'datetime' },
];

const policyColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer' },
  { key: 'program', title: 'Program', type: 'string' },
  { key: 'agency', title: 'Agency', type: 'string' },
  { key: 'rpMinDrug', title: 'Drug rate %', type: 'number', decimals: 4 },
  { key: 'rpMinAlc', title: 'Alcohol rate %', type: 'number', decimals: 4 },
  { key: 'dotRegistrationNumber', title: 'DOT registration number', type: 'string' },
  { key: 'parentOrgId', title: 'Parent org id', type: 'integer' },
  { key: 'source', title: 'Source', type: 'string' },
  {
    key: 'effectiveFrom',
    title: 'Scores the months from (effective date; blank: every month)',
    type: 'date',
  },
  { key: 'validFrom', title: 'In force from', type: 'datetime' },
  { key: 'validTo', title: 'In force until', type: 'datetime' },
  { key: 'inForce', title: 'In force at the instant', type: 'boolean' },
];

const syncRunColumns: Column[] = [
  { key: 'runId', title: 'Run', type: 'integer' },
  { key: 'kind', title: 'Kind', type: 'string' },
  { key: 'mode', title: 'Mode', type: 'string' },
  { key: 'streams', title: 'Streams', type: 'string' },
  { key: 'startedAt', title: 'Started', type: 'datetime' },
  { key: 'endedAt', title: 'Ended', type: 'datetime' },
  { key: 'outcome', title: 'Outcome', type: 'string' },
  { key: 'errorCode', title: 'Error code', type: 'string' },
  { key: 'requests', title: 'Requests', type: 'integer' },
];

/** The packet's files (CSV and the cover page), read from the mirror; nothing is written here. */
export async function packetContents(
  db: Kysely<Database>,
  p: PacketAsked,
): Promise<{ csv: PacketCsv[]; html: string }> {
  const { detail, ytd, plan, warnings } = await complianceOfOrg(db, p);
  const observed = await firstObserved(db, detail, p.at);
  const evidence = detail.map((r) => ({
    ...r,
    dataCheck: String(r.flags ?? '')
      .split(';')
      .includes('DATA_CHECK'),
    ...observed.get(Number(r.orgMonthId)),
  }));
  const verdicts = verdictRows(ytd[0], plan, p.year);
  const policies = (await policyVersionsOf(db, p.orgId, p.at)).map((v) => ({
    orgId: v.org_id,
    program: v.program,
    agency: v.agency,
    rpMinDrug: v.rp_min_drug,
    rpMinAlc: v.rp_min_alc,
    dotRegistrationNumber: v.dot_registration_number,
    parentOrgId: v.parent_org_id,
    source: v.source,
    effectiveFrom: v.effective_from ?? null,
    validFrom: v.valid_from,
    validTo: v.valid_to,
    inForce: v.valid_to === null,
  }));
  const runs = await syncRuns(db, p.year, p.instant);
  const csv: PacketCsv[] = [
    { name: 'compliance.csv', columns: complianceColumns, rows: detail },
    { name: 'ytd.csv', columns: ytdColumns, rows: ytd },
    { name: 'evidence.csv', columns: evidenceColumns, rows: evidence },
    { name: 'policy.csv', columns: policyColumns, rows: policies },
    { name: 'catch-up.csv', columns: catchUpColumns, rows: plan },
    { name: 'sync-runs.csv', columns: syncRunColumns, rows: runs },
    { name: 'verdicts.csv', columns: verdictColumns, rows: verdicts },
    { name: 'warnings.csv', columns: [{ key: 'warning', title: 'Warning', type: 'string' }], rows: warnings },
  ];
  const html = coverPage({
    orgId: p.orgId,
    year: p.year,
    instant: p.instant,
    read:
      p.at === undefined
        ? 'the present (the mirror’s latest data)'
        : `the mirror as known at ${p.at} (its history)`,
    detail: evidence,
    ytd: ytd[0],
    plan,
    verdicts,
    policies,
    runs,
    warnings: warnings.length,
    files: packetFiles,
  });
  return { csv, html };
}

/**
 * The compliance figures of the packet, from one run of the report scoped to the employer: its
 * detail and warnings, then its typed figures of the same run (its walk, done by the detail's
 * read, handed on: never read again nor looked up by a sheet's name).
 */
async function complianceOfOrg(
  db: Kysely<Database>,
  p: PacketAsked,
): Promise<{ detail: Row[]; ytd: Row[]; plan: Row[]; warnings: Row[] }> {
  // The packet's time: its instant, the mirror read as known then (or the present, without history).
  const time = reportTime(p.asOf, { run: p.asOf.ms });
  const ctx = {
    db,
    params: {
      time: { ...time, mirrorAt: p.at ?? null },
      orgIds: [p.orgId],
      options: { ...p.options, year: p.year },
    },
    run: new ReportRun(),
  };
  // Compliance's own build, as a report built on it reads it: its input of the run, then its
  // typed figures of the same run (the walk its detail made, handed on).
  const input = await reportInput(complianceReport, ctx);
  const body = await complianceReport.build(input);
  const detail: Row[] = [];
  for await (const row of body.detail.rows) detail.push(row);
  const figures = await complianceFigures(input);
  const walk = await figures.walk.walked();
  return {
    detail,
    ytd: ytdRowsOf(walk).filter((r) => r.orgId === p.orgId),
    plan: planOf(figures, walk),
    warnings: body.warnings().map((warning) => ({ warning })),
  };
}

/**
 * The org must have OrgMonth rows as known at the instant (else ORG_UNKNOWN), and one of the
 * year (else YEAR_NOT_IN_MIRROR, naming the years it has).
 */
export async function checkOrgYear(
  db: Kysely<Database>,
  orgId: number,
  year: number,
  at: string | undefined,
  instant: string,
): Promise<void> {
  const rows = await orgMonthRows(db, [orgId], at);
  if (rows.length === 0)
    throw new PacketInputError(
      'ORG_UNKNOWN',
      `--org ${orgId}: no OrgMonth row of org ${orgId} in the mirror as known at ${instant}`,
    );
  const years = new Set(
    rows.map((r) => parseMonthLabel(asText(r.label))?.year).filter((y): y is number => y !== undefined),
  );
  if (!years.has(year)) {
    const list = [...years].sort();
    throw new PacketInputError(
      'YEAR_NOT_IN_MIRROR',
      `--year ${year}: org ${orgId} has no OrgMonth row of ${year} as known at ${instant} (its rows cover ${list.length === 0 ? 'no readable month' : `${list[0]} to ${list.at(-1)}`})`,
    );
  }
}

const asText = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));

/** The sync runs behind the figures: those that ended by the instant, since the year began. */
async function syncRuns(db: Kysely<Database>, year: number, instant: string): Promise<Row[]> {
  const rows = await db
    .selectFrom('sync_run')
    .select(['id', 'kind', 'mode', 'streams', 'started_at', 'ended_at', 'outcome', 'error_code', 'requests'])
    .where('ended_at', '<=', instant)
    .where('ended_at', '>=', `${year}-01-01`)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    runId: asInteger(r.id),
    kind: r.kind,
    mode: r.mode,
    streams: r.streams,
    startedAt: r.started_at,
    endedAt: r.ended_at,
    outcome: r.outcome,
    errorCode: r.error_code,
    requests: asInteger(r.requests),
  }));
}
