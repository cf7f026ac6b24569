import { constants } from 'node:fs';
import { access, mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OutputError } from '../errors.js';
import { printable } from '../util/printable.js';
import { publish, temporaryName, writeExclusive } from '../util/safe-file.js';
import { CsvRenderer } from './csv-renderer.js';
import { RenderOptionsError } from './errors.js';
import { HtmlRenderer, readSheets } from './html/renderer.js';
import type { PageSummary, ReportSummary, SummaryBuilder } from './html/summary.js';
import type { CsvSettings, DetailLayout, Renderer, ReportFormat } from './renderer.js';
import { reportSummary, summaryFileOf } from './report-summary.js';
import { forEachRow } from './streams.js';
import type { CodeWords, Facts, ReportResult } from './types.js';
import { XlsxRenderer } from './xlsx-renderer.js';

export { formatCents } from '../util/money.js';
export { CsvRenderer } from './csv-renderer.js';
export { RenderOptionsError, RenderValueError } from './errors.js';

export type { ReportSummary } from './html/summary.js';
export type { CsvSettings, ReportFormat } from './renderer.js';

export type { CodeWords, Column, Facts, ReportResult, Row, Sheet } from './types.js';
export { neutralise } from './values.js';
export { XlsxRenderer } from './xlsx-renderer.js';

export interface WriteReportOptions {
  /** Directory of the files; created when missing. */
  outDir: string;
  /** Report name, the first part of the file names (`compliance`). */
  name: string;
  /** As-of date, YYYY-MM-DD: the second part of the file names. */
  asOf: string;
  /**
   * The explicit as-of instant (`--as-of-time`), ISO 8601 UTC: the file names carry it after the
   * date (`NAME-ASOF-at-YYYYMMDDTHHMMSSZ`), so two instants of one day keep both files.
   */
  instant?: string;
  /** Human title, on the About sheet. */
  title: string;
  formats: ReportFormat[];
  /** About lines from the caller (mirror, last sync per stream), after the standard ones. */
  about?: [string, string][];
  /** How the CSV reads (BOM, separator, neutralisation): config `reports.csv`. */
  csv: CsvSettings;
  /** The HTML page's summary builder, from the report's declaration; absent: tables only. */
  html?: () => SummaryBuilder;
  /** The report's words for its codes (its declaration's): its verdict and page say them. */
  words?: CodeWords;
  /** The reporting time zone: the page says its instants to the second in it, the zone named. */
  timezone?: string;
}

export interface WriteReportResult {
  /** The files written, in the order of `formats`. */
  files: string[];
  /** Detail rows written. */
  rows: number;
  /** The report's warnings (on the xlsx Warnings sheet; a CSV has no place for them). */
  warnings: string[];
  /** The report's verdict, computed once; every file of the run shows it. */
  summary: ReportSummary;
  /** With an HTML page: the verdict as JSON beside it (`STEM.summary.json`, the dashboard's). */
  summaryFile?: string;
  /**
   * The report's typed product, as its page read it (absent: it publishes none): what the run's
   * controls and notices read, never one of its sheets by name.
   */
  facts?: Facts;
}

/**
 * The file name of a report without its extension: `NAME-ASOF`, or with an explicit instant
 * `NAME-ASOF-at-YYYYMMDDTHHMMSSZ` (UTC, to the second).
 */
export function reportStem(name: string, asOf: string, instant?: string): string {
  if (instant === undefined) return `${name}-${asOf}`;
  const ms = Date.parse(instant);
  if (!Number.isFinite(ms))
    throw new RenderOptionsError(`Expected \`instant\` to be an ISO 8601 instant, got '${instant}'`);
  const basic = new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');
  return `${name}-${asOf}-at-${basic}Z`;
}

function openRenderer(
  format: ReportFormat,
  path: string,
  detail: DetailLayout,
  opts: WriteReportOptions,
): Renderer {
  if (format === 'csv') return new CsvRenderer(path, detail, opts.csv);
  if (format === 'html')
    return new HtmlRenderer(path, detail, {
      report: opts.name,
      title: opts.title,
      asOf: opts.asOf,
      ...(opts.words === undefined ? {} : { words: opts.words }),
      ...(opts.timezone === undefined ? {} : { timezone: opts.timezone }),
    });
  return new XlsxRenderer(path, detail, { report: opts.name, asOf: opts.asOf });
}

/**
 * Writes `outDir/NAME-ASOF.xlsx`, `.csv` and/or `.html`. The detail rows can be read only once, so every
 * format is fed in the same pass over them. Each file is written under a temporary name in
 * `outDir` and renamed when complete, so a failure leaves no partial file (and an earlier
 * report of the same name untouched).
 */
export async function writeReport(
  result: ReportResult,
  opts: WriteReportOptions,
): Promise<WriteReportResult> {
  const formats = checkOptions(opts);
  await outputFolder(opts.outDir);
  const stem =
    result.fileName === undefined
      ? reportStem(opts.name, opts.asOf, opts.instant)
      : `${opts.name}-${result.fileName}`;
  const targets = formats.map((format) => {
    const file = join(opts.outDir, `${stem}.${format}`);
    return { format, file, temp: temporaryName(file) };
  });
  // The report's own summary: it sees every detail row once, here, whatever the formats.
  const builder = opts.html?.();
  const open: Renderer[] = [];
  const sidecar = formats.includes('html') ? summaryFileOf(opts.outDir, stem) : undefined;
  const sidecarTemp = sidecar === undefined ? undefined : temporaryName(sidecar);
  let created = 0;
  let sidecarCreated = false;
  try {
    for (const t of targets) {
      open.push(openRenderer(t.format, t.temp, result.detail, opts));
      created++;
    }
    const rows = await forEachRow(result.detail.rows, (row) => {
      builder?.onRow(row);
      if (open.length === 1) return open[0]!.write(row);
      const waits: Promise<void>[] = [];
      try {
        for (const r of open) {
          const wait = r.write(row);
          if (wait !== undefined) waits.push(wait);
        }
      } catch (err) {
        // A wait of an earlier format is never awaited now; it must not reject unhandled.
        for (const w of waits) w.catch(() => undefined);
        throw err;
      }
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
    });
    const warnings = result.warnings();
    // The summaries' rows can be read once: with a summary builder or the page as well as the
    // workbook, they are read here (a few hundred rows) and handed to each.
    const sheets = result.summaries();
    const read = await readSheets(sheets);
    const facts = result.facts?.();
    const page: PageSummary | undefined = builder === undefined ? undefined : builder.build(facts);
    const summary = reportSummary(
      { ...opts, ...(result.covers === undefined ? {} : { covers: result.covers }) },
      page,
      rows,
      warnings.length,
    );
    const tail = {
      summaries: read,
      warnings,
      about: [
        ['Report', opts.name],
        ['Title', opts.title],
        ['As of', opts.instant === undefined ? opts.asOf : `${opts.asOf} (instant ${opts.instant})`],
        ['Generated at', new Date().toISOString()],
        ['Verdict', summary.verdict],
        ...(opts.about ?? []),
        ...result.about(),
      ] satisfies [string, string][],
      summary,
      ...(page === undefined ? {} : { page }),
    };
    for (const r of open) await r.finish(tail);
    if (sidecar !== undefined && sidecarTemp !== undefined) {
      writeExclusive(sidecarTemp, `${JSON.stringify(summary, null, 2)}\n`, 0o600);
      sidecarCreated = true;
    }
    for (const t of targets) await publish(t.temp, t.file);
    if (sidecar !== undefined && sidecarTemp !== undefined) await publish(sidecarTemp, sidecar);
    return {
      files: targets.map((t) => t.file),
      rows,
      warnings,
      summary,
      ...(sidecar === undefined ? {} : { summaryFile: sidecar }),
      ...(facts === undefined ? {} : { facts }),
    };
  } catch (err) {
    await Promise.all(open.map((r) => r.abort()));
    // Only the temporary files this call created: never what was found at one of their names.
    await Promise.all(targets.slice(0, created).map((t) => rm(t.temp, { force: true })));
    if (sidecarCreated && sidecarTemp !== undefined) await rm(sidecarTemp, { force: true });
    throw err;
  }
}

function checkOptions(opts: WriteReportOptions): ReportFormat[] {
  // Both parts name a file: no separators, nothing that climbs out of outDir.
  const safe = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
  if (!safe.test(opts.name))
    throw new RenderOptionsError(
      `Expected \`name\` to be a file name part (letters, digits, . _ -), got '${opts.name}'`,
    );
  if (!/^\d{4}-\d{2}-\d{2}$/.test(opts.asOf))
    throw new RenderOptionsError(`Expected \`asOf\` to be a date YYYY-MM-DD, got '${opts.asOf}'`);
  const formats = [...new Set(opts.formats)];
  if (formats.length === 0)
    throw new RenderOptionsError('Expected `formats` to name at least one of xlsx, csv, html');
  for (const f of formats)
    if (f !== 'xlsx' && f !== 'csv' && f !== 'html')
      throw new RenderOptionsError(`Expected a format of xlsx, csv or html, got '${String(f)}'`);
  return formats;
}

/**
 * Creates the output folder, or refuses it with a clear error: a path through a file, a file
 * where the folder should be, a folder this process may not write.
 */
async function outputFolder(dir: string): Promise<void> {
  const why = (err: unknown): string => {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file is in the way (not a folder)';
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    if (code === 'EROFS') return 'read-only file system';
    return code ?? String(err);
  };
  try {
    await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    await access(dir, constants.W_OK);
  } catch (err) {
    throw new OutputError(`--out ${printable(dir, 200)}: cannot write reports there: ${why(err)}`, {
      cause: err,
    });
  }
}
