import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { type AsOf, asOfInstant, reportTime } from '../dates.js';
import { OhsError, OutputError } from '../errors.js';
import {
  AsOfBeforeHistoryError,
  historyStart,
  latestChange,
  type Mirror,
  policiesAsOf,
  policyVersionsOf,
} from '../mirror/index.js';
import { CsvRenderer, type CsvSettings } from '../render/index.js';
import type { Column, Row } from '../render/types.js';
import { complianceColumns, ytdColumns } from '../reports/compliance/columns.js';
import { complianceFigures, planOf, ytdRowsOf } from '../reports/compliance/figures.js';
import { complianceReport } from '../reports/compliance/index.js';
import { parseMonthLabel } from '../reports/compliance/months.js';
import { catchUpColumns } from '../reports/compliance/plan-columns.js';
import { orgMonthRows } from '../reports/compliance/queries.js';
import { asInteger } from '../reports/core/values.js';
import { ReportRun, reportInput, reportNamed } from '../reports/index.js';
import { PrivateFolder, writeExclusive } from '../util/safe-file.js';
import { coverPage } from './packet-cover.js';
import { firstObserved, verdictColumns, verdictRows } from './packet-facts.js';
import { checkSynced } from './reports.js';

/**
 * The audit packet of one employer and year as of an instant (`ohs packet`): a folder holding
 * the employer's compliance rows and YTD, the month-by-month evidence, its policy versions, its
 * catch-up plan, the sync runs behind the figures, a cover page and MANIFEST.sha256. Every figure
 * comes from one run of the compliance report scoped to the employer. No file holds the time it
 * was made: the same arguments on the same mirror give the same bytes. The folder is written
 * under a temporary name and renamed whole (mode 0700, files 0600): never half there.
 */
export interface PacketOptions {
  orgId: number;
  year: number;
  /** The instant (`--as-of-time`, resolved: dates.ts `resolveAsOf`); absent: the mirror's latest data. */
  asOf?: AsOf;
  outDir: string;
}

export interface PacketResult {
  dir: string;
  files: string[];
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

/**
 * `packet-org1001-2026-at-20260615T020000Z`: the org, the year and the instant rounded up to the
 * second (the instant its data holds, never a second before it), so `--as-of-time` with the
 * name's instant makes the same packet.
 */
export function packetName(orgId: number, year: number, instant: string): string {
  // Already whole (writePacket rounds before the run): the name says the instant read.
  const basic = instant.slice(0, 19).replace(/[-:]/g, '');
  return `packet-org${orgId}-${year}-at-${basic}Z`;
}

/** An instant rounded up to the whole second, ISO 8601 UTC with milliseconds. */
function upToSecond(instant: string): string {
  return new Date(Math.ceil(Date.parse(instant) / 1000) * 1000).toISOString();
}

/**
 * The instant of the mirror's latest data: the end of its latest successful sync run, the latest
 * policy version, or the latest change of the compliance report's inputs (a write-back answer
 * after the last sync changes them too), whichever is last. A packet without --as-of-time is
 * named for it and reads the mirror as known then, so the same arguments give the same bytes for
 * as long as nothing newer arrives (and a later packet gets a new name).
 */
async function latestDataInstant(mirror: Mirror, streams: readonly string[]): Promise<string> {
  const run = await mirror.db
    .selectFrom('sync_run')
    .select((eb) => eb.fn.max('ended_at').as('at'))
    .where('outcome', '=', 'ok')
    .executeTakeFirst();
  const policies = (await policiesAsOf(mirror.db, undefined)).map((p) => p.valid_from);
  const changed = await latestChange(mirror.db, streams);
  const times = [run?.at as string | null | undefined, ...policies, changed].filter(
    (t): t is string => typeof t === 'string',
  );
  const last = Math.max(...times.map((t) => Date.parse(t)));
  return new Date(last).toISOString();
}

/**
 * The packet's instant (`--as-of-time`, or the mirror's latest data) and the instant its files
 * read the mirror at (undefined: the present, for a mirror without history).
 */
async function packetInstant(
  mirror: Mirror,
  given: string | undefined,
  streams: readonly string[],
): Promise<{ at: string | undefined; instant: string }> {
  const start = await historyStart(mirror.db);
  if (given !== undefined) {
    if (start === null || given < start)
      throw new AsOfBeforeHistoryError(
        `--as-of-time ${given} is before the mirror's history begins (${start ?? 'no complete sync yet'}): the mirror did not know then what it holds; give a later instant, or leave --as-of-time out for its latest data`,
      );
    return { at: given, instant: given };
  }
  // Rounded up to the second as the folder's name is: the name's instant gives the same packet.
  const instant = upToSecond(await latestDataInstant(mirror, streams));
  // Read as known at that instant when the history answers for it (a mirror upgraded from before
  // history and never synced since has none: it reads the present).
  return { at: start === null ? undefined : instant, instant };
}

/** Makes the packet; returns its folder and files. Bad input is refused before anything is written. */
export async function writePacket(mirror: Mirror, config: Config, o: PacketOptions): Promise<PacketResult> {
  const compliance = reportNamed('compliance');
  await checkSynced(mirror, [compliance]);
  // The instant is rounded up to the whole second before anything is read, never the name after:
  // the name's instant is the instant every file reads, so one name is one content.
  const given = o.asOf === undefined ? undefined : upToSecond(o.asOf.iso);
  const { at, instant } = await packetInstant(mirror, given, compliance.streams);
  // The mirror's latest data is an instant too: its date in the zone is the packet's as-of date.
  const asOf = asOfInstant(Date.parse(instant), config.timezone, o.asOf === undefined ? 'now' : 'instant');
  await checkOrgYear(mirror, o.orgId, o.year, at, instant);

  const name = packetName(o.orgId, o.year, instant);
  const final = join(o.outDir, name);
  // The first folder it had to make, removed again on failure: nothing is left behind.
  const made = await mkdir(o.outDir, { recursive: true }).catch((err: unknown) => {
    throw new OutputError(
      `--out ${o.outDir}: cannot make the folder (${(err as NodeJS.ErrnoException).code ?? err})`,
    );
  });
  // lstat: a link at the final name, dangling or not, is something there too.
  if (
    await lstat(final).then(
      () => true,
      () => false,
    )
  )
    throw new OutputError(`${final}: the packet already exists; remove it or give another --out`);
  // The folder is made, checked before each file and before the rename without following links
  // (src/util/safe-file.ts PrivateFolder): one swapped by another process is refused.
  let folder: PrivateFolder | undefined;
  try {
    folder = await PrivateFolder.make(join(o.outDir, `.${name}.tmp-${process.pid}`));
    const temp = folder.path;
    const { detail, ytd, plan, warnings } = await complianceOfOrg(mirror, config, o, asOf, at);
    const csv: CsvSettings = config.reports.csv;
    const observed = await firstObserved(mirror, detail, at);
    const evidence = detail.map((r) => ({
      ...r,
      dataCheck: String(r.flags ?? '')
        .split(';')
        .includes('DATA_CHECK'),
      ...observed.get(Number(r.orgMonthId)),
    }));
    const verdicts = verdictRows(ytd[0], plan, o.year);
    const policies = (await policyVersionsOf(mirror.db, o.orgId, at)).map((p) => ({
      orgId: p.org_id,
      program: p.program,
      agency: p.agency,
      rpMinDrug: p.rp_min_drug,
      rpMinAlc: p.rp_min_alc,
      dotRegistrationNumber: p.dot_registration_number,
      parentOrgId: p.parent_org_id,
      source: p.source,
      effectiveFrom: p.effective_from ?? null,
      validFrom: p.valid_from,
      validTo: p.valid_to,
      inForce: p.valid_to === null,
    }));
    const runs = await syncRuns(mirror, o.year, instant);
    // Each file checked into the folder made for it (a swapped folder is refused before a write).
    const csvFiles: [string, Parameters<typeof writeCsv>[1], Row[]][] = [
      ['compliance.csv', complianceColumns, detail],
      ['ytd.csv', ytdColumns, ytd],
      ['evidence.csv', evidenceColumns, evidence],
      ['policy.csv', policyColumns, policies],
      ['catch-up.csv', catchUpColumns, plan],
      ['sync-runs.csv', syncRunColumns, runs],
      ['verdicts.csv', verdictColumns, verdicts],
      ['warnings.csv', [{ key: 'warning', title: 'Warning', type: 'string' }], warnings],
    ];
    for (const [name, columns, rows] of csvFiles) {
      folder.check();
      await writeCsv(join(temp, name), columns, rows, csv);
    }
    const html = coverPage({
      orgId: o.orgId,
      year: o.year,
      instant,
      read:
        at === undefined
          ? 'the present (the mirror’s latest data)'
          : `the mirror as known at ${at} (its history)`,
      detail: evidence,
      ytd: ytd[0],
      plan,
      verdicts,
      policies,
      runs,
      warnings: warnings.length,
      files: packetFiles,
    });
    folder.check();
    writeExclusive(join(temp, 'index.html'), html, 0o600);
    const manifest = await manifestOf(
      temp,
      packetFiles.map(([f]) => f),
    );
    folder.check();
    writeExclusive(join(temp, 'MANIFEST.sha256'), manifest, 0o600);
    await folder.publish(final);
  } catch (err) {
    await folder?.remove();
    if (made !== undefined) await rm(made, { recursive: true, force: true });
    throw err;
  }
  return { dir: final, files: [...packetFiles.map(([f]) => join(final, f)), join(final, 'MANIFEST.sha256')] };
}

/**
 * The compliance figures of the packet, from one run of the report scoped to the employer: its
 * detail and warnings, then its typed figures of the same run (its walk, done by the detail's
 * read, handed on: never read again nor looked up by a sheet's name).
 */
async function complianceOfOrg(
  mirror: Mirror,
  config: Config,
  o: PacketOptions,
  asOf: AsOf,
  at: string | undefined,
): Promise<{ detail: Row[]; ytd: Row[]; plan: Row[]; warnings: Row[] }> {
  // The packet's time: its instant, the mirror read as known then (or the present, without history).
  const time = reportTime(asOf, { run: asOf.ms });
  const ctx = {
    db: mirror.db,
    params: {
      time: { ...time, mirrorAt: at ?? null },
      orgIds: [o.orgId],
      options: { ...config.reports.options, year: o.year },
    },
    run: new ReportRun(),
  };
  const ran = await reportNamed('compliance').run(ctx);
  const detail: Row[] = [];
  for await (const row of ran.detail.rows) detail.push(row);
  const figures = await complianceFigures(await reportInput(complianceReport, ctx));
  const walk = await figures.walk.walked();
  return {
    detail,
    ytd: ytdRowsOf(walk).filter((r) => r.orgId === o.orgId),
    plan: planOf(figures, walk),
    warnings: ran.warnings().map((warning) => ({ warning })),
  };
}

/**
 * The org must have OrgMonth rows as known at the instant (else ORG_UNKNOWN), and one of the
 * year (else YEAR_NOT_IN_MIRROR, naming the years it has).
 */
async function checkOrgYear(
  mirror: Mirror,
  orgId: number,
  year: number,
  at: string | undefined,
  instant: string,
): Promise<void> {
  const rows = await orgMonthRows(mirror.db, [orgId], at);
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
async function syncRuns(mirror: Mirror, year: number, instant: string): Promise<Row[]> {
  const rows = await mirror.db
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

/** A CSV as the reports write it (CsvRenderer: the same cells, the file created 0600). */
async function writeCsv(
  file: string,
  columns: Column[],
  rows: readonly Row[],
  settings: CsvSettings,
): Promise<void> {
  const r = new CsvRenderer(file, { name: 'packet', columns }, settings);
  try {
    for (const row of rows) await r.write(row);
    await r.finish();
  } catch (err) {
    await r.abort();
    throw err;
  }
}

/** `sha256sum` format: `HEX  NAME`, one line per file, in name order. */
async function manifestOf(dir: string, names: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const n of [...names].sort())
    lines.push(
      `${createHash('sha256')
        .update(await readFile(join(dir, n)))
        .digest('hex')}  ${n}`,
    );
  return `${lines.join('\n')}\n`;
}
