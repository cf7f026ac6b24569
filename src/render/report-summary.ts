import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { instantsInWords } from '../dates.js';
import { count, type Level, levelText, type PageSummary, type ReportSummary } from './html/summary.js';
import { inWords, labelOf } from './html/words.js';
import type { CodeWords } from './types.js';

/**
 * A report's verdict, made once per run from what its summary builder computed (or, for a report
 * without one, from its row and warning counts). Everything that says how a report stands reads
 * this object: the page, the workbook's About sheet, the dashboard (its JSON file beside the
 * page) and the command's line. What a person reads of it (problems, figure labels and notes,
 * the headline) is said in words, codes such as STOPPED_TESTING through the report's own words
 * (`words`, its declaration's); its `counts` keep the codes (they are data, like the CSV's cells).
 */
export function reportSummary(
  opts: {
    name: string;
    title: string;
    asOf: string;
    instant?: string;
    covers?: string;
    words?: CodeWords;
    timezone?: string;
  },
  page: PageSummary | undefined,
  rows: number,
  warnings: number,
): ReportSummary {
  // Codes in the report's words, instants to the second in the reporting zone, the zone named.
  const zone = opts.timezone ?? 'UTC';
  const said = (text: string) => instantsInWords(inWords(text, opts.words ?? {}), zone);
  const problems = (
    page?.problems ?? (warnings > 0 ? [`${count(warnings)} warning${warnings === 1 ? '' : 's'}`] : [])
  ).map(said);
  // No verdict stronger than what it rests on: a problem named is never OK.
  const level: Level = page?.status === undefined ? (problems.length > 0 ? 'warn' : 'ok') : page.status;
  const lifted: Level = level === 'ok' && problems.length > 0 ? 'warn' : level;
  return {
    report: opts.name,
    title: opts.title,
    asOf: opts.asOf,
    ...(opts.instant === undefined ? {} : { instant: opts.instant }),
    ...(opts.covers === undefined ? {} : { covers: said(opts.covers) }),
    level: lifted,
    verdict: problems.length === 0 ? levelText[lifted] : `${levelText[lifted]}: ${problems.join('; ')}`,
    figures: (page?.figures ?? [{ label: 'Rows', value: count(rows) }]).map((f) => ({
      label: labelOf(f.label, opts.words ?? {}),
      value: f.value,
      ...(f.note === undefined ? {} : { note: said(f.note) }),
    })),
    counts: page?.counts ?? [],
    problems,
    rows,
    warnings,
    ...(page?.headline === undefined ? {} : { headline: said(page.headline) }),
  };
}

/** The verdict's file beside the page: `STEM.summary.json`. */
export function summaryFileOf(dir: string, stem: string): string {
  return join(dir, `${stem}.summary.json`);
}

/** A verdict file as the dashboard and the summaries read it back: what they use is required. */
const summaryFile = z.object({
  report: z.string(),
  title: z.string(),
  asOf: z.string(),
  instant: z.string().optional(),
  covers: z.string().optional(),
  level: z.enum(['ok', 'warn', 'bad']),
  verdict: z.string(),
  // The note under a figure (what of it rests on an assumed rate) is kept for the dashboard.
  figures: z.array(z.object({ label: z.string(), value: z.string(), note: z.string().optional() })),
  counts: z
    .array(z.object({ group: z.string(), status: z.string(), count: z.number(), assumed: z.number() }))
    .default([]),
  problems: z.array(z.string()),
  rows: z.number().default(0),
  warnings: z.number().default(0),
  headline: z.string().optional(),
});

/**
 * Reads a verdict file back, or says in one line why it is not one (bad JSON, a field missing or
 * of another type: `problems: expected array, received undefined`). Never throws: a reader of
 * the tool's own files goes on with the others.
 */
export async function readSummaryChecked(
  file: string,
): Promise<{ summary: ReportSummary; problem?: undefined } | { summary?: undefined; problem: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      problem: code === undefined ? `not valid JSON (${(err as Error).message})` : `cannot read it (${code})`,
    };
  }
  const checked = summaryFile.safeParse(parsed);
  if (checked.success) {
    const { instant, covers, headline, ...rest } = checked.data;
    return {
      summary: {
        ...rest,
        ...(instant === undefined ? {} : { instant }),
        ...(covers === undefined ? {} : { covers }),
        ...(headline === undefined ? {} : { headline }),
      },
    };
  }
  const issue = checked.error.issues[0];
  const where = issue === undefined || issue.path.length === 0 ? 'the file' : issue.path.join('.');
  return { problem: `not a report verdict (${where}: ${issue?.message ?? 'invalid'})` };
}

/** Reads a verdict file back; undefined when it is not one. */
export async function readSummaryFile(file: string): Promise<ReportSummary | undefined> {
  return (await readSummaryChecked(file)).summary;
}
