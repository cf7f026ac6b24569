import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { reportSummary } from '../../src/render/report-summary.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, workdir } from '../helpers/writeback.js';

const DAY = '2026-06-15';

/**
 * The dashboard reads the verdict files the reports wrote beside their pages; one that is
 * malformed (its `problems` missing, a figure null, not JSON at all) is named in one warning and
 * on the page, and the other reports are shown. Through the CLI, on the first engine (the subject
 * is the folder, not the mirror).
 */
describe.each(engines.slice(0, 1))(
  'ohs dashboard over malformed verdict files (%s)',
  { timeout: 300_000 },
  (engine) => {
    const sim = withSim({ scale: 0.02 });
    const target = withTargets(engine);
    let dir = '';
    beforeAll(async () => {
      const made = workdir(sim().url, await target());
      dir = made.dir;
      await syncStreams(sim(), made.db, ['invoice']);
    });

    it('names each malformed summary.json in one warning and shows the other reports', async () => {
      const out = join(dir, 'out');
      mkdirSync(out);
      const good = reportSummary(
        { name: 'unpaid-invoices', title: 'Unpaid invoices', asOf: DAY },
        undefined,
        12,
        0,
      );
      const page = (stem: string, summary: string) => {
        writeFileSync(join(out, `${stem}.html`), '<!doctype html><title>page</title>');
        writeFileSync(join(out, `${stem}.summary.json`), summary);
      };
      page(`unpaid-invoices-${DAY}`, JSON.stringify(good));
      const { problems: _dropped, ...noProblems } = { ...good, report: 'ar-aging', title: 'A/R aging' };
      page(`ar-aging-${DAY}`, JSON.stringify(noProblems));
      page(
        `compliance-${DAY}`,
        JSON.stringify({
          ...good,
          report: 'compliance',
          title: 'Compliance',
          figures: [{ label: 'Rows', value: null }],
        }),
      );
      page(`catch-up-${DAY}`, '{"report": "catch-up", ');

      const r = await runOhs(['dashboard', '--out', out], { cwd: dir, env: { OHS_TOKEN: WRITE_TOKEN } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toContain('INTERNAL');
      expect(r.stdout.trim()).toBe(join(out, 'index.html'));
      for (const [file, why] of [
        [`ar-aging-${DAY}.summary.json`, 'not a report verdict (problems:'],
        [`compliance-${DAY}.summary.json`, 'not a report verdict (figures.0.value:'],
        [`catch-up-${DAY}.summary.json`, 'not valid JSON'],
      ] as const) {
        const lines = r.stderr.split('\n').filter((l) => l.includes(file));
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toContain(why);
      }
      const html = readFileSync(join(out, 'index.html'), 'utf8');
      // The readable report has its card; the others are named as not shown.
      expect(html).toContain(`href="unpaid-invoices-${DAY}.html"`);
      expect(html).not.toContain(`href="ar-aging-${DAY}.html"`);
      expect(html).toMatch(/Not shown, their verdict file unreadable: .*ar-aging-2026-06-15\.summary\.json/);
      expect(html).toContain(`catch-up-${DAY}.summary.json`);
    });
  },
);
