import { access, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileSafely } from '../../util/safe-file.js';
import { readSummaryChecked } from '../report-summary.js';
import { esc } from './escape.js';
import { pageShell, statusBadge } from './page.js';
import { figureHtml, type Level, type ReportSummary, whenOf } from './summary.js';

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
  ended_at?: string | null;
}

/**
 * A report's verdict file beside its page: `NAME-ASOF[-at-INSTANT].summary.json`, or for a
 * report named by its period `NAME-FROM-TO.summary.json` (each end a date or a UTC instant).
 */
const verdictFile = /^(.+)-(\d{4}-\d{2}-\d{2})(?:-at-(\d{8}T\d{6}Z))?\.summary\.json$/;
const END = '(\\d{4}-\\d{2}-\\d{2}|\\d{8}T\\d{6}(?:\\.\\d{3})?Z)';
const periodFile = new RegExp(`^(.+?)-${END}-${END}\\.summary\\.json$`);

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
export async function latestPages(
  dir: string,
): Promise<{ pages: { file: string; summary: ReportSummary }[]; unreadable: UnreadableVerdict[] }> {
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
  const pages: { file: string; summary: ReportSummary }[] = [];
  const unreadable: UnreadableVerdict[] = [];
  for (const { stem } of [...best.values()].sort((a, b) => a.stem.localeCompare(b.stem))) {
    const file = `${stem}.html`;
    const present = await access(join(dir, file)).then(
      () => true,
      () => false,
    );
    const read = await readSummaryChecked(join(dir, `${stem}.summary.json`));
    if (read.summary === undefined) unreadable.push({ file: `${stem}.summary.json`, problem: read.problem });
    else if (present) pages.push({ file, summary: read.summary });
  }
  return { pages, unreadable };
}

function age(iso: string | null, now: number): string {
  if (iso === null) return 'never';
  const h = (now - Date.parse(iso)) / 3_600_000;
  return h < 1
    ? `${Math.round(h * 60)} min ago`
    : h < 48
      ? `${h.toFixed(1)} h ago`
      : `${(h / 24).toFixed(1)} days ago`;
}

const outcomeLevel = (o: string | null): Level =>
  o === 'ok' ? 'ok' : o === null || o === 'running' ? 'warn' : 'bad';

/**
 * `index.html` of a report folder: each report's headline figures and status with a link to its
 * page, each stream's freshness and last outcome, the last run of each job. Same rules as the
 * pages: no script, no request out, every value escaped. Written beside and renamed over.
 */
export async function writeDashboard(
  dir: string,
  state: { mirror: string; streams: StreamFreshness[]; jobs: JobState[]; maxAgeMs: number },
  now = Date.now(),
): Promise<{ file: string; unreadable: UnreadableVerdict[] }> {
  const { pages, unreadable } = await latestPages(dir);
  const notShown =
    unreadable.length === 0
      ? ''
      : `\n<p class="bad">Not shown, their verdict file unreadable: ${unreadable.map((u) => `<code>${esc(u.file)}</code> (${esc(u.problem)})`).join('; ')}. Run the report again.</p>`;
  const reports =
    (pages.length === 0 && unreadable.length === 0
      ? '<p>No HTML report in this folder yet: <code>ohs report all --format html</code>.</p>'
      : pages
          .map(
            (
              { file, summary: h },
              i,
            ) => `<article aria-labelledby="r${i}"><h3 id="r${i}"><a href="${esc(encodeURIComponent(file))}">${esc(h.title)}</a></h3>
<p class="meta">${esc(whenOf(h))} · ${statusBadge(h.level)}</p>
${h.problems.length === 0 ? '' : `<ul class="verdict">${h.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>`}
<dl class="figures">${h.figures.map((f) => figureHtml(f, esc)).join('')}</dl></article>`,
          )
          .join('\n')) + notShown;
  const streams = state.streams
    .map((s) => {
      const stale = s.last_success_at === null || now - Date.parse(s.last_success_at) > state.maxAgeMs;
      const level: Level = stale ? 'bad' : outcomeLevel(s.last_outcome);
      return `<tr><th scope="row">${esc(s.stream)}</th><td class="n">${s.rows}</td><td>${esc(s.last_success_at ?? 'never')}</td><td>${esc(age(s.last_success_at, now))}</td><td class="${level}"><span class="s" aria-hidden="true"></span>${esc(s.last_outcome ?? 'never run')}${stale ? ' (stale)' : ''}</td></tr>`;
    })
    .join('\n');
  const jobs = state.jobs
    .map(
      (j) =>
        `<tr><th scope="row">${esc(j.job)}</th><td class="n">${j.id}</td><td class="${outcomeLevel(j.outcome)}"><span class="s" aria-hidden="true"></span>${esc(j.outcome)}</td><td>${esc(j.error_code ?? '')}</td><td>${esc(j.ended_at ?? '')}</td></tr>`,
    )
    .join('\n');
  const body = `<header><h1>OHS mirror: reports and freshness</h1><p class="meta">Mirror ${esc(state.mirror)} · written ${esc(new Date(now).toISOString().slice(0, 19))}Z</p></header>
<main>
<section aria-labelledby="reports"><h2 id="reports">Reports</h2>
${reports}
</section>
<section aria-labelledby="streams"><h2 id="streams">Streams</h2><div class="scroll"><table id="table-streams"><caption>Each stream's last complete sync (stale: older than ${Math.round(state.maxAgeMs / 3_600_000)} h)</caption>
<thead><tr><th scope="col">Stream</th><th scope="col" class="n">Rows</th><th scope="col">Last success</th><th scope="col">Age</th><th scope="col">Last outcome</th></tr></thead><tbody>
${streams}
</tbody></table></div></section>
<section aria-labelledby="jobs"><h2 id="jobs">Jobs</h2><div class="scroll"><table id="table-jobs"><caption>The last run of each job</caption>
<thead><tr><th scope="col">Job</th><th scope="col" class="n">Run</th><th scope="col">Outcome</th><th scope="col">Error code</th><th scope="col">Ended</th></tr></thead><tbody>
${jobs === '' ? '<tr><td colspan="5">No job run yet.</td></tr>' : jobs}
</tbody></table></div></section>
</main>`;
  const file = join(dir, 'index.html');
  await writeFileSafely(file, pageShell('OHS mirror: reports and freshness', body), 0o600);
  return { file, unreadable };
}
