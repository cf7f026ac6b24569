import { basename, dirname, extname, isAbsolute, relative, resolve } from 'node:path';
import type { Mirror } from '../mirror/index.js';
import { readSummaryFile } from '../render/report-summary.js';
import {
  attentionCounts,
  logFileNote,
  printSummary,
  summarised,
  takeAttentionLines,
  takeVerdicts,
} from '../terminal.js';

/**
 * The closing summary every long command (sync, run, demo, cron, report) prints on stdout: what
 * it did, what needs attention (warnings and errors grouped by kind, a stream left incomplete),
 * and the next step. Short and plain; the full list of log lines is in the log file (logFile),
 * a report's warnings on its Warnings sheet.
 */
export interface Summary {
  /** What the command did, a line or two. */
  did: string[];
  /** What needs attention beyond the logged warnings (an incomplete stream, say). */
  attention?: string[];
  /** The next step. */
  next: string;
}

/**
 * `ohs SUB` as the user can type it again: through npx when this run came through npx, `ohs` when
 * it was found on the PATH, else `node PATH/bin/ohs.js`; with the `--db` and `--config` this run
 * was given, so that the next step reads the same mirror.
 */
export function asInvoked(sub: string, argv: readonly string[] = process.argv): string {
  const script = argv[1] ?? 'ohs';
  const shown = relative(process.cwd(), script);
  const prefix =
    // npx sets the command it runs in npm_lifecycle_script ('ohs status'); an ohs started by
    // something else npx ran (a test runner) inherits npm_command=exec but not that.
    process.env.npm_command === 'exec' && /^ohs(\s|$)/.test(process.env.npm_lifecycle_script ?? '')
      ? 'npx ohs'
      : basename(script) === 'ohs'
        ? 'ohs'
        : `node ${shown.startsWith('..') || isAbsolute(shown) ? script : shown}`;
  const given: string[] = [];
  for (const flag of ['--db', '--config']) {
    const at = argv.findIndex((a, i) => i > 1 && (a === flag || a.startsWith(`${flag}=`)));
    if (at < 0) continue;
    const value = argv[at]?.includes('=') === true ? argv[at]?.slice(flag.length + 1) : argv[at + 1];
    if (value !== undefined) given.push(`${flag} ${shellWord(withoutPassword(value))}`);
  }
  return [prefix, sub, ...given].join(' ');
}

/** A PostgreSQL URL's password blanked: a next-step line is no place for a secret. */
function withoutPassword(value: string): string {
  if (!value.includes('://')) return value;
  try {
    const u = new URL(value);
    if (u.password === '') return value;
    u.password = '***';
    return u.toString();
  } catch {
    return value;
  }
}

/** A word as a POSIX shell reads it back. */
const shellWord = (w: string) => (/^[\w./:@%+=,-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`);

/** Call at the start of a command that ends with a summary: its info lines are then not echoed. */
export const withSummary = summarised;

const n = (x: number) => x.toLocaleString('en-US');

/** The lines of a summary, the grouped warnings taken from the terminal log. */
export function summaryLines(s: Summary): string[] {
  const { warnings, errors } = attentionCounts();
  const logged = takeAttentionLines();
  const attention = [...(s.attention ?? []), ...logged];
  const lines = [...s.did];
  if (attention.length === 0) lines.push('attention: nothing');
  else {
    const counts = [
      errors > 0 ? `${n(errors)} error(s)` : '',
      warnings > 0 ? `${n(warnings)} warning(s)` : '',
    ]
      .filter((x) => x !== '')
      .join(', ');
    lines.push(`attention${counts === '' ? '' : ` (${counts}; ${logFileNote()})`}:`);
    for (const a of attention) lines.push(`  ${a}`);
  }
  lines.push(`next: ${s.next}`);
  return lines;
}

/**
 * The warnings and errors logged so far, grouped by kind, under one heading (none: no lines), and
 * forgets them: the closing lines of a command that prints no summary of its own (`ohs report`).
 */
export function attentionLines(): string[] {
  const { warnings, errors, kinds } = attentionCounts();
  const lines = takeAttentionLines();
  if (lines.length === 0) return [];
  const counts = [errors > 0 ? `${n(errors)} error(s)` : '', warnings > 0 ? `${n(warnings)} warning(s)` : '']
    .filter((x) => x !== '')
    .join(', ');
  return [`attention (${counts} of ${kinds} kind(s); ${logFileNote()}):`, ...lines.map((l) => `  ${l}`)];
}

export function printClosingSummary(s: Summary): void {
  printSummary(summaryLines(s));
}

/** What a sync run did, from the run ledger: one line, and a line per stream left incomplete. */
export async function syncRunLines(
  mirror: Mirror,
  runId: number,
): Promise<{ did: string; incomplete: string[]; failed: string[] }> {
  const run = await mirror.db
    .selectFrom('sync_run')
    .select(['outcome', 'mode', 'requests', 'started_at', 'ended_at'])
    .where('id', '=', runId)
    .executeTakeFirst();
  const streams = await mirror.db
    .selectFrom('sync_stream_run')
    .select(['stream', 'outcome', 'inserted', 'updated', 'deleted', 'error'])
    .where('run_id', '=', runId)
    .orderBy('id')
    .execute();
  const sum = (k: 'inserted' | 'updated' | 'deleted') => streams.reduce((a, s) => a + Number(s[k]), 0);
  const secs =
    run?.ended_at == null
      ? ''
      : ` in ${((Date.parse(run.ended_at) - Date.parse(run.started_at)) / 1000).toFixed(1)} s`;
  const ok = streams.filter((s) => s.outcome === 'ok').length;
  const did = `sync run ${runId} ${run?.outcome ?? 'unknown'} (${run?.mode ?? '?'}): ${ok} of ${streams.length} streams complete, ${n(sum('inserted'))} new, ${n(sum('updated'))} changed, ${n(sum('deleted'))} deleted, ${n(Number(run?.requests ?? 0))} requests${secs}`;
  const incomplete = streams
    .filter((s) => s.outcome === 'incomplete')
    .map((s) => `${s.stream} incomplete: ${(s.error ?? '').replace(/^INCOMPLETE: /, '')}`);
  const failed = streams
    .filter((s) => s.outcome === 'failed')
    .map((s) => `${s.stream} failed: ${s.error ?? ''}`);
  return { did, incomplete, failed };
}

/** What a job run did: its outcome and time, its sync run, the files it wrote and where. */
export async function jobLines(
  mirror: Mirror,
  r: { job: string; runId: number; outcome: string; outputs: readonly string[]; syncRunId?: number },
  seconds: number,
): Promise<{ did: string[]; attention: string[]; dashboard: string | undefined; folders: string[] }> {
  const did = [`${r.job} job run ${r.runId} ${r.outcome} in ${seconds.toFixed(1)} s`];
  const attention: string[] = [];
  if (r.syncRunId !== undefined) {
    const sync = await syncRunLines(mirror, r.syncRunId);
    did.push(sync.did);
    attention.push(...sync.incomplete, ...sync.failed);
  }
  const folders = [...new Set(r.outputs.map((f) => resolve(dirname(f))))];
  const dashboard = r.outputs.map((f) => resolve(f)).find((f) => basename(f) === 'index.html');
  if (r.outputs.length > 0)
    did.push(`reports: ${r.outputs.length} files in ${folders.join(', ')} (${formatsOf(r.outputs)})`);
  // Each report's verdict, whatever the formats: as each report's 'report written' line gave it
  // (the terminal log keeps them), else from the file beside its page that the dashboard reads.
  // One that is not OK is what needs attention first.
  const verdicts = new Map(takeVerdicts().map((v) => [v.report, v]));
  for (const file of r.outputs.filter((f) => f.endsWith('.summary.json'))) {
    const v = await readSummaryFile(file);
    if (v !== undefined && !verdicts.has(v.report)) verdicts.set(v.report, v);
  }
  for (const v of verdicts.values()) {
    const line = `report ${v.report}: ${wholeClauses(v.verdict, 200)}`;
    if (v.level === 'ok') did.push(line);
    else attention.push(line);
  }
  return { did, attention, dashboard, folders };
}

/**
 * A verdict of at most about `max` characters in whole clauses (`; ` between them), the rest
 * counted: `…; Alcohol: at risk 44; and 2 more on its page`, never a phrase cut in its middle.
 */
export function wholeClauses(text: string, max: number): string {
  if (text.length <= max) return text;
  const clauses = text.split('; ');
  let kept = clauses[0] ?? '';
  let n = 1;
  while (n < clauses.length && kept.length + 2 + (clauses[n]?.length ?? 0) <= max)
    kept += `; ${clauses[n++]}`;
  return n === clauses.length ? kept : `${kept}; and ${clauses.length - n} more on its page`;
}

const formatsOf = (files: readonly string[]) =>
  [...new Set(files.map((f) => extname(f).slice(1)))].sort().join(', ');
