import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { levelText, type ReportSummary } from '../../src/render/html/summary.js';
import { writeReport } from '../../src/render/index.js';
import { runOhs } from '../helpers/cli.js';
import { defaults } from '../helpers/defaults.js';
import { engines, withTargets } from '../helpers/engines.js';
import { ID_START } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { report } from './fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/html/', import.meta.url));
const noBrowser = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`;
const describeBrowsers =
  noBrowser === undefined || process.env.CI ? describe.each(engines) : describe.skip.each(engines);

/** What the first screen shows, measured in the page (a string: the test has no DOM types). */
const FIRST_SCREEN = `(() => {
  const box = (e) => {
    if (e === null) return null;
    const r = e.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, text: (e.innerText ?? '').trim() };
  };
  const cells = [...document.querySelectorAll('ol.verdicts > li')].map((li) => ({
    report: li.dataset.report,
    level: li.className,
    href: li.querySelector('a')?.getAttribute('href') ?? '',
    ...box(li),
  }));
  const sections = [...document.querySelectorAll('section.first')].map((s) => s.innerText);
  return {
    cells,
    changes: box(document.querySelector('.lead .headline')),
    noChanges: box(document.getElementById('no-lead')),
    freshness: box(document.getElementById('freshness')),
    lastJob: box(document.getElementById('last-job')),
    first: sections.join('\\n'),
    scrollWidth: document.documentElement.scrollWidth,
  };
})()`;

interface Box {
  top: number;
  bottom: number;
  text: string;
}
interface Screen {
  cells: (Box & { report: string; level: string; href: string })[];
  changes: Box | null;
  noChanges: Box | null;
  freshness: Box | null;
  lastJob: Box | null;
  first: string;
  scrollWidth: number;
}

const rank = { bad: 0, warn: 1, ok: 2 } as const;

/**
 * The dashboard the real nightly job writes, read in one screen: opened in Debian's Chromium at
 * 1280×800, its first 800 px hold every report's verdict (one row, worst first, each a link to
 * its page, its level in words), the changes card (its headline when a changes report is in the
 * folder, else the line saying how to get one), the mirror's freshness and the last job; no code
 * where a person reads words; no console error. On each engine (the dashboard reads the mirror's
 * streams and jobs). Screenshots in test-artifacts/html/ (gitignored).
 */
describeBrowsers(
  `%s: the dashboard's first screen in headless Chromium${noBrowser === undefined ? '' : ` (skipped: ${noBrowser})`}`,
  { timeout: 400_000 },
  (engine) => {
    const sim = withSim({ scale: 0.02 });
    const target = withTargets(engine);
    let dir = '';
    let out = '';
    let browser: Browser;
    const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ohs-dash-'));
      mkdirSync(join(dir, 'config'));
      writeFileSync(
        join(dir, 'config', 'local.json'),
        JSON.stringify({
          baseUrl: sim().url,
          db: await target(),
          api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200 },
          sync: { idStart: { ...ID_START } },
          jobs: { outDir: 'out', formats: ['html', 'csv'] },
        }),
      );
      out = join(dir, 'out');
      const run = await runOhs(['run', 'nightly'], { cwd: dir, env, timeoutMs: 300_000 });
      expect(run.code, run.stderr).toBe(0);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-sync'],
      });
    }, 360_000);
    afterAll(async () => {
      await browser?.close();
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });

    /** Opens the dashboard at 1280×800, checks its first screen against the folder's verdict files. */
    async function firstScreen(shot: string, lastJob: RegExp): Promise<void> {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      try {
        await page.goto(pathToFileURL(join(out, 'index.html')).href, { waitUntil: 'load' });
        const s = (await page.evaluate(FIRST_SCREEN)) as Screen;
        mkdirSync(ARTIFACTS, { recursive: true });
        await page.screenshot({ path: join(ARTIFACTS, `${engine}-dashboard-${shot}.png`) });
        expect(problems).toEqual([]);
        expect(s.scrollWidth).toBeLessThanOrEqual(1280);
        // Every report's verdict file in the folder has its cell, in view, in one row, worst first.
        const verdicts = readdirSync(out)
          .filter((f) => f.endsWith('.summary.json'))
          .map((f) => ({
            file: f.replace(/\.summary\.json$/, '.html'),
            v: JSON.parse(readFileSync(join(out, f), 'utf8')) as ReportSummary,
          }));
        expect(verdicts.length).toBeGreaterThanOrEqual(6);
        expect(s.cells.map((c) => c.report).sort()).toEqual(verdicts.map((x) => x.v.report).sort());
        for (const { file, v } of verdicts) {
          const cell = s.cells.find((c) => c.report === v.report);
          expect(cell?.href, v.report).toBe(file);
          expect(cell?.level).toBe(v.level);
          expect(cell?.text).toContain(levelText[v.level]);
          expect(cell?.bottom, `${v.report} in the first 800 px`).toBeLessThanOrEqual(800);
        }
        expect(new Set(s.cells.map((c) => Math.round(c.top))).size, 'one row').toBe(1);
        const levels = s.cells.map((c) => rank[c.level as keyof typeof rank]);
        expect(levels).toEqual([...levels].sort((a, b) => a - b));
        // The changes card: its headline when a changes report is in the folder, else how to get one.
        const changes = verdicts.find((x) => x.v.report === 'changes');
        if (changes !== undefined) {
          expect(s.changes?.text).toBe(changes.v.headline ?? changes.v.verdict);
          expect(s.changes?.bottom).toBeLessThanOrEqual(800);
        } else {
          expect(s.noChanges?.text).toMatch(/^No changes report yet: ohs report changes/);
          expect(s.noChanges?.bottom).toBeLessThanOrEqual(800);
        }
        // The mirror's freshness and the last job, in view.
        expect(s.freshness?.text).toMatch(/^(OK|Needs attention|Action needed) Mirror: /);
        expect(s.freshness?.bottom).toBeLessThanOrEqual(800);
        expect(s.lastJob?.text).toMatch(lastJob);
        expect(s.lastJob?.bottom).toBeLessThanOrEqual(800);
        // Words where a person reads: no code such as STOPPED_TESTING on the first screen.
        expect(s.first).not.toMatch(/\b[A-Z]+_[A-Z_]+\b/);
      } finally {
        await page.close();
      }
    }

    it('after the nightly job: every verdict, the changes card or its line, freshness and the last job in the first 800 px', async () => {
      expect(existsSync(join(out, 'index.html'))).toBe(true);
      // Written by the nightly job as its last step, its own run still running, and said so.
      await firstScreen(
        'nightly',
        /^Last job: nightly run 1 running: this page is its last step, its sync and reports done; started /,
      );
    });

    it('with a changes report in the folder (written by the real writer when the nightly job wrote none): its headline in view too', async () => {
      if (!readdirSync(out).some((f) => /^changes-.*\.summary\.json$/.test(f)))
        await writeReport(
          {
            ...report(),
            fileName: '20260614T020000Z-20260615T020000Z',
            covers: 'from 2026-06-14 02:00 to 2026-06-15 02:00 (UTC)',
          },
          {
            outDir: out,
            name: 'changes',
            title: 'What changed',
            asOf: '2026-06-15',
            csv: defaults.reports.csv,
            formats: ['html'],
            html: () => ({
              onRow: () => undefined,
              build: () => ({
                status: 'bad',
                headline:
                  'Since the last run: 3 employers fell behind, 12 invoices passed 90 days, 4 orders stuck',
                problems: ['3 employers fell behind (ON_TRACK → BEHIND)'],
                figures: [
                  'Fell behind',
                  'Recovered',
                  'Passed 60 days',
                  'Passed 90 days',
                  'Paid',
                  'Newly stuck',
                  'Completed',
                  'Deleted upstream',
                ].map((label, i) => ({ label, value: String(i * 3) })),
                charts: [],
              }),
            }),
          },
        );
      const dash = await runOhs(['dashboard'], { cwd: dir, env });
      expect(dash.code, dash.stderr).toBe(0);
      // Written by `ohs dashboard` after the job ended.
      await firstScreen(
        'with-changes',
        /^Last job: nightly run 1 OK, ended \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((\d+ min|less than a minute) ago\)\.$/,
      );
    });
  },
);
