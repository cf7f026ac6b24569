import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_LEAD as lead, reportWords as words } from '../../src/app/dashboard.js';
import { type StreamFreshness, writeDashboard } from '../../src/render/html/dashboard.js';
import type { PageSummary } from '../../src/render/html/summary.js';
import { writeReport } from '../../src/render/index.js';
import { reportSummary } from '../../src/render/report-summary.js';
import { reportByName } from '../../src/reports/index.js';
import { defaults } from '../helpers/defaults.js';
import { outDir, report } from './fixtures.js';

const NOW = Date.parse('2026-06-15T12:00:00Z');
const HOUR = 3_600_000;
const ago = (h: number) => new Date(NOW - h * HOUR).toISOString();

/** A report's files written through the real writer (page, verdict file), its verdict built from `page`. */
async function write(
  dir: string,
  name: string,
  title: string,
  page: PageSummary,
  period?: { fileName: string; covers: string },
) {
  await writeReport(
    { ...report(), ...(period ?? {}) },
    {
      outDir: dir,
      name,
      title,
      asOf: '2026-06-15',
      csv: defaults.reports.csv,
      formats: ['html'],
      html: () => ({ onRow: () => undefined, build: () => page }),
      // The report's own words, as writeReports hands them (the dashboard shows the verdict file).
      words: reportByName(name)?.words ?? {},
    },
  );
}

const page = (status: PageSummary['status'], extra: Partial<PageSummary> = {}): PageSummary => ({
  status,
  figures: [{ label: 'Rows', value: '3' }],
  charts: [],
  ...extra,
});

const fresh: StreamFreshness[] = [
  { stream: 'invoice', rows: 10, last_success_at: ago(2), last_outcome: 'ok' },
  { stream: 'org', rows: 3, last_success_at: ago(5), last_outcome: 'ok' },
];

/** The text of the page with its tags dropped and entities read back. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');

/**
 * The dashboard read in one screen: the changes card first, every report's verdict in one row
 * worst first (each a link), the mirror's freshness and the last job, then the details; codes
 * said in words. Verdict files written by the real writer (writeReport); the mirror's state is
 * the function's input here (the browser test reads it from a real mirror on each engine).
 */
describe('the dashboard, first screen', () => {
  it('opens with the changes card, then every verdict worst first, then freshness; details below', async () => {
    const dir = outDir();
    await write(
      dir,
      'ar-rollforward',
      'A/R roll-forward',
      page('warn', { problems: ['the period is shortened'] }),
      {
        fileName: '20260601T000000Z-20260615T000000Z',
        covers: 'from 2026-06-01 00:00 to 2026-06-15 00:00 (UTC)',
      },
    );
    await write(dir, 'unpaid-invoices', 'Unpaid invoices', page('bad', { problems: ['51% over 60 days'] }));
    await write(dir, 'order-ageing', 'Order status ageing', page('ok'));
    await write(
      dir,
      'accounts-at-risk',
      'Accounts at risk',
      page('bad', {
        problems: ['249 STOPPED_TESTING (all on an assumed rate)'],
        figures: [{ label: 'STOPPED_TESTING', value: '249', note: 'all on an assumed rate' }],
      }),
    );
    await write(dir, 'compliance', 'Compliance', page('warn', { problems: ['Drug: at risk 3'] }));
    await write(
      dir,
      'changes',
      'What changed',
      page('bad', {
        headline: 'since the last run: 3 employers fell behind, 2 AT_RISK, 4 orders stuck',
        figures: [
          { label: 'Employers fell behind', value: '3' },
          { label: 'Orders newly stuck', value: '4' },
        ],
      }),
      {
        fileName: '20260614T020000Z-20260615T020000Z',
        covers: 'from 2026-06-14 02:00 to 2026-06-15 02:00 (UTC)',
      },
    );
    const jobs = [
      { job: 'nightly', id: 7, outcome: 'ok', error_code: null, ended_at: ago(1) },
      { job: 'writeback', id: 3, outcome: 'failed', error_code: 'WRITEBACK_HELD', ended_at: ago(30) },
    ];
    await writeDashboard(
      dir,
      { mirror: 'sqlite mirror of the sandbox', streams: fresh, jobs, maxAgeMs: 26 * HOUR, lead },
      NOW,
    );
    const html = readFileSync(join(dir, 'index.html'), 'utf8');

    // In this order: the changes card, the verdict row, freshness, then each report's card.
    const at = (s: string) => {
      const i = html.indexOf(s);
      expect(i, s).toBeGreaterThan(-1);
      return i;
    };
    const changes = at('class="lead"');
    const row = at('<ol class="verdicts">');
    const freshness = at('id="freshness"');
    const details = at('id="reports"');
    expect(changes).toBeLessThan(row);
    expect(row).toBeLessThan(freshness);
    expect(freshness).toBeLessThan(details);

    // The changes card: its headline in words, its period, badge, figures and a link to its page.
    const card = html.slice(changes, row);
    expect(text(card)).toContain('since the last run: 3 employers fell behind, 2 at risk, 4 orders stuck');
    expect(card).toContain('href="changes-20260614T020000Z-20260615T020000Z.html"');
    expect(text(card)).toContain('From 2026-06-14 02:00 to 2026-06-15 02:00 (UTC)');
    expect(card).toContain('<span class="status bad">');
    expect(card).toContain('<dt>Employers fell behind</dt><dd>3</dd>');
    expect(html).not.toContain('No changes report yet');

    // One row, worst first (Action needed, Needs attention, OK), then by title; each links its page.
    const cells = [
      ...html.slice(row, freshness).matchAll(/<li class="(\w+)" data-report="([^"]+)"><a href="([^"]+)">/g),
    ];
    expect(cells.map((c) => [c[1], c[2]])).toEqual([
      ['bad', 'accounts-at-risk'],
      ['bad', 'unpaid-invoices'],
      ['bad', 'changes'],
      ['warn', 'ar-rollforward'],
      ['warn', 'compliance'],
      ['ok', 'order-ageing'],
    ]);
    for (const c of cells) expect(c[3]).toMatch(new RegExp(`^${c[2]}-.*\\.html$`));
    expect(text(html.slice(row, freshness))).toContain(
      'Action needed249 stopped testing (all on an assumed rate)',
    );

    // Freshness: every stream fresh, the oldest named; the last job (highest run) in words.
    const fresh_ = text(html.slice(freshness, details));
    expect(fresh_).toContain(
      'OK Mirror: all 2 streams fresh; the oldest, org, last synced 5.0 h ago (stale after 26 h',
    );
    expect(fresh_).toContain('Last job: nightly run 7 OK, ended');

    // The details: worst first too, the changes report not twice; codes in words everywhere.
    const below = html.slice(details);
    expect(
      [...below.matchAll(/<article aria-labelledby="r\d+"><h3 id="r\d+"><a href="([a-z-]+)-/g)].map(
        (m) => m[1],
      ),
    ).toEqual(['accounts-at-risk', 'unpaid-invoices', 'ar-rollforward', 'compliance', 'order-ageing']);
    expect(html).toContain(
      '<dt>Stopped testing</dt><dd>249</dd><dd class="qualifier">all on an assumed rate</dd>',
    );
    expect(html).not.toMatch(/STOPPED_TESTING|AT_RISK/);
    // The verdict file itself says it in words (the command's line and the page read it).
    const verdict = JSON.parse(readFileSync(join(dir, 'accounts-at-risk-2026-06-15.summary.json'), 'utf8'));
    expect(verdict.problems).toEqual(['249 stopped testing (all on an assumed rate)']);
    expect(verdict.figures[0]).toEqual({
      label: 'Stopped testing',
      value: '249',
      note: 'all on an assumed rate',
    });
  });

  it('without a changes report says how to get one; names the stale and never-synced streams and a failed last job', async () => {
    const dir = outDir();
    await write(dir, 'order-ageing', 'Order status ageing', page('ok'));
    // A verdict file written before words were said (codes in its labels) is shown in words too.
    const old = reportSummary(
      { name: 'accounts-at-risk', title: 'Accounts at risk', asOf: '2026-06-15' },
      undefined,
      1,
      0,
    );
    writeFileSync(join(dir, 'accounts-at-risk-2026-06-15.html'), '<!doctype html><title>page</title>');
    writeFileSync(
      join(dir, 'accounts-at-risk-2026-06-15.summary.json'),
      JSON.stringify({
        ...old,
        level: 'bad',
        problems: ['2 TESTING_UNPAID'],
        figures: [{ label: 'TESTING_UNPAID', value: '2' }],
      }),
    );
    const streams: StreamFreshness[] = [
      ...fresh,
      { stream: 'order_item', rows: 9, last_success_at: ago(40), last_outcome: 'ok' },
      { stream: 'applicant', rows: 0, last_success_at: null, last_outcome: null },
    ];
    const jobs = [
      {
        job: 'nightly',
        id: 9,
        outcome: 'interrupted',
        error_code: 'KILLED',
        ended_at: null,
        started_at: ago(3),
      },
    ];
    await writeDashboard(dir, { mirror: 'm', streams, jobs, maxAgeMs: 26 * HOUR, lead, words }, NOW);
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(text(html)).toContain(
      'No changes report yet: ohs report changes --format html writes one (what changed since the last nightly run)',
    );
    expect(html.indexOf('id="no-lead"')).toBeLessThan(html.indexOf('<ol class="verdicts">'));
    const line = text(/<p class="freshness" id="freshness">.*?<\/p>/s.exec(html)?.[0] ?? '');
    expect(line).toBe(
      'Action needed Mirror: never synced: applicant; stale: order_item (the worst, order_item, last synced 40.0 h ago) (stale after 26 h, monitor.maxAge).',
    );
    expect(text(/<p class="freshness" id="last-job">.*?<\/p>/s.exec(html)?.[0] ?? '')).toBe(
      // The instant to the second, the zone named (the mirror holds it in ISO 8601, milliseconds too).
      `Last job: nightly run 9 interrupted (KILLED); started ${ago(3).slice(0, 10)} ${ago(3).slice(11, 19)} UTC (3.0 h ago).`,
    );
    expect(html).toContain('<dt>Testing unpaid</dt><dd>2</dd>');
    expect(text(html)).toContain('2 testing unpaid');
    expect(html).not.toContain('TESTING_UNPAID');
    expect([...html.matchAll(/data-report="([^"]+)"/g)].map((m) => m[1])).toEqual([
      'accounts-at-risk',
      'order-ageing',
    ]);
  });

  it('a mirror whose streams never ran and no job: says so, never OK', async () => {
    const dir = outDir();
    await writeDashboard(dir, { mirror: 'm', streams: [], jobs: [], maxAgeMs: HOUR, lead }, NOW);
    const html = readFileSync(join(dir, 'index.html'), 'utf8');
    expect(text(html)).toContain('Needs attention Mirror: no stream synced yet (ohs sync).');
    expect(text(html)).toContain('Last job: none run yet.');
    expect(text(html)).toContain('No HTML report in this folder yet');
  });
});
