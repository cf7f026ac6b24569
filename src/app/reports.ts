import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { type AsOf, asOfNow, DAY, type ReportTime, reportTime } from '../dates.js';
import { OhsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import { checkAsOf } from '../mirror/index.js';
import { type CsvSettings, type ReportFormat, writeReport } from '../render/index.js';
import type { Sheet } from '../render/types.js';
import { mirrorIdentity, streamStates } from '../reports/core/sync-info.js';
import { warningLines } from '../reports/core/warning-groups.js';
import type { ReportDefinition } from '../reports/index.js';
import { ReportParamError, ReportRun, reports } from '../reports/index.js';
import { packageVersion } from '../util/package-root.js';
import { printable } from '../util/printable.js';
import { changesNotice } from './changes-notice.js';
import { type Published, writeControls } from './controls.js';
import type { JobEnv, JobResult } from './types.js';

export interface WriteReportsOptions {
  /** When the run stands (`runTime`): decided once, where the data the reports read is in. */
  time: ReportTime;
  orgIds: number[];
  options: Record<string, unknown>;
  outDir: string;
  formats: ReportFormat[];
  /** Overrides of config `reports.csv` (`--csv-excel`). */
  csv?: Partial<CsvSettings>;
  /**
   * Where the run's summary goes as plain lines (`ohs report`: stderr): row counts and warnings.
   * Absent (jobs): the logger gets them, one warn entry per warning, so NDJSON logs stay NDJSON.
   */
  out?: { write(text: string): unknown };
  /** `--quiet`: nothing on `out` (the Warnings sheet keeps the warnings). */
  quiet?: boolean;
  /** The run the reports share (each built once in it); absent: a new one. */
  run?: ReportRun;
  /** Where each report written is added (its name and writeReport's result); absent: kept inside. */
  published?: Published[];
}

/**
 * The time of a report run (dates.ts `reportTime`), the one place it is decided: the as-of, the
 * run's instant (`run`: the clock now, unless the as-of is the clock's own), and the instant the
 * mirror is read at: the explicit instant (`--as-of-time`), else the end of an as-of date before
 * the run's date (its last millisecond); `present` (`--present`) reads the present whatever the
 * dates. An instant the mirror's history does not reach is refused (AS_OF_BEFORE_HISTORY).
 */
export async function runTime(
  mirror: Mirror,
  asOf: AsOf,
  o: { present?: boolean; run?: number } = {},
): Promise<ReportTime> {
  const time = reportTime(asOf, o);
  if (time.mirrorAt !== null)
    await checkAsOf(
      mirror.db,
      time.mirrorAt,
      asOf.source === 'instant' ? '--as-of-time' : `--as-of ${asOf.dateText}: the end of that day,`,
    );
  return time;
}

/** The About line saying which figures a report holds. */
function mirrorReadLine(time: ReportTime): string {
  if (time.mirrorAt !== null)
    return `mirror as known at ${time.mirrorAt} (its history: the figures the mirror held then)`;
  if (time.present && time.asOf.dateText < time.today)
    return `present figures (--present): the mirror as it is now, aged to the past as-of date ${time.asOf.dateText}`;
  return `the present (the mirror as it is now, read from ${new Date(time.run).toISOString()})`;
}

/**
 * Runs reports on the mirror and writes their files: the one path for `ohs report` and the
 * reports and nightly jobs. Returns the files written, in order.
 */
export async function writeReports(
  mirror: Mirror,
  config: Config,
  logger: Logger,
  chosen: readonly ReportDefinition[],
  o: WriteReportsOptions,
): Promise<string[]> {
  const files: string[] = [];
  const csv: CsvSettings = { ...config.reports.csv, ...o.csv };
  // Config options first, command-line ones over them.
  const options = { ...config.reports.options, ...o.options };
  checkOptionNames(chosen, options);
  await checkSynced(mirror, chosen);
  const identity = await mirrorIdentity(mirror.db, mirror.engine);
  // An explicit instant is in the file names: two instants of one day keep both files.
  const instant = o.time.asOf.source === 'instant' ? o.time.asOf.iso : undefined;
  // One run: what a report is built on is built once and handed on (reports/core/run.ts).
  const run = o.run ?? new ReportRun();
  const published: Published[] = o.published ?? [];
  for (const report of chosen) {
    const started = Date.now();
    const params = { time: o.time, orgIds: o.orgIds, options };
    const ran = await report.run({ db: mirror.db, run, params });
    const written = await writeReport(ran, {
      outDir: o.outDir,
      name: report.name,
      asOf: o.time.asOf.dateText,
      ...(instant === undefined ? {} : { instant }),
      title: report.title,
      formats: o.formats,
      csv,
      html: report.html,
      words: report.words,
      timezone: config.timezone,
      about: [
        ['Tool', `ohs-mirror ${packageVersion()}`],
        // Named by its service and sync runs: a file path of the machine says nothing to a reader.
        ['Mirror', identity],
        ['Organizations', o.orgIds.length === 0 ? 'all' : o.orgIds.join(', ')],
        ['Time zone', config.timezone],
        ['Mirror as of', mirrorReadLine(o.time)],
        ['Parameters', JSON.stringify(options)],
        [
          'CSV',
          `UTF-8${csv.bom ? ' with BOM' : ''}, separator ${JSON.stringify(csv.delimiter)}, ${csv.neutralise ? "text starting with = + - @ tab CR gets a leading ' (formula injection)" : 'text as it is'}`,
        ],
      ],
    });
    published.push({ report: report.name, written });
    // Every run says what it wrote and what is wrong with the data, CSV-only runs too (the
    // Warnings sheet is only in the xlsx).
    const out = o.out;
    if (o.quiet === true) {
      // Quiet means quiet: the Warnings sheet keeps them all.
    } else if (out !== undefined) {
      // One line per report: its rows, its warnings and the verdict the page, the workbook and
      // the dashboard show (the same object). The warnings themselves go to the terminal log,
      // which groups them by kind across the reports, for the command's closing lines.
      const kinds = warningLines(report.name, written.warnings).length;
      const w = written.warnings.length;
      out.write(
        `${printable(`${report.name}: ${written.rows} detail row${written.rows === 1 ? '' : 's'}, ${w} warning${w === 1 ? '' : 's'}${w === 0 ? '' : ` of ${kinds} kind${kinds === 1 ? '' : 's'}${o.formats.includes('xlsx') ? ' (all on the Warnings sheet)' : ''}`}: ${written.summary.verdict}`, 1000)}\n`,
      );
      for (const warning of written.warnings) logger.warn({ report: report.name }, warning);
    } else for (const w of written.warnings) logger.warn({ report: report.name }, w);
    logger.info(
      {
        report: report.name,
        rows: written.rows,
        warnings: written.warnings.length,
        verdictLevel: written.summary.level,
        verdict: written.summary.verdict,
        files: written.files,
        ms: Date.now() - started,
      },
      'report written',
    );
    // The verdict file beside the page is one of the run's outputs too (the dashboard reads it).
    files.push(...written.files, ...(written.summaryFile === undefined ? [] : [written.summaryFile]));
    // Its Trend sheet (handed on by itself, never found among the summaries by its name).
    const { trend } = ran;
    if (trend !== undefined && o.formats.includes('csv'))
      files.push(...(await writeTrend(trend, report, o, csv, instant)));
  }
  logger.debug({ built: Object.fromEntries(run.built) }, 'report run: work built');
  // Every report of the run: its figures checked across them (app/controls.ts).
  if (chosen.length === reports.length) {
    const at = {
      outDir: o.outDir,
      asOf: o.time.asOf.dateText,
      ...(instant === undefined ? {} : { instant }),
    };
    const to = { ...at, formats: o.formats, csv, timezone: config.timezone };
    files.push(
      ...(await writeControls(published, o.time.at, to, logger, o.quiet === true ? undefined : o.out)),
    );
  }
  return files;
}

/** A report's Trend sheet as `NAME-trend-DATE.csv` (for the nightly job's charts). */
async function writeTrend(
  trend: Sheet,
  report: ReportDefinition,
  o: WriteReportsOptions,
  csv: CsvSettings,
  instant: string | undefined,
): Promise<string[]> {
  const written = await writeReport(
    { detail: trend, summaries: () => [], warnings: () => [], about: () => [] },
    {
      outDir: o.outDir,
      name: `${report.name}-trend`,
      asOf: o.time.asOf.dateText,
      ...(instant === undefined ? {} : { instant }),
      title: report.title,
      formats: ['csv'],
      csv,
    },
  );
  return written.files;
}

/** A report would read streams the mirror never synced successfully: its files would be empty. */
export class NotSyncedError extends OhsError {
  override name = 'NotSyncedError';
  constructor(message: string) {
    super('NOT_SYNCED', message);
  }
}

/**
 * Refuses reports over streams that never synced successfully (a mirror whose only sync failed,
 * or a stream never asked): their files would be empty, or hold part of the data, with nothing
 * to say so. Nothing is written.
 */
export async function checkSynced(mirror: Mirror, chosen: readonly ReportDefinition[]): Promise<void> {
  const wanted = [...new Set(chosen.flatMap((r) => r.streams))];
  const synced = new Set(
    (await streamStates(mirror.db, wanted, undefined))
      .filter((s) => s.last_success_at !== null)
      .map((s) => s.stream),
  );
  const never = wanted.filter((s) => !synced.has(s));
  if (never.length === 0) return;
  const which = chosen.filter((r) => r.streams.some((s) => never.includes(s))).map((r) => r.name);
  throw new NotSyncedError(
    `${which.join(', ')}: the mirror holds no successful sync of ${never.join(', ')}: nothing written; run ohs sync (ohs status shows what failed)`,
  );
}

/**
 * Every option must be an option of a report being run: a misspelt one would otherwise change
 * nothing, silently. (With several reports, an option of one is simply not read by the others.)
 */
export function checkOptionNames(
  chosen: readonly ReportDefinition[],
  options: Record<string, unknown>,
): void {
  const valid = new Set(chosen.flatMap((r) => r.options));
  for (const name of Object.keys(options)) {
    if (valid.has(name)) continue;
    const list = chosen.map((r) => `${r.name}: ${r.options.join(', ')}`).join('; ');
    throw new ReportParamError(
      chosen.map((r) => r.name).join(', '),
      `options.${name}`,
      `unknown option '${name}' (valid options of ${list})`,
    );
  }
}

/**
 * The `reports` job (and the nightly job's reports, after its sync): every report for the job's
 * as-of into `jobs.outDir`. The run's time is decided here, once the data is in: an as-of from the
 * clock is the clock now, so that nothing the sync wrote is after the instant the reports stand at.
 */
export async function reportsJob(env: JobEnv): Promise<JobResult> {
  const { config } = env;
  const asOf = env.asOf.source === 'now' ? asOfNow(config.timezone) : env.asOf;
  // A past --as-of reads the mirror as it stood at the end of that day, as `ohs report` does.
  const time = await runTime(env.mirror, asOf);
  const published: Published[] = [];
  const outputs = await writeReports(env.mirror, config, env.logger, reports, {
    time,
    orgIds: [],
    options: {},
    outDir: config.jobs.outDir,
    formats: config.jobs.formats,
    published,
  });
  const changes = changesNotice(published);
  return { outputs, ...(changes === null ? {} : { changes }) };
}

/**
 * A report file of the registry's reports: `NAME[-trend]-YYYY-MM-DD[-at-INSTANT].xlsx|csv|html`,
 * or named by a period `NAME-FROM-TO` (the roll-forward; each end a date or a UTC instant), and
 * the verdict beside a page (`.summary.json`).
 */
const END = '(?:\\d{4}-\\d{2}-\\d{2}|\\d{8}T\\d{6}(?:\\.\\d{3})?Z)';
const reportFile = new RegExp(
  `^(${[...reports.map((r) => r.name), 'controls'].join('|')})(?:-trend)?-(?:\\d{4}-\\d{2}-\\d{2}(?:-at-\\d{8}T\\d{6}Z)?|${END}-${END})\\.(xlsx|csv|html|summary\\.json)$`,
);

/**
 * Removes the report files of `outDir` last written more than `days` ago (their modification
 * time), and returns them. Not by the as-of date in their names: an ad hoc report for a past
 * date made this morning is today's file, kept.
 */
export async function applyRetention(outDir: string, days: number, now = Date.now()): Promise<string[]> {
  if (days <= 0) return [];
  const cutoff = now - days * DAY;
  let names: string[];
  try {
    names = await readdir(outDir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!reportFile.test(name)) continue;
    const file = join(outDir, name);
    const st = await stat(file).catch(() => undefined);
    if (st?.isFile() === true && st.mtimeMs < cutoff) {
      await rm(file, { force: true });
      removed.push(file);
    }
  }
  return removed;
}
