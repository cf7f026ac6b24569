import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { count, type Level, levelText, type PageSummary, type ReportSummary } from './html/summary.js';

/**
 * A report's verdict, made once per run from what its summary builder computed (or, for a report
 * without one, from its row and warning counts). Everything that says how a report stands reads
 * this object: the page, the workbook's About sheet, the dashboard (its JSON file beside the
 * page) and the command's line.
 */
export function reportSummary(
  opts: { name: string; title: string; asOf: string; instant?: string },
  page: PageSummary | undefined,
  rows: number,
  warnings: number,
): ReportSummary {
  const problems =
    page?.problems ?? (warnings > 0 ? [`${count(warnings)} warning${warnings === 1 ? '' : 's'}`] : []);
  // No verdict stronger than what it rests on: a problem named is never OK.
  const level: Level = page?.status === undefined ? (problems.length > 0 ? 'warn' : 'ok') : page.status;
  const lifted: Level = level === 'ok' && problems.length > 0 ? 'warn' : level;
  return {
    report: opts.name,
    title: opts.title,
    asOf: opts.asOf,
    ...(opts.instant === undefined ? {} : { instant: opts.instant }),
    level: lifted,
    verdict: problems.length === 0 ? levelText[lifted] : `${levelText[lifted]}: ${problems.join('; ')}`,
    figures: page?.figures ?? [{ label: 'Rows', value: count(rows) }],
    counts: page?.counts ?? [],
    problems,
    rows,
    warnings,
  };
}

/** The verdict's file beside the page: `STEM.summary.json`. */
export function summaryFileOf(dir: string, stem: string): string {
  return join(dir, `${stem}.summary.json`);
}

const levels = new Set<string>(['ok', 'warn', 'bad']);

/** Reads a verdict file back (the dashboard); undefined when it is not one. */
export async function readSummaryFile(file: string): Promise<ReportSummary | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const s = parsed as Partial<ReportSummary>;
  if (
    typeof s.report !== 'string' ||
    typeof s.title !== 'string' ||
    typeof s.asOf !== 'string' ||
    typeof s.verdict !== 'string' ||
    !levels.has(String(s.level)) ||
    !Array.isArray(s.figures)
  )
    return undefined;
  return s as ReportSummary;
}
