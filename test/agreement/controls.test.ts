import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Published, writeControls } from '../../src/app/controls.js';
import { writeReport } from '../../src/render/index.js';
import type { YtdFacts } from '../../src/reports/compliance/figures.js';
import { reportNamed } from '../../src/reports/index.js';
import { defaults } from '../helpers/defaults.js';
import { engines } from '../helpers/engines.js';
import { silent } from '../helpers/writeback.js';
import { params, syncState, tempMirrors, upsert } from '../reports/fixture.js';

/**
 * The run's controls failing: a real A/R report written by writeReport, then its page figure or
 * its verdict file (the dashboard's) made to disagree with the report's typed total. The controls
 * page says Needs attention, naming the figure and both values; agreeing, "controls: N of N agree".
 */
const unpaid = reportNamed('unpaid-invoices');
const compliance = reportNamed('compliance');
const catchUp = reportNamed('catch-up');
/** Two employers' months January to May 2025: pool, picks and results of each test type. */
const orgMonths = (orgId: number, completed: number) =>
  [1, 2, 3, 4, 5].map((month) => ({
    id: orgId * 100 + month,
    OrgId: orgId,
    label: `2025-0${month}`,
    countEligibleAll: 20,
    countEligibleRandomPool: 20,
    countPickedDrug: completed,
    countPickedDrugResult: completed,
    countPickedAlcohol: 1,
    countPickedAlcoholResult: month % 2,
  }));
const invoice = (id: string, balance: number, more: Record<string, unknown> = {}) => ({
  id,
  OrgId: 1001,
  c_org: 'Acme Haulage',
  date: '2025-05-15',
  dateDue: '2025-06-14',
  balance,
  lateFee: 0,
  dropInvoice: null,
  month: 5,
  year: 2025,
  ...more,
});

describe.each(engines.slice(0, 1))('%s: run controls', (engine) => {
  const mirrors = tempMirrors(engine);

  async function published(): Promise<{ run: Published[]; out: string }> {
    const m = await mirrors();
    await upsert(m, 'Invoice', [
      invoice('1', 1200.5),
      invoice('2', -40),
      invoice('3', 999, { dropInvoice: 'yes' }),
    ]);
    await syncState(m, 'invoice', '2025-06-30T02:00:00.000Z');
    await syncState(m, 'orderitem', '2025-06-30T02:00:00.000Z').catch(() => undefined);
    const out = mkdtempSync(join(tmpdir(), 'ohs-controls-'));
    const result = await unpaid.run({ db: m.db, params: params('2025-06-30') });
    const written = await writeReport(result, {
      outDir: out,
      name: unpaid.name,
      asOf: '2025-06-30',
      title: unpaid.title,
      formats: ['csv', 'html'],
      csv: defaults.reports.csv,
      ...(unpaid.html === undefined ? {} : { html: unpaid.html }),
    });
    return { run: [{ report: unpaid.name, written }], out };
  }

  /** Compliance and the catch-up plan of one mirror, each written as the run writes it. */
  async function planRun(): Promise<{ run: Published[]; out: string }> {
    const m = await mirrors();
    await upsert(m, 'OrgMonth', [...orgMonths(7, 1), ...orgMonths(8, 2)]);
    await syncState(m, 'orgmonth', '2025-06-30T02:00:00.000Z');
    const out = mkdtempSync(join(tmpdir(), 'ohs-controls-'));
    const run: Published[] = [];
    for (const report of [compliance, catchUp]) {
      const result = await report.run({ db: m.db, params: params('2025-05-31') });
      const written = await writeReport(result, {
        outDir: out,
        name: report.name,
        asOf: '2025-05-31',
        title: report.title,
        formats: ['csv'],
        csv: defaults.reports.csv,
      });
      run.push({ report: report.name, written });
    }
    return { run, out };
  }

  const controlsOf = async (run: Published[], out: string) => {
    const lines: string[] = [];
    const files = await writeControls(
      run,
      undefined,
      { outDir: out, asOf: '2025-06-30', formats: ['csv', 'html'], csv: defaults.reports.csv },
      silent,
      {
        write: (t: string) => lines.push(t),
      },
    );
    const file = files.find((f) => f.endsWith('.summary.json')) as string;
    return { summary: JSON.parse(readFileSync(file, 'utf8')) as { level: string; verdict: string }, lines };
  };

  it('agreeing: OK, "controls: N of N agree" on the terminal and the verdict file', async () => {
    const { run, out } = await published();
    expect(run[0]?.written.summary.figures.find((f) => f.label === 'Open balance')?.value).toBe('$1,160.50');
    const { summary, lines } = await controlsOf(run, out);
    expect(summary.level).toBe('ok');
    expect(lines.join('')).toMatch(/^controls: OK/);
    const csv = readFileSync(join(out, 'controls-2025-06-30.csv'), 'utf8');
    const rows = csv.trim().split(/\r?\n/).slice(1);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.filter((l) => !l.endsWith(',true'))).toEqual([]);
  });

  it('a page figure that disagrees with the typed total: Needs attention, the figure and both values named', async () => {
    const { run, out } = await published();
    const written = run[0]?.written;
    if (written === undefined) throw new Error('no report written');
    const open = written.summary.figures.find((f) => f.label === 'Open balance');
    if (open === undefined) throw new Error('no Open balance figure');
    open.value = '$2,159.50';
    const { summary, lines } = await controlsOf(run, out);
    expect(summary.level).toBe('warn');
    expect(summary.verdict).toContain(
      'A/R total: unpaid-invoices (typed total) $1,160.50, unpaid-invoices page and dashboard $2,159.50',
    );
    expect(lines.join('')).toContain('Needs attention');
  });

  it("a dashboard's verdict file that disagrees with the page: Needs attention, both values named", async () => {
    const { run, out } = await published();
    const file = run[0]?.written.summaryFile as string;
    writeFileSync(file, readFileSync(file, 'utf8').replace('$1,160.50', '$1,200.50'));
    const { summary } = await controlsOf(run, out);
    expect(summary.level).toBe('warn');
    expect(summary.verdict).toMatch(
      /unpaid-invoices: every figure: unpaid-invoices page .*Open balance \$1,160\.50.*dashboard \(verdict file\) .*Open balance \$1,200\.50/,
    );
  });

  it("compliance's counts = the catch-up plan's inputs: lines and completed to date agree on a real run; a difference names the figure and both values", async () => {
    const { run, out } = await planRun();
    const { summary, lines } = await controlsOf(run, out);
    expect(summary.level).toBe('ok');
    expect(lines.join('')).toMatch(/^controls: OK/);
    const csv = readFileSync(join(out, 'controls-2025-06-30.csv'), 'utf8').trim().split(/\r?\n/);
    const plan = csv.filter((l) => l.startsWith('Compliance = catch-up'));
    // Two employers × two test types; 5 × 1 + 5 × 2 drug tests, 3 + 3 alcohol tests completed.
    expect(plan).toEqual([
      "Compliance = catch-up: employer × test-type lines,compliance YTD lines (typed),4,catch-up plan's inputs (typed),4,true",
      "Compliance = catch-up: drug tests completed to date,compliance YTD lines (typed),15,catch-up plan's inputs (typed),15,true",
      "Compliance = catch-up: alcohol tests completed to date,compliance YTD lines (typed),6,catch-up plan's inputs (typed),6,true",
    ]);
    const facts = run.find((p) => p.report === 'catch-up')?.written.facts as YtdFacts | undefined;
    if (facts === undefined) throw new Error('catch-up published no facts');
    facts.drugCompletedYtd = 14;
    const off = await controlsOf(run, out);
    expect(off.summary.level).toBe('warn');
    expect(off.summary.verdict).toContain(
      "Compliance = catch-up: drug tests completed to date: compliance YTD lines (typed) 15, catch-up plan's inputs (typed) 14",
    );
    expect(off.lines.join('')).toContain('Needs attention');
  });
});
