import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { money, type SummaryBuilder } from '../../src/render/html/summary.js';
import { RenderValueError, type Row, writeReport } from '../../src/render/index.js';
import type { ComplianceProduct } from '../../src/reports/compliance/figures.js';
import { complianceTrendColumns } from '../../src/reports/compliance/index.js';
import { reportNamed } from '../../src/reports/index.js';
import type { UnpaidProduct } from '../../src/reports/unpaid-invoices/summary.js';
import { defaults } from '../helpers/defaults.js';
import { everyType, everyTypeRows, outDir, readXlsx, report } from './fixtures.js';

/** The HTML renderer on the generic report output, without a browser (html-browser.test.ts opens the pages). */
describe('writeReport --format html', () => {
  const opts = (dir: string) =>
    ({
      outDir: dir,
      name: 'unpaid-invoices',
      asOf: '2025-06-30',
      title: 'Unpaid <invoices>',
      csv: defaults.reports.csv,
    }) as const;

  it('writes the CSV figures, escapes every value and attribute, ships no script, carries the CSP; summaries read by the workbook too', async () => {
    const dir = outDir();
    const hostile: Row = { ...everyTypeRows[0], orgId: 9, org: '<img src=x onerror=alert(1)>"\'&' };
    const summary = {
      name: 'By org',
      columns: [
        { key: 'org', title: 'Org <b>', type: 'string' as const },
        { key: 'total', title: 'Total', type: 'money' as const, alert: { positive: 'red' as const } },
      ],
      rows: [
        { org: '<script>x</script>', total: 123456789 },
        { org: 'Total', total: 123456789 },
      ],
    };
    const out = await writeReport(
      report({
        detail: { rows: [...everyTypeRows, hostile] },
        summaries: [summary],
        warnings: ['row 3: <b>bold</b>'],
        about: [['Mirror', '/srv/<x>']],
      }),
      { ...opts(dir), formats: ['html', 'xlsx', 'csv'] },
    );
    expect(out.files.map((f) => f.split('/').pop())).toEqual([
      'unpaid-invoices-2025-06-30.html',
      'unpaid-invoices-2025-06-30.xlsx',
      'unpaid-invoices-2025-06-30.csv',
    ]);
    const html = readFileSync(out.files[0] ?? '', 'utf8');
    expect(statSync(out.files[0] ?? '').mode & 0o777).toBe(0o600);
    expect(html).not.toMatch(/<script|<img|<b>|onerror=alert\(1\)>/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).toContain('<title>Unpaid &lt;invoices&gt;, 2025-06-30</title>');
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"`.replace(
        /'/g,
        '&#39;',
      ),
    );
    // The CSV's figures: money to the cent with separators, percent with its decimals, booleans.
    expect(html).toContain('<td class="n">1,234.50</td>');
    expect(html).toContain('<td class="n">-40.05</td>');
    expect(html).toContain('<td class="n">50.0%</td>');
    expect(html).toContain('<td class="n">10.5%</td>');
    // An instant to the second with its zone named; the CSV's ISO 8601 in the title.
    expect(html).toContain('<td><span title="2025-06-10T08:30:15Z">2025-06-10 08:30:15 UTC</span></td>');
    // An alert is a colour and the text; the total row is marked.
    expect(html).toContain('<td class="n bad"><span class="s" aria-hidden="true"></span>1,234,567.89</td>');
    expect(html).toMatch(/<tr class="total"><th scope="row">Total<\/th>/);
    expect(html).toContain('<th scope="col" title="org">Org &lt;b&gt;</th>');
    // The workbook still got the summary rows (read once, shared).
    const wb = await readXlsx(out.files[1] ?? '');
    expect(wb.getWorksheet('By org')?.getCell('A2').value).toBe('<script>x</script>');
    // The verdict the dashboard reads: the JSON beside the page, the object the page shows.
    expect(out.summaryFile).toBe(out.files[0]?.replace(/\.html$/, '.summary.json'));
    expect(statSync(out.summaryFile ?? '').mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out.summaryFile ?? '', 'utf8'))).toEqual(out.summary);
    expect(out.summary).toMatchObject({
      report: 'unpaid-invoices',
      title: 'Unpaid <invoices>',
      asOf: '2025-06-30',
    });
  });

  it('draws the A/R trend at past month ends the mirror knew, naming the month ends before its history', async () => {
    const trend = (rows: Row[]) => ({
      name: 'Trend',
      columns: [
        { key: 'monthEnd', title: 'Month end', type: 'string' as const },
        { key: 'current', title: 'Current', type: 'money' as const },
        { key: 'd1_30', title: '1-30', type: 'money' as const },
        { key: 'total', title: 'Total', type: 'money' as const },
        { key: 'note', title: 'Note', type: 'string' as const },
      ],
      rows,
    });
    const omitted = { monthEnd: '2025-04-30', note: "omitted: before the mirror's history begins (x)" };
    // The report's product: its buckets and its trend (the page reads it, never the sheet by name).
    const product = (rows: Row[]): UnpaidProduct => ({
      openBalance: 0,
      openInvoices: 0,
      lateFees: 0,
      oldestBucket: 0,
      credits: 0,
      over60: 0,
      owed: 0,
      cancelled: 0,
      balanceUnknown: 0,
      buckets: [
        { key: 'current', label: 'Current' },
        { key: 'd1_30', label: '1-30' },
      ],
      orgs: [],
      bucketLines: [],
      trend: rows,
    });
    const page = async (rows: Row[]) => {
      const result = report({ detail: { rows: everyTypeRows }, summaries: [trend(rows)] });
      const out = await writeReport(
        { ...result, facts: () => product(rows) },
        { ...opts(outDir()), formats: ['html'], html: reportNamed('unpaid-invoices').html },
      );
      return readFileSync(out.files[0] ?? '', 'utf8');
    };
    const html = await page([
      omitted,
      { monthEnd: '2025-05-31', current: 10000, d1_30: 2550, total: 12550, note: null },
      { monthEnd: '2025-06-30', current: 5000, d1_30: 0, total: 5000, note: null },
    ]);
    expect(html).toContain('id="chart-trend"');
    expect(html).toMatch(
      /<desc id="chart-trend-d">Open balance at month end: 2025-05-31 \$125\.50, 2025-06-30 \$50\.00\. 1 earlier month end\(s\) omitted/,
    );
    // Every month end before the history: no chart drawn from nothing (the table says why).
    // Before the history, one line saying when it begins, not a row per month end.
    expect(html).toContain('The mirror&#39;s history begins x: 2025-04-30 before it left out');
    expect(html).not.toContain('<th scope="row">2025-04-30</th>');
    const none = await page([omitted]);
    expect(none).not.toContain('id="chart-trend"');
    expect(none).toContain(
      'The mirror&#39;s history begins x: the trend starts at the first month end after it',
    );
    expect(none).not.toContain('id="table-sheet-0"');
  });

  it('draws compliance by status at past month ends the mirror knew, naming the month ends before its history', async () => {
    const page = async (rows: Row[]) => {
      const result = report({
        detail: { rows: everyTypeRows },
        summaries: [{ name: 'Trend', columns: complianceTrendColumns, rows }],
      });
      const product: ComplianceProduct = {
        lines: 0,
        drugCompletedYtd: 0,
        alcoholCompletedYtd: 0,
        employers: [],
        plan: [],
        trend: rows,
      };
      const out = await writeReport(
        { ...result, facts: () => product },
        { ...opts(outDir()), name: 'compliance', formats: ['html'], html: reportNamed('compliance').html },
      );
      return readFileSync(out.files[0] ?? '', 'utf8');
    };
    const omitted = { monthEnd: '2026-08-31', note: "omitted: before the mirror's history begins (x)" };
    const at = (monthEnd: string, counts: Row, drug: number, required: number): Row => ({
      monthEnd,
      orgs: Object.values(counts).reduce((a: number, b) => a + Number(b), 0),
      MET: 0,
      ON_TRACK: 0,
      PENDING_RESULTS: 0,
      AT_RISK: 0,
      BEHIND: 0,
      NOT_MET: 0,
      noStatus: 0,
      ...counts,
      drugCompletedYtd: drug,
      drugExpectedToDate: required,
      note: null,
    });
    const html = await page([
      omitted,
      at('2026-09-30', { ON_TRACK: 3, BEHIND: 1 }, 10, 12.4),
      at('2026-10-31', { MET: 1, ON_TRACK: 2, AT_RISK: 1, noStatus: 1 }, 14, 13.6),
    ]);
    expect(html).toContain('id="chart-trend"');
    expect(html).toContain(
      '<desc id="chart-trend-d">Employers per status (the worse of drug and alcohol) at month end: 2026-09-30: BEHIND 1, ON_TRACK 3 of 4 (drug 10 completed of 12 required); 2026-10-31: AT_RISK 1, ON_TRACK 2, MET 1, N/A 1 of 5 (drug 14 completed of 14 required). Omitted, before the mirror&#39;s history begins: 2026-08-31.</desc>',
    );
    // Before the history, one line saying when it begins, not a row per month end.
    expect(html).toContain('The mirror&#39;s history begins x: 2026-08-31 before it left out');
    expect(html).not.toContain('<th scope="row">2026-08-31</th>');
    const none = await page([omitted]);
    expect(none).not.toContain('id="chart-trend"');
    expect(none).toContain(
      'The mirror&#39;s history begins x: the trend starts at the first month end after it',
    );
    expect(none).not.toContain('id="table-sheet-0"');
  });

  it('draws the summary of the builder it is given, whatever the report is named; none given: the tables only', async () => {
    const summaries = [
      {
        name: 'By org',
        columns: [
          { key: 'org', title: 'Org', type: 'string' as const },
          { key: 'total', title: 'Total', type: 'money' as const },
        ],
        rows: [{ org: 'Acme', total: 12550 }],
      },
    ];
    // A report of its own, declared here: it counts the detail rows and lists the first one.
    // It reads its typed product, never a sheet (it is handed none).
    const probe = (): SummaryBuilder<{ orgs: number }> => {
      const seen: Row[] = [];
      return {
        onRow: (row) => void seen.push(row),
        build: (product) => ({
          status: 'bad',
          headline: 'since the last run: 1 <employer> fell behind',
          figures: [
            { label: 'Rows seen', value: String(seen.length) },
            { label: 'Orgs', value: String(product?.orgs) },
          ],
          charts: [],
          first: { title: 'First row', rows: seen.slice(0, 1), more: seen.length - 1 },
        }),
      };
    };
    const page = async (name: string, html?: () => SummaryBuilder) => {
      const result = report({ detail: { rows: everyTypeRows }, summaries });
      const out = await writeReport(
        { ...result, facts: () => ({ orgs: 1 }) },
        { ...opts(outDir()), name, formats: ['html'], html },
      );
      return { html: readFileSync(out.files[0] ?? '', 'utf8'), summary: out.summary };
    };
    const { html: probed, summary: probedSummary } = await page('probe', probe);
    expect(probedSummary).toMatchObject({
      report: 'probe',
      level: 'bad',
      figures: [
        { label: 'Rows seen', value: String(everyTypeRows.length) },
        { label: 'Orgs', value: '1' },
      ],
    });
    // Its headline is the page's first sentence, above the figures, as in the verdict file.
    expect(probedSummary.headline).toBe('since the last run: 1 <employer> fell behind');
    expect(probed).toContain('<p class="headline">since the last run: 1 &lt;employer&gt; fell behind</p>');
    expect(probed.indexOf('class="headline"')).toBeLessThan(probed.indexOf('<dl class="figures">'));
    // The list shown first is headed once, by its table's caption.
    expect(probed).toContain('<caption>First row</caption>');
    expect(probed.match(/First row</g)).toHaveLength(1);
    expect(probed).toContain(`${everyTypeRows.length - 1} more in the detail below and in the CSV.`);
    // Named like a report of the registry but given no builder: no chart, the row count only.
    const { html: plain, summary: plainSummary } = await page('compliance');
    expect(plain).not.toContain('data-chart=');
    expect(plain).not.toContain('class="headline"');
    expect(plainSummary).toMatchObject({
      report: 'compliance',
      level: 'ok',
      figures: [{ label: 'Rows', value: String(everyTypeRows.length) }],
    });
    expect(plain).toContain('<h2 id="sheet-0">By org</h2>');
  });

  it('keeps the first 5,000 detail rows and says how many the CSV has', async () => {
    const rows = Array.from({ length: 5003 }, (_, i) => ({ ...everyTypeRows[0], orgId: i + 1 }));
    const out = await writeReport(report({ detail: { rows } }), {
      ...opts(outDir()),
      formats: ['html'],
    });
    const html = readFileSync(out.files[0] ?? '', 'utf8');
    expect(out.rows).toBe(5003);
    expect(html.match(/<tr><th scope="row" class="n">\d+<\/th>/g)).toHaveLength(5000);
    expect(html).toContain('The first 5,000 of 5,003 rows; every row is in the CSV and the workbook.');
  });

  it('a value that does not fit its column fails the page as it fails the CSV, leaving no file', async () => {
    const dir = outDir();
    const bad = { ...everyTypeRows[0], balance: 12.5 };
    await expect(
      writeReport(report({ detail: { rows: [bad] } }), { ...opts(dir), formats: ['html'] }),
    ).rejects.toBeInstanceOf(RenderValueError);
    expect(everyType).toHaveLength(8);
    expect(() => statSync(`${dir}/unpaid-invoices-2025-06-30.html`)).toThrow();
  });
});

describe('money on a page', () => {
  it("groups thousands, keeps the cents, and puts a credit's sign before the symbol", () => {
    expect(money(123_450)).toBe('$1,234.50');
    expect(money(-149_326)).toBe('-$1,493.26');
    expect(money(0)).toBe('$0.00');
    expect(money(-5)).toBe('-$0.05');
  });
});
