import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyRetention } from '../../src/app/reports.js';
import type { ReportSummary } from '../../src/render/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { csv, env, syncedSandbox } from './synced-sandbox.js';

/**
 * One verdict per report, computed once: the page's badge, tiles and charts, the verdict file
 * beside it, the workbook's About line and the dashboard's card all say what the CSV holds,
 * statuses on an assumed rate counted (and said to be assumed), with policies imported and
 * without. With anything behind, stuck or not measured, nothing reads OK.
 */
const sim = withSim({ scale: 0.05 });
const synced = syncedSandbox(sim);

async function ohs(dir: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runOhs(args, { cwd: dir, env, timeoutMs: 240_000 });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

interface Shown {
  value: string;
  note?: string;
}

/**
 * The figures of an HTML fragment's first `.figures` list, label to value and the qualifier
 * under it, if any (text unescaped).
 */
function figures(html: string): Record<string, Shown> {
  const list = /<dl class="figures">(.*?)<\/dl>/s.exec(html)?.[1] ?? '';
  const out: Record<string, Shown> = {};
  for (const m of list.matchAll(
    /<div><dt>(.*?)<\/dt><dd>(.*?)<\/dd>(?:<dd class="qualifier">(.*?)<\/dd>)?<\/div>/g,
  ))
    out[unesc(m[1] ?? '')] = {
      value: unesc(m[2] ?? ''),
      ...(m[3] === undefined ? {} : { note: unesc(m[3]) }),
    };
  return out;
}

/** A verdict's figures as a page shows them. */
const figuresOf = (v: ReportSummary): Record<string, Shown> =>
  Object.fromEntries(
    v.figures.map((f) => [f.label, { value: f.value, ...(f.note === undefined ? {} : { note: f.note }) }]),
  );
const unesc = (s: string) =>
  s
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** The badge's words of a page or card. */
const badge = (html: string) => /<span class="status (ok|warn|bad)">/.exec(html)?.[1];

/** A dashboard's card of a report: the `<article>` linking its page. */
function card(dashboard: string, page: string): string {
  const m = [...dashboard.matchAll(/<article[^>]*>(.*?)<\/article>/gs)].find((a) =>
    (a[1] ?? '').includes(`href="${page}"`),
  );
  expect(m, `a card for ${page}`).toBeDefined();
  return m?.[1] ?? '';
}

/** A count as a figure shows it: the number alone, what of it is assumed under it. */
const shown = (n: number, assumed: number): Shown =>
  assumed === 0 || n === 0
    ? { value: n.toLocaleString('en-US') }
    : {
        value: n.toLocaleString('en-US'),
        note:
          assumed === n
            ? 'all on an assumed rate'
            : `${assumed.toLocaleString('en-US')} on ${assumed === 1 ? 'an assumed rate' : 'assumed rates'}`,
      };

/** A count as a verdict's problem line says it, in words. */
const said = (n: number, assumed: number) =>
  assumed === 0 || n === 0
    ? n.toLocaleString('en-US')
    : `${n.toLocaleString('en-US')}, ${assumed === n ? 'all' : assumed.toLocaleString('en-US')} on an assumed rate`;

/** Employers per program status in the compliance CSV (each org's through-month row). */
function complianceCounts(rows: Record<string, string>[]) {
  const m = Math.max(...rows.map((r) => Number(r.month)));
  const last = rows.filter((r) => Number(r.month) === m);
  const count = (kind: 'drug' | 'alcohol', statuses: string[]) => {
    const of = last.filter((r) =>
      statuses.includes(String(r[`${kind}Status`]).replace(/ \(assumed rate\)$/, '')),
    );
    return {
      n: of.length,
      assumed: of.filter((r) => String(r[`${kind}Status`]).endsWith('(assumed rate)')).length,
    };
  };
  return {
    orgs: last.length,
    drugBehind: count('drug', ['BEHIND', 'NOT_MET']),
    drugRisk: count('drug', ['AT_RISK']),
    alcoholBehind: count('alcohol', ['BEHIND', 'NOT_MET']),
    alcoholRisk: count('alcohol', ['AT_RISK']),
    onAssumed: last.filter((r) => /assumed rate/.test(`${r.drugStatus} ${r.alcoholStatus}`)).length,
  };
}

/**
 * Every report of a folder (catch-up, accounts at risk, the roll-forward too): a figure's value is
 * a figure, never words about assumed rates; its card on the dashboard shows the same figures with
 * their notes under them. The roll-forward's card names its period.
 */
function everyCard(folder: string, dashboard: string, verdicts: Record<string, ReportSummary>): void {
  const sidecars = readdirSync(folder).filter((x) => x.endsWith('.summary.json'));
  expect(sidecars.length).toBeGreaterThanOrEqual(6);
  for (const file of sidecars) {
    const all = JSON.parse(readFileSync(join(folder, file), 'utf8')) as ReportSummary;
    for (const x of all.figures) expect(x.value, `${file}: ${x.label}`).not.toMatch(/assumed|rate/i);
    const cardOf = card(dashboard, file.replace(/\.summary\.json$/, '.html'));
    expect(figures(cardOf), file).toEqual(figuresOf(all));
    if (all.report === 'ar-rollforward') {
      expect(all.covers).toMatch(/^from \S+/);
      expect(unesc(cardOf)).toContain(`<p class="meta">From ${all.covers?.slice(5)}`);
    }
  }
  const picks = figuresOf(verdicts['catch-up'] as ReportSummary)['Drug picks still needed'];
  expect(picks?.value).toMatch(/^[\d,]+$/);
}

/**
 * Every report of a folder written with html and csv and the dashboard: each page, its verdict
 * file and its card hold the CSV's counts, assumed rates included; nothing behind reads OK.
 */
async function checkFolder(dir: string, db: string, out: string): Promise<{ compliance: ReportSummary }> {
  await ohs(
    dir,
    'report',
    'all',
    '--as-of',
    TEST_ANCHOR,
    '--present',
    '--format',
    'html,csv,xlsx',
    '--out',
    out,
  );
  await ohs(dir, 'dashboard', '--out', out);
  const at = (name: string, ext: string) => join(dir, out, `${name}-${TEST_ANCHOR}.${ext}`);
  const dashboard = readFileSync(join(dir, out, 'index.html'), 'utf8');
  const verdicts: Record<string, ReportSummary> = {};
  for (const name of ['compliance', 'unpaid-invoices', 'order-ageing', 'catch-up', 'accounts-at-risk']) {
    const html = readFileSync(at(name, 'html'), 'utf8');
    const file = at(name, 'summary.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const v = JSON.parse(readFileSync(file, 'utf8')) as ReportSummary;
    verdicts[name] = v;
    const c = card(dashboard, `${name}-${TEST_ANCHOR}.html`);
    // The page, its verdict file and the dashboard's card: one object.
    const onPage = figures(html);
    expect(figuresOf(v)).toEqual(onPage);
    expect(badge(html)).toBe(v.level);
    expect(figures(c)).toEqual(onPage);
    expect(badge(c)).toBe(v.level);
    for (const p of v.problems) expect(unesc(c)).toContain(p);
    if (v.level === 'ok') expect(v.problems).toEqual([]);
    else expect(v.problems.length).toBeGreaterThan(0);
    // The page itself names no server-side path of the mirror.
    expect(html).not.toContain('Mirror location');
    expect(html).not.toContain(db);
    expect(c).not.toContain(db);
  }

  everyCard(join(dir, out), dashboard, verdicts);

  // Compliance: the counts of the CSV, assumed rates counted and said.
  const c = complianceCounts(csv(at('compliance', 'csv')));
  const v = verdicts.compliance as ReportSummary;
  // Each figure the number alone; what of it rests on an assumed rate said under it.
  expect(figuresOf(v)).toMatchObject({
    Employers: shown(c.orgs, 0),
    'Drug: behind or not met': shown(c.drugBehind.n, c.drugBehind.assumed),
    'Drug: at risk': shown(c.drugRisk.n, c.drugRisk.assumed),
    'Alcohol: behind or not met': shown(c.alcoholBehind.n, c.alcoholBehind.assumed),
    'Alcohol: at risk': shown(c.alcoholRisk.n, c.alcoholRisk.assumed),
    'Scored on an assumed rate': shown(c.onAssumed, 0),
  });
  const counted = (group: string, status: string) =>
    v.counts.find((x) => x.group === group && x.status === status);
  expect((counted('drug', 'BEHIND')?.count ?? 0) + (counted('drug', 'NOT_MET')?.count ?? 0)).toBe(
    c.drugBehind.n,
  );
  expect((counted('drug', 'BEHIND')?.assumed ?? 0) + (counted('drug', 'NOT_MET')?.assumed ?? 0)).toBe(
    c.drugBehind.assumed,
  );
  const behind = c.drugBehind.n + c.alcoholBehind.n;
  if (behind > 0) {
    expect(v.level).not.toBe('ok');
    expect(v.problems.join('\n')).toContain(
      `Drug: behind or not met ${said(c.drugBehind.n, c.drugBehind.assumed)}`,
    );
  }
  // A measured failure needs action; failures all on an assumed rate need attention.
  expect(v.level).toBe(
    c.drugBehind.n > c.drugBehind.assumed || c.alcoholBehind.n > c.alcoholBehind.assumed
      ? 'bad'
      : v.problems.length > 0
        ? 'warn'
        : 'ok',
  );
  const html = readFileSync(at('compliance', 'html'), 'utf8');
  // The status chart counts them too, and says which are assumed.
  const desc = /<desc id="chart-status-d">(.*?)<\/desc>/s.exec(html)?.[1] ?? '';
  if (c.drugBehind.n > 0) expect(desc).toMatch(/drug (behind|not met) \d+/);
  if (c.drugBehind.assumed > 0) expect(desc).toMatch(/on an assumed rate/);
  // The furthest-behind chart marks the employers on an assumed rate.
  const bullet = /<desc id="chart-bullet-d">(.*?)<\/desc>/s.exec(html)?.[1] ?? '';
  if (c.onAssumed > 0) expect(bullet).toContain('scored on an assumed rate');
  // The workbook's About sheet carries the same verdict line (checked as text in the xlsx's XML).
  expect(existsSync(at('compliance', 'xlsx'))).toBe(true);

  // Order ageing: stuck, warning and not measured from the CSV; never OK with any of them.
  const orders = csv(at('order-ageing', 'csv'));
  const o = Object.fromEntries(
    (verdicts['order-ageing'] as ReportSummary).figures.map((x) => [x.label, x.value]),
  );
  expect(o['Open orders']).toBe(orders.length.toLocaleString('en-US'));
  expect(o.Stuck).toBe(orders.filter((r) => r.flag === 'STUCK').length.toLocaleString('en-US'));
  expect(o.Warning).toBe(orders.filter((r) => r.flag === 'WARN').length.toLocaleString('en-US'));
  expect(o['Time in status unknown']).toBe(
    orders.filter((r) => r.timeInStatusHours === '').length.toLocaleString('en-US'),
  );
  if (orders.some((r) => r.flag !== 'OK' || r.timeInStatusHours === ''))
    expect(verdicts['order-ageing']?.level).not.toBe('ok');
  // The page shows words for codes (the code in the title) and ages in days only.
  const ageing = readFileSync(at('order-ageing', 'html'), 'utf8');
  expect(ageing).not.toContain('title="ageHours"');
  expect(ageing).toContain('title="ageDays"');
  if (
    ageing.includes('title="dataFlags"') &&
    orders.some((r) => String(r.dataFlags).includes('SINCE_AFTER_AS_OF'))
  )
    expect(ageing).toContain('<span title="SINCE_AFTER_AS_OF">status first seen after the as-of instant');
  expect(ageing).not.toMatch(/<td>[^<]*SINCE_AFTER_AS_OF/);
  return { compliance: v };
}

describe.each(engines)('%s: one verdict per report', (engine) => {
  it('without policies: the page, its verdict file, the dashboard card hold the CSV counts, assumed rates counted', async () => {
    const { dir, db } = await synced(engine);
    const { compliance } = await checkFolder(dir, db, 'v-none');
    // The sandbox has no policy: every failure is on an assumed rate, and says so.
    const behind = compliance.figures.find((f) => f.label === 'Drug: behind or not met');
    expect(behind?.value).toMatch(/^[\d,]+$/);
    if (behind?.value !== '0') expect(behind?.note).toBe('all on an assumed rate');
  }, 300_000);

  it('two --as-of-time runs on one day keep both files, named by their instants', async () => {
    const { dir } = await synced(engine);
    for (const t of ['10:00:00', '11:30:15'])
      await ohs(
        dir,
        'report',
        'unpaid-invoices',
        '--as-of-time',
        `${TEST_ANCHOR}T${t}Z`,
        '--format',
        'csv,html',
        '--out',
        'v-times',
      );
    const files = readdirSync(join(dir, 'v-times'))
      .filter((f) => !f.startsWith('.'))
      .sort();
    const day = TEST_ANCHOR.replace(/-/g, '');
    expect(files).toEqual(
      [
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T100000Z.csv`,
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T100000Z.html`,
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T100000Z.summary.json`,
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T113015Z.csv`,
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T113015Z.html`,
        `unpaid-invoices-${TEST_ANCHOR}-at-${day}T113015Z.summary.json`,
        `unpaid-invoices-trend-${TEST_ANCHOR}-at-${day}T100000Z.csv`,
        `unpaid-invoices-trend-${TEST_ANCHOR}-at-${day}T113015Z.csv`,
      ].sort(),
    );
    const v = JSON.parse(
      readFileSync(
        join(dir, 'v-times', `unpaid-invoices-${TEST_ANCHOR}-at-${day}T113015Z.summary.json`),
        'utf8',
      ),
    ) as ReportSummary;
    expect(v.instant).toBe(`${TEST_ANCHOR}T11:30:15.000Z`);
    // The dashboard shows the later instant's page.
    await ohs(dir, 'dashboard', '--out', 'v-times');
    const dashboard = readFileSync(join(dir, 'v-times', 'index.html'), 'utf8');
    expect(dashboard).toContain(`href="unpaid-invoices-${TEST_ANCHOR}-at-${day}T113015Z.html"`);
    expect(dashboard).not.toContain('T100000Z.html');
  }, 300_000);

  it('after a sync from another base URL, the About line names that one (the first kept as the origin)', async () => {
    const { dir } = await synced(engine);
    const first = sim().url.replace(/\/+$/, '');
    const other = first.replace('127.0.0.1', 'localhost');
    expect(other).not.toBe(first);
    await ohs(dir, 'sync', '--base-url', other);
    await ohs(
      dir,
      'report',
      'unpaid-invoices',
      '--as-of',
      TEST_ANCHOR,
      '--present',
      '--format',
      'html',
      '--out',
      'v-url',
    );
    const html = readFileSync(join(dir, 'v-url', `unpaid-invoices-${TEST_ANCHOR}.html`), 'utf8');
    const line = unesc(/<th scope="row">Mirror<\/th><td[^>]*>(.*?)<\/td>/.exec(html)?.[1] ?? '');
    expect(line).toContain(`mirror of ${other}, latest sync run #`);
    expect(line).toContain(`from ${first})`);
    await ohs(dir, 'dashboard', '--out', 'v-url');
    expect(readFileSync(join(dir, 'v-url', 'index.html'), 'utf8')).toContain(`mirror of ${other}`);
  }, 300_000);

  it('with policies imported: measured failures and assumed ones counted apart, the same everywhere', async () => {
    const { dir, db } = await synced(engine);
    const rows = csv(join(dir, 'v-none', `compliance-${TEST_ANCHOR}.csv`));
    const orgs = [...new Set(rows.map((r) => r.orgId))];
    // Half the employers get their own DOT policy (FMCSA); the rest stay on the assumed rate.
    const own = orgs.slice(0, Math.ceil(orgs.length / 2));
    writeFileSync(
      join(dir, 'verdict-policy.csv'),
      ['orgId,agency,dotRegistrationNumber', ...own.map((id, i) => `${id},FMCSA,${2000001 + i}`)].join('\n'),
    );
    await ohs(dir, 'policy', 'import', 'verdict-policy.csv');
    const { compliance } = await checkFolder(dir, db, 'v-policy');
    const c = complianceCounts(csv(join(dir, 'v-policy', `compliance-${TEST_ANCHOR}.csv`)));
    expect(c.onAssumed).toBeLessThan(c.orgs);
    if (c.drugBehind.n > c.drugBehind.assumed) expect(compliance.level).toBe('bad');
  }, 300_000);
});

describe('retention of report files named with an instant, and of verdict files', () => {
  it('removes old ones alike and keeps what is not a report file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-verdict-retention-'));
    const names = [
      'compliance-2026-06-15.html',
      'compliance-2026-06-15.summary.json',
      'unpaid-invoices-2026-06-15-at-20260615T113015Z.csv',
      'unpaid-invoices-2026-06-15-at-20260615T113015Z.summary.json',
      'unpaid-invoices-trend-2026-06-15-at-20260615T113015Z.csv',
      'notes-2026-06-15.summary.json',
    ];
    const old = new Date(Date.now() - 40 * 86_400_000);
    for (const n of names) {
      writeFileSync(join(dir, n), '{}');
      utimesSync(join(dir, n), old, old);
    }
    const removed = (await applyRetention(dir, 30)).map((f) => f.split('/').pop()).sort();
    expect(removed).toEqual(names.filter((n) => !n.startsWith('notes')).sort());
    expect(readdirSync(dir)).toEqual(['notes-2026-06-15.summary.json']);
  });
});
