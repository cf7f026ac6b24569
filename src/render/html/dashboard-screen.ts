import { esc } from './escape.js';
import { statusBadge } from './page.js';
import { type Figure, figureHtml, type Level, type ReportSummary, whenOf } from './summary.js';
import { outcomeWords as saidOutcome } from './words.js';

/**
 * The parts of the dashboard (`index.html`, dashboard.ts): its first screen (what changed, every
 * report's verdict in one row, the mirror's freshness and the last job) and the details below.
 * Every value escaped. A verdict file is in words already (each report's own, when it was
 * written); the mirror's and the jobs' outcomes are said in words here (words.ts).
 */

/** A stream's freshness as `ohs status` reads it. */
export interface StreamFreshness {
  stream: string;
  rows: number;
  last_success_at: string | null;
  last_outcome: string | null;
}

export interface JobState {
  job: string;
  id: number;
  outcome: string;
  error_code: string | null;
  started_at?: string | null;
  ended_at?: string | null;
}

/** A report's newest page in the folder: its report name (from the file's name), file and verdict. */
export interface ShownPage {
  report: string;
  file: string;
  summary: ReportSummary;
}

/**
 * The report whose card opens the dashboard (the caller names it: what changed over a period),
 * and what to run when the folder has none of its pages.
 */
export interface LeadReport {
  report: string;
  /** The command that writes one (`ohs report changes --format html`). */
  command: string;
  /** What follows the command ("writes one (what changed since …); the nightly job …"). */
  what: string;
}

const rank: Record<Level, number> = { bad: 0, warn: 1, ok: 2 };

/**
 * Worst first (Action needed, Needs attention, OK), then by title and name: the order of the
 * verdict row and of the cards. A report of zeros that only notes a caveat never leads.
 */
export function worstFirst(pages: ShownPage[]): ShownPage[] {
  return [...pages].sort(
    (a, b) =>
      rank[a.summary.level] - rank[b.summary.level] ||
      a.summary.title.localeCompare(b.summary.title, 'en') ||
      a.report.localeCompare(b.report, 'en'),
  );
}

const href = (file: string) => esc(encodeURIComponent(file));

/** A figure as the dashboard shows it: label, value and qualifier, as its verdict file says them. */
const shownFigure = (f: Figure): string => figureHtml(f, esc);

const problemList = (problems: string[]) =>
  problems.length === 0
    ? ''
    : `<ul class="verdict">${problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>`;

/**
 * The lead card: the newest page of the lead report, its headline (its verdict when it has none),
 * its period and badge, its figures, a link to its page; without one, a line saying how to get one.
 */
export function leadCard(page: ShownPage | undefined, lead: LeadReport): string {
  if (page === undefined)
    return `<p class="none" id="no-lead">No ${esc(lead.report)} report yet: <code>${esc(lead.command)}</code> ${esc(lead.what)}.</p>`;
  const h = page.summary;
  const headline = h.headline ?? h.verdict;
  return `<article class="lead" aria-labelledby="r-lead"><h3 id="r-lead"><a href="${href(page.file)}">${esc(h.title)}</a></h3>
<p class="headline">${esc(headline)}</p>
<p class="meta">${esc(whenOf(h))} · ${statusBadge(h.level)}</p>
${h.figures.length === 0 ? '' : `<dl class="figures">${h.figures.map(shownFigure).join('')}</dl>`}</article>`;
}

/** What a verdict rests on first (its first problem, and how many more), in words; none when OK. */
function why(h: ReportSummary): string {
  const first = h.problems[0];
  if (first === undefined) return '';
  const more = h.problems.length > 1 ? ` (+${h.problems.length - 1} more)` : '';
  return `<span class="why">${esc(first)}${more}</span>`;
}

/** Every report's verdict in one row, worst first: a link to its page, its level in words. */
export function verdictRow(pages: ShownPage[]): string {
  if (pages.length === 0)
    return '<p class="none">No HTML report in this folder yet: <code>ohs report all --format html</code>.</p>';
  const cells = worstFirst(pages).map(
    ({ report, file, summary: h }) =>
      `<li class="${h.level}" data-report="${esc(report)}"><a href="${href(file)}">${esc(h.title)}</a><br>${statusBadge(h.level)}${why(h)}</li>`,
  );
  return `<ol class="verdicts">${cells.join('')}</ol>`;
}

/** How long ago an instant was, in the unit a person reads. */
function age(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const h = (now - Date.parse(iso)) / 3_600_000;
  return h * 60 < 1
    ? 'less than a minute ago'
    : h < 1
      ? `${Math.round(h * 60)} min ago`
      : h < 48
        ? `${h.toFixed(1)} h ago`
        : `${(h / 24).toFixed(1)} days ago`;
}

const outcomeLevel = (o: string | null): Level =>
  o === 'ok' ? 'ok' : o === null || o === 'running' ? 'warn' : 'bad';

/** A duration as the freshness line says it: "26 h", "2 days", "90 min". */
function span(ms: number): string {
  const h = ms / 3_600_000;
  if (h < 1) return `${Math.round(ms / 60_000)} min`;
  return h < 48 ? `${Number(h.toFixed(1))} h` : `${Number((h / 24).toFixed(1))} days`;
}

const names = (list: StreamFreshness[]) => {
  const shown = list.slice(0, 3).map((s) => `<code>${esc(s.stream)}</code>`);
  return list.length > 3 ? `${shown.join(', ')} and ${list.length - 3} more` : shown.join(', ');
};

/**
 * The mirror's freshness in one line: Action needed when a stream never synced or its last
 * success is older than `maxAgeMs` (the worst named first), Needs attention when a stream's last
 * run did not end well, else OK naming the oldest stream.
 */
export function freshnessLine(streams: StreamFreshness[], maxAgeMs: number, now: number): string {
  const limit = `stale after ${span(maxAgeMs)}, <code>monitor.maxAge</code>`;
  if (streams.length === 0)
    return `<p class="freshness" id="freshness">${statusBadge('warn')} Mirror: no stream synced yet (<code>ohs sync</code>).</p>`;
  const ageOf = (s: StreamFreshness) =>
    s.last_success_at === null ? Number.POSITIVE_INFINITY : now - Date.parse(s.last_success_at);
  const byAge = [...streams].sort((a, b) => ageOf(b) - ageOf(a) || a.stream.localeCompare(b.stream));
  const never = byAge.filter((s) => s.last_success_at === null);
  const stale = byAge.filter((s) => s.last_success_at !== null && ageOf(s) > maxAgeMs);
  const unwell = byAge.filter((s) => s.last_outcome !== null && !['ok', 'running'].includes(s.last_outcome));
  const oldest = byAge[0] as StreamFreshness;
  let level: Level = 'ok';
  let said: string;
  if (never.length > 0 || stale.length > 0) {
    level = 'bad';
    said = [
      never.length === 0 ? '' : `never synced: ${names(never)}`,
      stale.length === 0
        ? ''
        : `stale: ${names(stale)} (the worst, <code>${esc(stale[0]?.stream)}</code>, last synced ${esc(age(stale[0]?.last_success_at ?? null, now))})`,
    ]
      .filter((x) => x !== '')
      .join('; ');
  } else if (unwell.length > 0) {
    level = 'warn';
    said = `last run not OK: ${unwell
      .slice(0, 3)
      .map((s) => `<code>${esc(s.stream)}</code> ${esc(saidOutcome(s.last_outcome ?? ''))}`)
      .join(', ')}${unwell.length > 3 ? ` and ${unwell.length - 3} more` : ''}`;
  } else
    said = `all ${streams.length} streams fresh; the oldest, <code>${esc(oldest.stream)}</code>, last synced ${esc(age(oldest.last_success_at, now))}`;
  return `<p class="freshness" id="freshness">${statusBadge(level)} Mirror: ${said} (${limit}).</p>`;
}

/** A run's outcome in words; the run writing this page says so (its sync and reports are done). */
const outcomeWords = (j: JobState, writer: number | undefined) =>
  j.outcome === 'running' && j.id === writer
    ? 'running: this page is its last step, its sync and reports done'
    : saidOutcome(j.outcome);

const jobLevel = (j: JobState, writer: number | undefined): Level =>
  j.outcome === 'running' && j.id === writer ? 'ok' : outcomeLevel(j.outcome);

/**
 * The last job run (the highest run id of any job): its outcome in words and when it ended (or
 * started, while it runs). The run writing this page reads OK: it got this far.
 */
export function lastJobLine(jobs: JobState[], now: number, writer?: number): string {
  const last = [...jobs].sort((a, b) => b.id - a.id)[0];
  if (last === undefined) return '<p class="freshness" id="last-job">Last job: none run yet.</p>';
  const level = jobLevel(last, writer);
  const code = last.error_code === null ? '' : ` (<code>${esc(last.error_code)}</code>)`;
  const when =
    last.ended_at === null || last.ended_at === undefined
      ? last.started_at === null || last.started_at === undefined
        ? ''
        : `; started ${esc(last.started_at)} (${esc(age(last.started_at, now))})`
      : `, ended ${esc(last.ended_at)} (${esc(age(last.ended_at, now))})`;
  return `<p class="freshness" id="last-job"><span class="status ${level}"><span class="s ${level}" aria-hidden="true"></span>Last job:</span> ${esc(last.job)} run ${last.id} ${esc(outcomeWords(last, writer))}${code}${when}.</p>`;
}

/** Write-back items waiting for a person, per state (the outbox's counts; render knows no outbox). */
export interface OutboxCounts {
  conflict: number;
  held: number;
  unknown: number;
  failed: number;
}

/**
 * The write-back outbox in one line, when something waits for a person: Action needed for a
 * conflict (a payment sent whose balance read back is not its own effect: paid twice?), Needs
 * attention for held, unknown or failed items; nothing when the outbox waits for no one.
 */
export function outboxLine(c: OutboxCounts | undefined): string {
  if (c === undefined || c.conflict + c.held + c.unknown + c.failed === 0) return '';
  const parts = [
    c.conflict > 0
      ? `${c.conflict} in conflict (sent, but the balance read back is not the payment's own effect: paid twice? <code>ohs outbox --state conflict</code>)`
      : '',
    c.held > 0 ? `${c.held} held` : '',
    c.unknown > 0 ? `${c.unknown} unknown` : '',
    c.failed > 0 ? `${c.failed} failed` : '',
  ].filter((p) => p !== '');
  const level: Level = c.conflict > 0 ? 'bad' : 'warn';
  return `\n<p class="freshness" id="outbox">${statusBadge(level)} Write-back: ${parts.join(', ')} (<code>ohs outbox</code>).</p>`;
}

/** A report's card below the first screen: its verdict, problems and figures. */
export function reportCard({ file, summary: h }: ShownPage, i: number): string {
  return `<article aria-labelledby="r${i}"><h3 id="r${i}"><a href="${href(file)}">${esc(h.title)}</a></h3>
<p class="meta">${esc(whenOf(h))} · ${statusBadge(h.level)}</p>
${problemList(h.problems)}
<dl class="figures">${h.figures.map(shownFigure).join('')}</dl></article>`;
}

/** The streams table: rows, last success, age and last outcome in words (stale: past maxAge). */
export function streamRows(streams: StreamFreshness[], maxAgeMs: number, now: number): string {
  return streams
    .map((s) => {
      const stale = s.last_success_at === null || now - Date.parse(s.last_success_at) > maxAgeMs;
      const level: Level = stale ? 'bad' : outcomeLevel(s.last_outcome);
      return `<tr><th scope="row">${esc(s.stream)}</th><td class="n">${s.rows}</td><td>${esc(s.last_success_at ?? 'never')}</td><td>${esc(age(s.last_success_at, now))}</td><td class="${level}"><span class="s" aria-hidden="true"></span>${esc(s.last_outcome === null ? 'never run' : saidOutcome(s.last_outcome))}${stale ? ' (stale)' : ''}</td></tr>`;
    })
    .join('\n');
}

/** The jobs table: each job's last run, its outcome in words, its error code as it is. */
export function jobRows(jobs: JobState[], writer?: number): string {
  const rows = jobs
    .map(
      (j) =>
        `<tr><th scope="row">${esc(j.job)}</th><td class="n">${j.id}</td><td class="${jobLevel(j, writer)}"><span class="s" aria-hidden="true"></span>${esc(outcomeWords(j, writer))}</td><td>${esc(j.error_code ?? '')}</td><td>${esc(j.ended_at ?? '')}</td></tr>`,
    )
    .join('\n');
  return rows === '' ? '<tr><td colspan="5">No job run yet.</td></tr>' : rows;
}
