import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { readSummaryFile } from '../render/report-summary.js';
import { type Counted, type HeadlineCounts, headlineCounts } from '../reports/changes/headline.js';

/**
 * What a job run's notice says of the changes report it wrote: its headline and level (from the
 * verdict file beside its page) and the headline counts (from its CSV): counts and the period's
 * start only, never a person, an org or an amount.
 */
export interface ChangesNotice {
  headline: string | null;
  level: 'ok' | 'warn' | 'bad' | null;
  counts: HeadlineCounts | null;
}

/** The changes report among a run's files, or null when it wrote none (or none can be read). */
export async function changesNotice(files: readonly string[]): Promise<ChangesNotice | null> {
  const ours = files.filter((f) => /^changes-.+\.(csv|summary\.json)$/.test(basename(f)));
  if (ours.length === 0) return null;
  const summaryFile = ours.find((f) => f.endsWith('.summary.json'));
  const csvFile = ours.find((f) => f.endsWith('.csv'));
  const summary =
    summaryFile === undefined ? undefined : await readSummaryFile(summaryFile).catch(() => undefined);
  let counts: HeadlineCounts | null = null;
  if (csvFile !== undefined) {
    const text = await readFile(csvFile, 'utf8').catch(() => undefined);
    if (text !== undefined) {
      const rows = parse(text, {
        columns: true,
        bom: true,
        skip_empty_lines: true,
        delimiter: [',', ';', '\t'],
      }) as Counted[];
      counts = headlineCounts(rows);
    }
  }
  return { headline: summary?.headline ?? null, level: summary?.level ?? null, counts };
}
