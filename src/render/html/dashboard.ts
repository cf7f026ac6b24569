import { access, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileSafely } from '../../util/safe-file.js';
import { readSummaryFile } from '../report-summary.js';
import { esc } from './escape.js';
import { pageShell, statusBadge } from './page.js';
import { figureHtml, type Level, type ReportSummary } from './summary.js';

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

/** A report's verdict file beside its page: `NAME-ASOF[-at-INSTANT].summary.json`. */
const verdictFile = /^(.+)-(\d{4}-\d{2}-\d{2})(?:-at-(\d{8}T\d{6}Z))?\.summary\.json$/;

/**
 * The newest page of each report in `dir` (by as-of date, then instant, then modification time),
 * with its verdict: the JSON file written with the page (writeReport), the object the page itself
 * shows, never a second reading of the page.
 */
export async function latestPages(dir: string): Promise<{ file: string; summary: ReportSummary }[]> {
  const best = new Map<string, { stem: string; key: string; mtime: number }>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const m = verdictFile.exec(name);
    if (m === null) continue;
    const stem = name.slice(0, -'.summary.json'.length);
    const mtime = (await stat(join(dir, name))).mtimeMs;
    const prev = best.get(m[1] ?? '');
    const key = `${m[2] ?? ''} ${m[3] ?? ''}`;
    if (prev === undefined || key > prev.key || (key === prev.key && mtime > prev.mtime))
      best.set(m[1] ?? '', { stem, key, mtime });
  }
  const out: { file: string; summary: ReportSummary }[] = [];
  for (const { stem } of [...best.values()].sort((a, b) => a.stem.localeCompare(b.stem))) {
    const file = `${stem}.html`;
    const present = await access(join(dir, file)).then(
      () => true,
      () => false,
    );
    const summary = await readSummaryFile(join(dir, `${stem}.summary.json`));
    if (present && summary !== undefined) out.push({ file, summary });
  }
  return out;
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
): Promise<string> {
  const pages = await latestPages(dir);
  const reports =
    pages.length === 0
      ? '<p>No HTML report in this folder yet: <code>ohs report all --format html</code>.</p>'
      : pages
          .map(
            (
              { file, summary: h },
              i,
            ) => `<article aria-labelledby="r${i}"><h3 id="r${i}"><a href="${esc(encodeURIComponent(file))}">${esc(h.title)}</a></h3>
<p class="meta">As of ${esc(h.instant ?? h.asOf)} · ${statusBadge(h.level)}</p>
${h.problems.length === 0 ? '' : `<ul class="verdict">${h.problems.map((p) => `<li>${esc(p)}</li>`).join('')}</ul>`}
<dl class="figures">${h.figures.map((f) => figureHtml(f, esc)).join('')}</dl></article>`,
          )
          .join('\n');
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
  return file;
}
