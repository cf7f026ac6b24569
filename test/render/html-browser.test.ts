import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportTime, resolveAsOf } from '../../src/dates.js';
import { openMirror } from '../../src/mirror/index.js';
import { alertOf } from '../../src/render/alert.js';
import { type ReportName, reportNamed } from '../../src/reports/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { cliConfig, cliEnv, withTmpDir } from '../helpers/mirror.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';

/**
 * The HTML pages and the dashboard opened in a real headless Chromium (Debian's, driven by
 * playwright-core): no console error, no request outside the file, every chart there with its
 * text alternative, the figures the CSV's to the cent, service text escaped, and screenshots at
 * desktop and phone width kept in test-artifacts/html/ (gitignored).
 */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/html/', import.meta.url));
const XSS = '<img src=x onerror=alert(1)>';
const noBrowser = existsSync(CHROMIUM)
  ? undefined
  : `${CHROMIUM} is not installed (apt-get install chromium; .ci/run installs it)`;

/** Charts each page must carry. */
const charts: Record<string, string[]> = {
  compliance: ['chart-status', 'chart-bullet', 'chart-months'],
  'unpaid-invoices': ['chart-buckets', 'chart-largest'],
  'order-ageing': ['chart-stages'],
  'catch-up': ['chart-verdicts'],
  'ar-rollforward': ['chart-waterfall'],
  'accounts-at-risk': ['chart-kinds'],
  // `--present` with a past as-of is no instant to compare: the page says so, with no chart.
  changes: [],
};
/** The pages with detail rows and a chart here (the changes page of a `--present` run has neither). */
const withRows = Object.keys(charts).filter((name) => name !== 'changes');

/**
 * A report's file of an extension in `files`: `NAME-ASOF.EXT`, or for the roll-forward and the
 * changes, named by their period, `NAME-FROM-TO.EXT`.
 */
function fileOf(files: string[], name: string, ext: string): string {
  const exact = `${name}-${TEST_ANCHOR}.${ext}`;
  if (name !== 'ar-rollforward' && name !== 'changes') return exact;
  const period = new RegExp(`^${name}-[0-9T.Z-]+\\.${ext}$`);
  return files.find((f) => period.test(f)) ?? exact;
}

/** A figure as the CSV writes it: thousands separators, % and the $ sign dropped. */
const bare = (text: string) => text.replace(/[$,%]/g, '').trim();
const cents = (text: string) => {
  const m = /^(-?)(\d+)\.(\d{2})$/.exec(bare(text));
  if (m === null) throw new Error(`not money: ${text}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
};

/**
 * Run in the page at its width: the document's width, text elements overflowing their own box or
 * passing the window outside a scrolling box, each scrolling box (wide or not, its header sticky),
 * the headings and captions, the charts drawn, the page's text. A string: the test's TypeScript
 * has no DOM types.
 */
const MEASURE = `(() => {
            const root = document.documentElement;
            const edge = root.clientWidth;
            const cut = [];
            const say = (e) =>
              \`\${e.tagName.toLowerCase()} "\${(e.textContent ?? '').trim().slice(0, 60)}"\`;
            // Text elements: none overflows its own box; outside a scrolling box, none passes the window.
            for (const e of document.querySelectorAll(
              'h1,h2,h3,p,li,dt,dd,caption,figcaption,th,td,a,span',
            )) {
              if ((e.textContent ?? '').trim() === '') continue;
              if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) cut.push(\`overflows: \${say(e)}\`);
              if (e.closest('.scroll') === null && e.getBoundingClientRect().right > edge + 1)
                cut.push(\`past the window: \${say(e)}\`);
            }
            // A table wider than its box scrolls in it, header kept (sticky); a table of long text fits.
            const boxes = [...document.querySelectorAll('.scroll')].map((box) => {
              const table = box.querySelector('table');
              const th = table?.querySelector('thead th');
              return {
                id: table?.id ?? '',
                wrap: table?.classList.contains('wrap') === true,
                wide: box.scrollWidth > box.clientWidth + 1,
                scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
                sticky: th === null || th === undefined ? true : getComputedStyle(th).position === 'sticky',
                right: box.getBoundingClientRect().right,
              };
            });
            const headings = [...document.querySelectorAll('h1,h2,h3,caption')].map((h) =>
              (h.textContent ?? '').trim(),
            );
            return {
              scrollWidth: root.scrollWidth,
              edge,
              cut,
              boxes,
              headings,
              svgs: document.querySelectorAll('.charts svg[role="img"]').length,
              text: document.body.innerText,
            };
          })()`;

interface Measured {
  scrollWidth: number;
  edge: number;
  cut: string[];
  boxes: { id: string; wrap: boolean; wide: boolean; scrolls: boolean; sticky: boolean; right: number }[];
  headings: string[];
  svgs: number;
  text: string;
}

/** A fresh profile (--user-data-dir) per run, removed with the browser. */
async function launch(profile: string): Promise<BrowserContext> {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return context;
}

/** Opens a file, recording console errors, page errors, dialogs and every request that is not the file. */
async function open(context: BrowserContext, file: string, width = 1280) {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const problems: string[] = [];
  const url = pathToFileURL(file).href;
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('request', (r) => {
    if (r.url() !== url) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, problems };
}

/** The text of every cell of a table's body rows. */
const tableText = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('th,td')].map((c) => (c.textContent ?? '').trim())),
  );

/**
 * On the first engine under test only: what the browser sees is the page's own (layout, charts,
 * escaping), the same from either engine's mirror; that the pages' figures, badges and dashboard
 * cards agree with the CSV on every engine is test/reports/verdict.test.ts's.
 */
const browserEngines = engines.slice(0, 1);
const describeBrowsers =
  noBrowser === undefined || process.env.CI
    ? describe.each(browserEngines)
    : describe.skip.each(browserEngines);

describeBrowsers(
  `%s: HTML reports and the dashboard in headless Chromium${noBrowser === undefined ? '' : ` (skipped: ${noBrowser})`}`,
  (engine) => {
    const sim = withSim({ scale: 0.05 });
    const tmp = withTmpDir('ohs-html-');
    const target = withTargets(engine);
    let out = '';
    let context: BrowserContext;
    let files: string[] = [];
    let xssOrg = 0;
    let db = '';

    beforeAll(async () => {
      // An org with unpaid invoices is renamed to markup, as a hostile or careless user could.
      const invoice = sim()
        .tables.Invoice.all()
        .find((r) => Number(r.balance) > 0);
      xssOrg = Number(invoice?.OrgId);
      sim().tables.Org.update(xssOrg, { name: XSS });
      for (const table of [sim().tables.Invoice, sim().tables.OrderItem])
        for (const r of table.all()) if (Number(r.OrgId) === xssOrg) table.update(r.id, { c_org: XSS });
      db = await target();
      const config = cliConfig(join(tmp(), '..'));
      const env = cliEnv(sim());
      const sync = await runOhs(['sync', '--db', db, '--config', config], { env, timeoutMs: 240_000 });
      expect(sync.code, sync.stderr).toBe(0);
      // A `--present` roll-forward spans from the sync's end (rounded up) to the run (rounded
      // down): in the same second it is empty. The report runs a second later.
      await new Promise((r) => setTimeout(r, 2000 - (Date.now() % 1000)));
      out = join(tmp(), 'out');
      const report = await runOhs(
        [
          'report',
          'all',
          '--db',
          db,
          '--config',
          config,
          '--as-of',
          TEST_ANCHOR,
          '--present',
          '--format',
          'html,csv,xlsx',
          '--out',
          out,
        ],
        { env, timeoutMs: 240_000 },
      );
      expect(report.code, report.stderr).toBe(0);
      const dash = await runOhs(['dashboard', '--db', db, '--config', config, '--out', out], { env });
      expect(dash.code, dash.stderr).toBe(0);
      expect(dash.stdout.trim()).toBe(join(out, 'index.html'));
      files = readdirSync(out).sort();
      context = await launch(profile);
    }, 300_000);
    const profile = mkdtempSync(join(tmpdir(), 'ohs-chromium-'));
    afterAll(async () => {
      await context?.close();
      rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    });

    it('writes one page per report beside the CSV and the workbook, mode 0600', () => {
      for (const name of Object.keys(charts))
        for (const ext of ['html', 'csv', 'xlsx']) expect(files).toContain(fileOf(files, name, ext));
      expect(files).toContain('index.html');
    });

    it.each(Object.keys(charts))(
      '%s: no console error, no request out, no script, the CSP, every chart with its text alternative',
      async (name) => {
        const file = join(out, fileOf(files, name, 'html'));
        const html = readFileSync(file, 'utf8');
        // No script, and no attribute that would fetch (a URL in the text, e.g. the mirror's source
        // on the About lines, is only text; the browser check below proves nothing is requested).
        expect(html).not.toMatch(/<script|javascript:/i);
        expect(html).not.toMatch(
          /\s(?:src|href|xlink:href|action|srcset|poster|data)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|\/\/)/i,
        );
        const { page, problems } = await open(context, file);
        try {
          expect(problems).toEqual([]);
          const csp = await page.$eval('meta[http-equiv="Content-Security-Policy"]', (m) =>
            m.getAttribute('content'),
          );
          expect(csp).toContain("default-src 'none'");
          expect(csp).not.toMatch(/script-src/);
          expect(await page.$$eval('script', (s) => s.length)).toBe(0);
          for (const id of charts[name] ?? []) {
            const chart = await page.$eval(`svg#${id}`, (svg) => ({
              role: svg.getAttribute('role'),
              title: svg.querySelector('title')?.textContent ?? '',
              desc: svg.querySelector('desc')?.textContent ?? '',
              marks: svg.querySelectorAll('path, line, rect').length,
              width: svg.getBoundingClientRect().width,
            }));
            expect(chart.role, id).toBe('img');
            expect(chart.title.length, id).toBeGreaterThan(10);
            expect(chart.desc.length, id).toBeGreaterThan(20);
            expect(chart.marks, id).toBeGreaterThan(3);
            expect(chart.width, id).toBeGreaterThan(100);
          }
          // Headings in order, table headers with a scope.
          expect(await page.$$eval('h1', (h) => h.length)).toBe(1);
          expect(await page.$$eval('thead th:not([scope="col"])', (h) => h.length)).toBe(0);
        } finally {
          await page.close();
        }
      },
    );

    it.each(withRows)(
      '%s: the detail table holds the CSV, cell by cell, to the cent (codes shown in words keep the code in the title)',
      async (name) => {
        const csv = parse(readFileSync(join(out, fileOf(files, name, 'csv'))), { bom: true }) as string[][];
        const [header = [], ...rows] = csv;
        const { page } = await open(context, join(out, fileOf(files, name, 'html')));
        try {
          const heads = await page.$$eval('#table-detail thead th', (ths) =>
            ths.map((t) => t.getAttribute('title') ?? ''),
          );
          // The page shows the detail's main columns (one unit per measure), in the CSV's order.
          const index = heads.map((h) => header.indexOf(h));
          expect(index.every((i) => i >= 0)).toBe(true);
          expect([...index].sort((a, b) => a - b)).toEqual(index);
          if (name === 'order-ageing') expect(heads).not.toContain('ageHours');
          const cells = await page.$$eval('#table-detail tbody tr', (trs) =>
            trs.map((tr) =>
              [...tr.querySelectorAll('th,td')].map((c) => {
                const code = c.querySelector('span[title]')?.getAttribute('title');
                return { text: (c.textContent ?? '').trim(), code: code ?? null };
              }),
            ),
          );
          expect(cells.length).toBe(Math.min(rows.length, 5000));
          expect(cells.length).toBeGreaterThan(0);
          for (let r = 0; r < cells.length; r++)
            for (let c = 0; c < heads.length; c++) {
              const want = rows[r]?.[index[c] ?? -1] ?? '';
              const cell = cells[r]?.[c] ?? { text: '', code: null };
              const got = cell.code ?? cell.text;
              const same =
                got === want ||
                `'${got}` === want || // the CSV neutralised text starting with = + - @
                bare(got) === want ||
                (want === 'true' && got === 'yes') ||
                (want === 'false' && got === 'no');
              if (!same) expect(`${heads[c]} row ${r + 1}: ${got}`).toBe(`${heads[c]} row ${r + 1}: ${want}`);
            }
        } finally {
          await page.close();
        }
      },
    );

    it('the headline figures add up from the CSV to the cent; the dashboard shows the same and links every page', async () => {
      const csvOf = (name: string) => {
        const [header, ...rows] = parse(readFileSync(join(out, `${name}-${TEST_ANCHOR}.csv`)), {
          bom: true,
        }) as string[][];
        return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
      };
      // Cancelled invoices, where the CSV lists them (status cancelled), are in no total.
      const invoices = csvOf('unpaid-invoices').filter((r) => r.status !== 'cancelled');
      const open_ = invoices.reduce((a, r) => a + cents(r.balance ?? ''), 0);
      const d91 = invoices.filter((r) => r.bucket === '91+').reduce((a, r) => a + cents(r.balance ?? ''), 0);
      const orders = csvOf('order-ageing');
      const figures = async (page: Page, scope: string) =>
        Object.fromEntries(
          await page.$$eval(`${scope} .figures div`, (ds) =>
            ds.map((d) => [
              d.querySelector('dt')?.textContent ?? '',
              d.querySelector('dd')?.textContent ?? '',
            ]),
          ),
        ) as Record<string, string>;
      const unpaid = await open(context, join(out, `unpaid-invoices-${TEST_ANCHOR}.html`));
      const ageing = await open(context, join(out, `order-ageing-${TEST_ANCHOR}.html`));
      const dash = await open(context, join(out, 'index.html'));
      try {
        const u = await figures(unpaid.page, 'body');
        expect(cents(u['Open balance'] ?? '')).toBe(open_);
        expect(cents(u['91+ days past due'] ?? '')).toBe(d91);
        expect(Number(bare(u['Open invoices'] ?? ''))).toBe(invoices.length);
        // Catch-up: the verdict counts and picks still needed are the CSV's.
        const plan = csvOf('catch-up');
        const catchUp = await open(context, join(out, `catch-up-${TEST_ANCHOR}.html`));
        try {
          const f = await figures(catchUp.page, 'body');
          // What of a figure rests on an assumed rate is said under it, never in the value.
          const notes = Object.fromEntries(
            await catchUp.page.$$eval('.figures div', (ds) =>
              ds.map((d) => [
                d.querySelector('dt')?.textContent ?? '',
                d.querySelector('dd.qualifier')?.textContent ?? '',
              ]),
            ),
          ) as Record<string, string>;
          for (const value of Object.values(f)) expect(value).toMatch(/^[\d,]+$/);
          const verdicts = (kind: string, verdict: string) =>
            plan.filter(
              (r) => r.testType === kind && r.verdict?.replace(/ \(assumed rate\)$/, '') === verdict,
            );
          for (const [kind, label] of [
            ['drug', 'Drug'],
            ['alcohol', 'Alcohol'],
          ] as const) {
            for (const [verdict, said] of [
              ['CANNOT_MEET', 'cannot meet'],
              ['NEEDS_MORE', 'needs more'],
            ] as const) {
              const of = verdicts(kind, verdict);
              const assumed = of.filter((r) => r.verdict?.endsWith('(assumed rate)')).length;
              expect(Number(bare(f[`${label}: ${said}`] ?? ''))).toBe(of.length);
              expect(notes[`${label}: ${said}`]).toBe(
                assumed === 0
                  ? ''
                  : assumed === of.length
                    ? 'all on an assumed rate'
                    : `${assumed.toLocaleString('en-US')} on ${assumed === 1 ? 'an assumed rate' : 'assumed rates'}`,
              );
            }
            expect(Number(bare(f[`${label} picks still needed`] ?? ''))).toBe(
              plan.filter((r) => r.testType === kind).reduce((a, r) => a + Number(r.needed || 0), 0),
            );
          }
          expect(Number(bare(f.Employers ?? ''))).toBe(new Set(plan.map((r) => r.orgId)).size);
        } finally {
          await catchUp.page.close();
        }
        // The roll-forward's header names its period, not an as-of.
        const rollforward = readFileSync(join(out, fileOf(files, 'ar-rollforward', 'html')), 'utf8');
        expect(/<header>.*?<p class="meta">(.*?) · /s.exec(rollforward)?.[1]).toMatch(/^From \S+ .*to \S+/);
        const a = await figures(ageing.page, 'body');
        expect(Number(bare(a['Open orders'] ?? ''))).toBe(orders.length);
        expect(Number(bare(a.Stuck ?? ''))).toBe(orders.filter((r) => r.flag === 'STUCK').length);
        // The stuck list comes first, before the charts.
        const order = await ageing.page.$$eval('#table-first, svg#chart-stages', (els) =>
          els.map((e) => e.id),
        );
        expect(order).toEqual(['table-first', 'chart-stages']);

        expect(dash.problems).toEqual([]);
        const links = await dash.page.$$eval('article h3 a', (as) => as.map((a) => a.getAttribute('href')));
        // Every report's page: these three, and the two built on them (test/reports/act-on.test.ts),
        // and the run's controls (src/app/controls.ts).
        expect(links.sort()).toEqual(
          [...Object.keys(charts), 'controls'].map((n) => fileOf(files, n, 'html')).sort(),
        );
        for (const href of links) expect(existsSync(join(out, href ?? ''))).toBe(true);
        const dashUnpaid = Object.fromEntries(
          await dash.page.$$eval('article', (arts) =>
            arts
              .filter(
                (x) => x.querySelector('a')?.getAttribute('href')?.startsWith('unpaid-invoices') === true,
              )
              .flatMap((x) => [...x.querySelectorAll('.figures div')])
              .map((d) => [
                d.querySelector('dt')?.textContent ?? '',
                d.querySelector('dd')?.textContent ?? '',
              ]),
          ),
        ) as Record<string, string>;
        expect(cents(dashUnpaid['Open balance'] ?? '')).toBe(open_);
        const streams = await tableText(dash.page, '#table-streams');
        expect(streams.map((r) => r[0])).toContain('orderitem');
        for (const r of streams) expect(r[4]).toMatch(/^OK/);
      } finally {
        for (const p of [unpaid, ageing, dash]) await p.page.close();
      }
    });

    it('an org named like markup is shown as text in the tables: no element made of it anywhere (charts included), no dialog', async () => {
      const { page, problems } = await open(context, join(out, `unpaid-invoices-${TEST_ANCHOR}.html`));
      try {
        expect(problems).toEqual([]);
        expect(await page.$$eval('img', (i) => i.length)).toBe(0);
        const shown = await page.$$eval('#table-detail tbody tr', (trs) =>
          trs.map((tr) => tr.querySelectorAll('th,td')[1]?.textContent ?? ''),
        );
        expect(shown).toContain(XSS);
        const html = readFileSync(join(out, `unpaid-invoices-${TEST_ANCHOR}.html`), 'utf8');
        expect(html).not.toContain(XSS);
        expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
      } finally {
        await page.close();
      }
    });

    it.each(withRows)(
      '%s: fits a 1280 px window with no text cut, draws a chart, heads nothing twice, counts agree with their words',
      async (name) => {
        const { page, problems } = await open(context, join(out, fileOf(files, name, 'html')), 1280);
        try {
          expect(problems).toEqual([]);
          const seen = (await page.evaluate(MEASURE)) as Measured;
          expect(seen.scrollWidth, name).toBeLessThanOrEqual(1280);
          expect(seen.cut, name).toEqual([]);
          for (const b of seen.boxes) {
            expect(b.right, `${name} ${b.id}`).toBeLessThanOrEqual(seen.edge + 1);
            if (b.wrap) expect(b.wide, `${name} ${b.id}: a table of long text fits`).toBe(false);
            if (b.wide)
              expect([b.scrolls, b.sticky], `${name} ${b.id} scrolls, header kept`).toEqual([true, true]);
          }
          expect(seen.svgs, name).toBeGreaterThanOrEqual(1);
          const twice = seen.headings.filter((h, i) => seen.headings.indexOf(h) !== i);
          expect(twice, name).toEqual([]);
          // "1 warning", never "1 warnings" (nor rows, employers, payments, invoices).
          expect(seen.text).not.toMatch(
            /(^|[^\d.,])1 (warnings|rows|detail rows|employers|payments|invoices|orders)\b/m,
          );
        } finally {
          await page.close();
        }
      },
    );

    it('every workbook colours its exceptions: each cell an alerting column flags is filled red or amber, no other', async () => {
      const fills = { bad: 'FFFFC7CE', warn: 'FFFFEB9C' } as const;
      const found: Record<string, number> = {};
      const mirror = await openMirror(db);
      try {
        for (const name of Object.keys(charts)) {
          // The report's own columns (their alerts), from the same mirror as the files.
          const result = await reportNamed(name as ReportName).run({
            db: mirror.db,
            params: {
              time: reportTime(resolveAsOf({ date: TEST_ANCHOR }, 'UTC'), { present: true }),
              orgIds: [],
              options: {},
            },
          });
          for await (const _ of result.detail.rows as AsyncIterable<unknown> & Iterable<unknown>) void _;
          const sheets = [result.detail, ...result.summaries()];
          const wb = new ExcelJS.Workbook();
          await wb.xlsx.readFile(join(out, fileOf(files, name, 'xlsx')));
          found[name] = 0;
          for (const s of sheets) {
            const ws = wb.getWorksheet(s.name);
            if (ws === undefined) continue;
            s.columns.forEach((c, i) => {
              if (c.alert === undefined) return;
              ws.eachRow((row, n) => {
                const cell = row.getCell(i + 1);
                if (n === 1 || cell.font?.bold === true) return;
                const level = alertOf(c, cell.value);
                const fill = cell.fill?.type === 'pattern' ? cell.fill.fgColor?.argb : undefined;
                const where = `${name} / ${s.name}!${cell.address} ${JSON.stringify(cell.value)}`;
                expect(fill, where).toBe(level === undefined ? undefined : fills[level]);
                if (level !== undefined) found[name] = (found[name] ?? 0) + 1;
              });
            });
          }
        }
      } finally {
        await mirror.close();
      }
      // The sandbox has 91+ invoices, stuck orders and employers behind: those workbooks show them.
      for (const name of ['compliance', 'unpaid-invoices', 'order-ageing', 'catch-up', 'accounts-at-risk'])
        expect(found[name], name).toBeGreaterThan(0);
    });

    it('screenshots at desktop and phone width (test-artifacts/html/); on a phone the page fits the screen, tables scroll in their box', async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      for (const name of [...Object.keys(charts), 'index']) {
        const file = join(out, name === 'index' ? 'index.html' : fileOf(files, name, 'html'));
        for (const [label, width] of [
          ['desktop', 1280],
          ['phone', 390],
        ] as const) {
          const { page, problems } = await open(context, file, width);
          try {
            expect(problems).toEqual([]);
            const shot = join(ARTIFACTS, `${engine}-${name}-${label}.png`);
            await page.screenshot({ path: shot });
            expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
            const overflow = await page.$eval('html', (root) => root.scrollWidth - root.clientWidth);
            expect(overflow, `${name} at ${width}px`).toBeLessThanOrEqual(0);
            // Every table scrolls inside its own box; at desktop width the A/R page's tables fit.
            const boxes = await page.$$eval('table', (ts) =>
              ts.map((t) => ({
                id: t.id,
                boxed: t.parentElement?.classList.contains('scroll') === true,
                right: t.getBoundingClientRect().right,
                edge: t.ownerDocument.documentElement.clientWidth,
              })),
            );
            for (const b of boxes) expect(b.boxed, `${name} ${b.id}`).toBe(true);
            if (name === 'unpaid-invoices' && label === 'desktop')
              for (const b of boxes) expect(b.right, `${name} ${b.id}`).toBeLessThanOrEqual(b.edge);
          } finally {
            await page.close();
          }
        }
      }
      // Printable: a PDF of the page, with the detail on pages of its own.
      const { page } = await open(context, join(out, `order-ageing-${TEST_ANCHOR}.html`));
      try {
        await page.emulateMedia({ media: 'print' });
        const print = await page.$$eval('section', (sections) => {
          type Styles = { getComputedStyle(e: unknown): { breakBefore: string; display: string } };
          const view = sections[0]?.ownerDocument.defaultView as unknown as Styles;
          return sections.map((x) => {
            const thead = x.querySelector('thead');
            return {
              page: x.classList.contains('page'),
              breakBefore: view.getComputedStyle(x).breakBefore,
              head: thead === null ? null : view.getComputedStyle(thead).display,
            };
          });
        });
        // Every section after the summary starts a page; table headers repeat on every page.
        expect(print.filter((x) => x.page).every((x) => x.breakBefore === 'page')).toBe(true);
        expect(print.filter((x) => x.page).length).toBeGreaterThanOrEqual(3);
        expect(print.filter((x) => x.head !== null).every((x) => x.head === 'table-header-group')).toBe(true);
        const pdf = await page.pdf({ path: join(ARTIFACTS, `${engine}-order-ageing.pdf`) });
        expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
      } finally {
        await page.close();
      }
    });
  },
);
