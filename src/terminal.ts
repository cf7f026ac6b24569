import { closeSync, writeSync } from 'node:fs';
import { openLogFile as openSafely } from './util/safe-file.js';

/**
 * The terminal of a command in the `text` log format (config `logFormat`, the default): log lines
 * are not printed one by one. Warnings and errors are grouped by kind (their message with numbers
 * and quoted values blanked) and printed at the end as one line per kind, with its count and a
 * few examples: in the command's summary on stdout, or after the error line of a failed command
 * (src/cli.ts), so that its first line is what was wrong. Info lines are printed as plain text
 * only by commands that print no summary of their own. Every line, in full, goes to `logFile`
 * (JSON) when one is set: that is where the whole list is kept.
 */
interface Group {
  level: 'warning' | 'error';
  count: number;
  /** The first line of the kind, in full. */
  example: string;
  /** The subjects of the next few (their text before the kind). */
  more: string[];
  /** Each line taken, without the report that logged it: a warning logged again (a report run by another) counts once. */
  seen: Set<string>;
}

/**
 * Examples kept per kind, and the characters of the first on the terminal: a longer one keeps its
 * start and its end (where a warning says what to do), never cut before its fix.
 */
const EXAMPLES = 3;
const EXAMPLE_CHARS = 240;
const EXAMPLE_TAIL = 140;

const state = {
  groups: new Map<string, Group>(),
  /** The command prints its own summary: info lines are left to it (and to the log file). */
  summarised: false,
  quiet: false,
  file: undefined as number | undefined,
  out: process.stderr as { write(text: string): unknown },
  /** Each report's verdict, as its 'report written' line gave it (for a job's closing lines). */
  verdicts: [] as Verdict[],
};

/** A report's verdict as logged when it was written (src/app/reports.ts). */
export interface Verdict {
  report: string;
  /** 'ok', 'attention' or 'action' (src/render/report-summary.ts). */
  level: string;
  verdict: string;
}

/** The verdicts of the reports written since the last call, in order, and forgets them. */
export function takeVerdicts(): Verdict[] {
  const taken = state.verdicts;
  state.verdicts = [];
  return taken;
}

/**
 * A warning quoted from another report ("compliance: Org A (1) 2026-05: no OrgMonth row", as
 * accounts at risk passes on the warnings of the reports it joins) without the quoting report's
 * name, so that it keeps the kind it has in its own report. Only a lower-case name followed by
 * another subject is taken for one.
 */
function unquoted(text: string): string {
  const m = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*: (?=[^:]{1,120}: )/.exec(text);
  return m === null ? text : text.slice(m[0].length);
}

/**
 * A warning's kind: its text after the subject (after the first ": ", when there is one early),
 * with numbers and quoted values blanked, as a report groups its warnings: "OrgMonth 900084 of
 * org A (1005): label "n/a" is not a month" and the same of org B are one kind.
 */
export function kindOf(text: string): string {
  const own = unquoted(text);
  const at = own.indexOf(': ');
  const tail = at >= 0 && at < 120 ? own.slice(at + 2) : own;
  return tail
    .replace(/"[^"]*"|'[^']*'/g, '"…"')
    .replace(/\d+(?:[.,:-]\d+)*/g, '#')
    .slice(0, 100);
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** A long example shortened in its middle: its subject and its end (the fix) stay whole. */
const middleOut = (s: string) =>
  s.length <= EXAMPLE_CHARS
    ? s
    : `${s.slice(0, EXAMPLE_CHARS - EXAMPLE_TAIL - 3).trimEnd()} … ${s.slice(-EXAMPLE_TAIL).trimStart()}`;

/** Fields that name the subject of a line, shown before its message in an example. */
const subjectKeys = ['stream', 'report', 'job', 'id', 'org', 'field'];

/** Takes one pino JSON line (the logger's destination in the text format). */
function take(line: string): void {
  if (state.file !== undefined) writeSync(state.file, line.endsWith('\n') ? line : `${line}\n`);
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const level = Number(entry.level);
  const msg = typeof entry.msg === 'string' ? entry.msg : '';
  if (level < 40) {
    noteVerdict(entry);
    if (!state.summarised && !state.quiet) state.out.write(`${msg}\n`);
    return;
  }
  const kind = `${level >= 50 ? 'E' : 'W'}${kindOf(msg)}`;
  const subject = subjectKeys
    .filter((k) => entry[k] !== undefined && !msg.includes(String(entry[k])))
    .map((k) => `${k} ${String(entry[k])}`)
    .join(', ');
  const code = typeof entry.code === 'string' ? ` (${entry.code})` : '';
  const example = `${subject === '' ? '' : `${subject}: `}${msg}${code}`;
  const g = state.groups.get(kind);
  const same = `${msg.replace(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*: /, '')}${code}`;
  if (g === undefined)
    state.groups.set(kind, {
      level: level >= 50 ? 'error' : 'warning',
      count: 1,
      example,
      more: [],
      seen: new Set([same]),
    });
  else if (!g.seen.has(same)) {
    g.seen.add(same);
    g.count++;
    const at = msg.indexOf(': ');
    if (g.more.length < EXAMPLES - 1) g.more.push(at >= 0 && at < 120 ? msg.slice(0, at) : example);
  }
}

/** A report's verdict, from its 'report written' info line. */
function noteVerdict(entry: Record<string, unknown>): void {
  const { report, verdictLevel, verdict } = entry;
  if (typeof report === 'string' && typeof verdictLevel === 'string' && typeof verdict === 'string')
    state.verdicts.push({ report, level: verdictLevel, verdict });
}

function openLogFile(file: string | null): void {
  // Through the one file gate: no link followed, 0600, another user's file refused.
  if (file !== null && state.file === undefined) state.file = openSafely(file);
}

/** The destination of a text-format logger (see above); `file` gets every line as JSON. */
export function terminalDestination(file: string | null): { write(line: string): void } {
  openLogFile(file);
  return { write: take };
}

/** Appends each line to `file` (the JSON format's copy of stderr). */
export function logFileDestination(file: string): { write(line: string): void } {
  openLogFile(file);
  return {
    write: (line: string) => {
      if (state.file !== undefined) writeSync(state.file, line.endsWith('\n') ? line : `${line}\n`);
    },
  };
}

/** The command prints its own summary on stdout (info lines are then not echoed). */
export function summarised(): void {
  state.summarised = true;
}

/** `--quiet`: nothing on the terminal but a failure's own line. */
export function setQuiet(quiet: boolean): void {
  state.quiet = quiet;
}

/** How many warnings and errors of how many kinds were logged (and not yet taken). */
export function attentionCounts(): { warnings: number; errors: number; kinds: number } {
  let warnings = 0;
  let errors = 0;
  for (const g of state.groups.values()) {
    if (g.level === 'error') errors += g.count;
    else warnings += g.count;
  }
  return { warnings, errors, kinds: state.groups.size };
}

/**
 * One line per kind of warning or error logged so far, errors first, and forgets them:
 * `warning ×171: Org A (1): no OrgMonth row … (e.g. …; …)`. At most `max` lines; the rest are
 * counted in a last line.
 */
export function takeAttentionLines(max = 8): string[] {
  const groups = [...state.groups.values()].sort((a, b) =>
    a.level === b.level ? b.count - a.count : a.level === 'error' ? -1 : 1,
  );
  state.groups.clear();
  const lines = groups.slice(0, max).map((g) => {
    const also =
      g.more.length === 0
        ? ''
        : ` (also: ${g.more.map((e) => clip(e, 60)).join('; ')}${g.count > g.more.length + 1 ? '; …' : ''})`;
    return `${g.level}${g.count > 1 ? ` ×${g.count}` : ''}: ${middleOut(g.example)}${also}`;
  });
  const rest = groups.slice(max);
  if (rest.length > 0)
    lines.push(
      `… and ${rest.reduce((a, g) => a + g.count, 0)} more of ${rest.length} other kinds${state.file === undefined ? '' : ' (all in the log file)'}`,
    );
  return lines;
}

/** Where the full list of log lines is kept, for a summary's last line. */
export const logFileNote = (): string =>
  state.file === undefined
    ? 'every log line: set logFile (or --log-file FILE), or --log-format json'
    : 'every log line is in the log file (logFile)';

/** Writes `lines` to stdout unless quiet (a command's closing summary). */
export function printSummary(lines: readonly string[]): void {
  if (state.quiet) return;
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * What is left ungrouped at the end of a command (one that printed no summary, or failed): the
 * grouped lines on stderr, after the failure's own line. Closes the log file.
 */
export function flushAttention(): void {
  if (!state.quiet) for (const line of takeAttentionLines()) state.out.write(`${line}\n`);
  if (state.file !== undefined) {
    closeSync(state.file);
    state.file = undefined;
  }
}
