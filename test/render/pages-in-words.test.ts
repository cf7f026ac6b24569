import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reports } from '../../src/reports/index.js';
import { defaultStatusCodeStage } from '../../src/reports/order-ageing/classify.js';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { csv, env, syncedSandbox } from '../reports/synced-sandbox.js';

/**
 * Every HTML page of a real `report all` (the CLI against the sandbox), and the dashboard over
 * them, say instants to the second with the zone named, and codes in words: no code a report declares words for, and no other UPPER_SNAKE
 * token, is in the text a person reads (a cell's title keeps its code, as the CSV does). The
 * service's own status codes, quoted in order ageing's About line as the service writes them,
 * are data, not codes of ours. The CSV keeps the codes.
 */
const sim = withSim({ scale: 0.1 });
const synced = syncedSandbox(sim);

/** The text a person reads of a page: no style, no tag, no attribute (a title is not read first). */
function visibleText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<head>[\s\S]*?<\/head>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** Each token a page must not show, with a little of its text around it (for the failure). */
function codesShown(text: string, declared: ReadonlySet<string>, data: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b[A-Z][A-Z0-9_]*[A-Z0-9]\b/g)) {
    const token = m[0];
    const snake = token.includes('_');
    if (data.has(token) || !(declared.has(token) || snake)) continue;
    found.push(`${token} in "…${text.slice(Math.max(0, m.index - 50), m.index + 40).replace(/\s+/g, ' ')}…"`);
  }
  return found;
}

describe.each(engines.slice(0, 1))('%s', (engine) => {
  it('no HTML page of report all, nor the dashboard, shows a code where a word exists, or a raw instant', async () => {
    const { dir } = await synced(engine);
    const run = await runOhs(
      ['report', 'all', '--as-of', TEST_ANCHOR, '--present', '--format', 'html,csv', '--out', 'pages'],
      { cwd: dir, env, timeoutMs: 240_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const board = await runOhs(['dashboard', '--out', 'pages'], { cwd: dir, env, timeoutMs: 120_000 });
    expect(board.code, board.stderr).toBe(0);

    const declared = new Set(reports.flatMap((r) => Object.keys(r.words)));
    // The words declared cover the codes of the reports' tables and verdicts.
    for (const code of ['ON_TRACK', 'NOT_MET', 'NO_POLICY', 'NO_SELECTION_Q1', 'STOPPED_TESTING', 'AT_LAB'])
      expect(declared.has(code), code).toBe(true);
    const data = new Set(Object.keys(defaultStatusCodeStage));
    const pages = readdirSync(join(dir, 'pages')).filter((f) => f.endsWith('.html'));
    // Every report's page and the dashboard.
    expect(pages).toHaveLength(reports.length + 2); // the run's controls, the dashboard
    const shown: Record<string, string[]> = {};
    for (const page of pages) {
      const codes = codesShown(visibleText(readFileSync(join(dir, 'pages', page), 'utf8')), declared, data);
      if (codes.length > 0) shown[page] = codes.slice(0, 5);
    }
    expect(shown).toEqual({});

    // Instants read as a person reads them: to the second, the zone named; never raw ISO 8601.
    const raw: Record<string, string[]> = {};
    for (const page of pages) {
      const text = visibleText(readFileSync(join(dir, 'pages', page), 'utf8'));
      const iso = [...text.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}[^\s]*/g)].map((m) => m[0]);
      if (iso.length > 0) raw[page] = iso.slice(0, 5);
      if (page === 'index.html') {
        expect(text).toMatch(
          /SQLite mirror of http:\/\/\S+, first synced \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/,
        );
        expect(text).not.toMatch(/Mirror \w+ mirror of/i);
        expect(text).toMatch(/this page written \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
      }
    }
    expect(raw).toEqual({});

    // The codes stay in the data: the CSV's cells and a cell's title on the page.
    const ytd = readFileSync(join(dir, 'pages', `compliance-${TEST_ANCHOR}.html`), 'utf8');
    const flags = csv(join(dir, 'pages', `compliance-${TEST_ANCHOR}.csv`)).map((r) => r.flags ?? '');
    expect(
      flags.some((f) => f.split(';').includes('NO_POLICY')),
      'a row flagged NO_POLICY in the CSV',
    ).toBe(true);
    // The year's flags with their months, on the page: the code and count in the title, words shown.
    expect(ytd).toMatch(
      /<span title="[^"]*NO_POLICY\(\d+\)[^"]*">no policy imported \(assumed rate\) \(\d+\)/,
    );
    const risk = csv(join(dir, 'pages', `accounts-at-risk-${TEST_ANCHOR}.csv`));
    expect(risk.some((r) => /^(ON_TRACK|MET|BEHIND|AT_RISK|NOT_MET)/.test(r.drugStatus ?? ''))).toBe(true);
  });
});
