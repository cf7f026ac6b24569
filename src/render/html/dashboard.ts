import { access, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { instantsInWords, instantWords } from '../../dates.js';
import { writeFileSafely } from '../../util/safe-file.js';
import { readSummaryChecked } from '../report-summary.js';
import type { CodeWords } from '../types.js';
import {
  freshnessLine,
  type JobState,
  jobRows,
  type LeadReport,
  lastJobLine,
  leadCard,
  type OutboxCounts,
  outboxLine,
  reportCard,
  type ShownPage,
  type StreamFreshness,
  streamRows,
  verdictRow,
  worstFirst,
} from './dashboard-screen.js';
import { esc } from './escape.js';
import { pageShell } from './page.js';
import { inWords, labelOf } from './words.js';

export type { JobState, LeadReport, StreamFreshness } from './dashboard-screen.js';

/**
 * A report's verdict file beside its page: `NAME-ASOF[-at-INSTANT].summary.json`, or for a
 * report named by its period `NAME-FROM-TO.summary.json` (each end a date or a UTC instant).
 */
const verdictFile = /^(.+)-(\d{4}-\d{2}-\d{2})(?:-at-(\d{8}T\d{6}Z))?\.summary\.json$/;
const END = '(\\d{4}-\\d{2}-\\d{2}|\\d{8}T\\d{6}(?:\\.\\d{3})?Z)';
const periodFile = new RegExp(`^(.+?)-${END}-${END}\\.summary\\.json$`);

/** A page's verdict with its codes said in its report's words (problems, figures, headline). */
function pageInWords(page: ShownPage, words: CodeWords): ShownPage {
  const h = page.summary;
  return {
    ...page,
    summary: {
      ...h,
      problems: h.problems.map((p) => inWords(p, words)),
      figures: h.figures.map((f) => ({
        ...f,
        label: labelOf(f.label, words),
        ...(f.note === undefined ? {} : { note: inWords(f.note, words) }),
      })),
      ...(h.headline === undefined ? {} : { headline: inWords(h.headline, words) }),
    },
  };
}

/** A file's report name and its sort key (newest last), or null when it is no verdict file. */
function verdictOf(name: string): { report: string; key: string } | null {
  const period = periodFile.exec(name);
  // The period's end orders the pages (a date's end before an instant of the same day).
  if (period !== null) return { report: period[1] ?? '', key: endKey(period[3] ?? '') };
  const m = verdictFile.exec(name);
  return m === null ? null : { report: m[1] ?? '', key: `${m[2] ?? ''} ${m[3] ?? ''}` };
}

const endKey = (end: string) => (end.includes('T') ? end : `${end.replace(/-/g, '')}T000000Z`);

/** A verdict file the dashboard could not read: its name and why, one line. */
export interface UnreadableVerdict {
  file: string;
  problem: string;
}

/**
 * The newest page of each report in `dir` (by as-of date, then instant, then modification time),
 * with its verdict: the JSON file written with the page (writeReport), the object the page itself
 * shows, never a second reading of the page. A verdict file that is not one (bad JSON, a field
 * missing or null) is named in `unreadable` and the others go on.
 */
async function latestPages(dir: string): Promise<{ pages: ShownPage[]; unreadable: UnreadableVerdict[] }> {
  const best = new Map<string, { stem: string; key: string; mtime: number }>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = verdictOf(name);
    if (m === null) continue;
    const stem = name.slice(0, -'.summary.json'.length);
    const mtime = await stat(join(dir, name)).then(
      (s) => s.mtimeMs,
      () => 0,
    );
    const prev = best.get(m.report);
    const { key } = m;
    if (prev === undefined || key > prev.key || (key === prev.key && mtime > prev.mtime))
      best.set(m.report, { stem, key, mtime });
  }
  const pages: ShownPage[] = [];
  const unreadable: UnreadableVerdict[] = [];
  for (const [report, { stem }] of [...best.entries()].sort((a, b) => a[1].stem.localeCompare(b[1].stem))) {
    const file = `${stem}.html`;
    const present = await access(join(dir, file)).then(
      () => true,
      () => false,
    );
    const read = await readSummaryChecked(join(dir, `${stem}.summary.json`));
    if (read.summary === undefined) unreadable.push({ file: `${stem}.summary.json`, problem: read.problem });
    else if (present) pages.push({ report, file, summary: read.summary });
  }
  return { pages, unreadable };
}

/**
 * `index.html` of a report folder (docs/html-reports.md "The dashboard"), read in one screen at
 * 1280×800: what changed since the last run (the newest page of `state.lead`, its card), every report's
 * verdict in one row worst first, each a link to its page, and the mirror's freshness and the last
 * job; below, each report's card (worst first), the streams and the jobs. Same rules as the pages:
 * no script, no request out, every value escaped. Written beside and renamed over.
 */
export async function writeDashboard(
  dir: string,
  state: {
    mirror: string;
    streams: StreamFreshness[];
    jobs: JobState[];
    maxAgeMs: number;
    /** The job run whose last step this page is (the nightly job's), still `running` as it writes it. */
    writer?: number;
    /** Write-back items waiting for a person (a conflict first). */
    outbox?: OutboxCounts;
    /** The report whose card opens the page (what changed since the last run). */
    lead: LeadReport;
    /**
     * A report's words for its codes (its declaration's): a verdict file written before its
     * report said its codes in words is shown in words all the same.
     */
    words?: (report: string) => CodeWords;
    /** The reporting time zone: instants are said to the second in it, the zone named. */
    timezone?: string;
  },
  now = Date.now(),
): Promise<{ file: string; unreadable: UnreadableVerdict[] }> {
  const zone = state.timezone ?? 'UTC';
  const read = await latestPages(dir);
  const { unreadable } = read;
  const words = state.words;
  const pages = words === undefined ? read.pages : read.pages.map((p) => pageInWords(p, words(p.report)));
  const lead = pages.find((p) => p.report === state.lead.report);
  const others = worstFirst(pages.filter((p) => p !== lead));
  const notShown =
    unreadable.length === 0
      ? ''
      : `\n<p class="bad">Not shown, their verdict file unreadable: ${unreadable.map((u) => `<code>${esc(u.file)}</code> (${esc(u.problem)})`).join('; ')}. Run the report again.</p>`;
  const cards =
    others.length === 0 && unreadable.length === 0
      ? '<p>No other report in this folder yet: <code>ohs report all --format html</code>.</p>'
      : others.map((p, i) => reportCard(p, i)).join('\n');
  const body = `<header><h1>OHS mirror: what needs attention</h1><p class="meta">${esc(state.mirror)} · this page written ${esc(instantWords(now, zone))}</p></header>
<main>
<section aria-labelledby="lead" class="first"><h2 id="lead">Since the last run</h2>
${leadCard(lead, state.lead)}
</section>
<section aria-labelledby="verdicts" class="first"><h2 id="verdicts">Every report's verdict, worst first</h2>
${verdictRow(pages)}${notShown}
</section>
<section aria-labelledby="fresh" class="first"><h2 id="fresh">Freshness</h2>
${freshnessLine(state.streams, state.maxAgeMs, now)}
${lastJobLine(state.jobs, now, state.writer)}${outboxLine(state.outbox)}
</section>
<section aria-labelledby="reports"><h2 id="reports">Each report in detail</h2>
${cards}
</section>
<section aria-labelledby="streams"><h2 id="streams">Streams</h2><div class="scroll"><table id="table-streams"><caption>Each stream's last complete sync (stale: older than ${Math.round(state.maxAgeMs / 3_600_000)} h)</caption>
<thead><tr><th scope="col">Stream</th><th scope="col" class="n">Rows</th><th scope="col">Last success</th><th scope="col">Age</th><th scope="col">Last outcome</th></tr></thead><tbody>
${streamRows(state.streams, state.maxAgeMs, now)}
</tbody></table></div></section>
<section aria-labelledby="jobs"><h2 id="jobs">Jobs</h2><div class="scroll"><table id="table-jobs"><caption>The last run of each job</caption>
<thead><tr><th scope="col">Job</th><th scope="col" class="n">Run</th><th scope="col">Outcome</th><th scope="col">Error code</th><th scope="col">Ended</th></tr></thead><tbody>
${jobRows(state.jobs, state.writer)}
</tbody></table></div></section>
</main>`;
  const file = join(dir, 'index.html');
  // Every instant it shows (a sync's, a job's, a report's period) to the second, the zone named.
  await writeFileSafely(
    file,
    pageShell('OHS mirror: what needs attention', instantsInWords(body, zone)),
    0o600,
  );
  return { file, unreadable };
}
