import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { labelOf } from '../../src/render/html/words.js';
import { accountsAtRiskWords } from '../../src/reports/accounts-at-risk/words.js';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { call, TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { pathOf } from '../helpers/sim-data.js';
import { csv, env, syncedSandbox } from './synced-sandbox.js';

/**
 * Accounts at risk and the A/R roll-forward on one synced sandbox, through the real CLI. Accounts
 * at risk: each employer's figures and kinds recomputed here from the three reports' CSVs of the
 * same as-of, without and with policies. The roll-forward: over a period with a payment
 * written back by `ohs apply`, a payment made in the service, a late fee, a cancellation, a
 * restored invoice and a new invoice, the lines are the changes made here, figured by hand in
 * cents, and they reconcile to the cent with the unpaid-invoices ageing as of both ends.
 */
const sim = withSim({ scale: 0.1 });
const synced = syncedSandbox(sim);

const CHROMIUM = '/usr/bin/chromium';

/**
 * A page opened in headless Chromium: its figures (label → text), the ids on it, and anything
 * wrong (console errors, page errors, a request other than the file). Null without Chromium.
 */
async function inChromium(
  file: string,
): Promise<{ figures: Map<string, string>; notes: Map<string, string>; problems: string[] } | null> {
  if (!existsSync(CHROMIUM)) return null;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    const url = pathToFileURL(file).href;
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('request', (r) => {
      if (r.url() !== url) problems.push(`request ${r.url()}`);
    });
    await page.goto(url, { waitUntil: 'load' });
    const pairs = await page.$$eval('.figures div', (els) =>
      els.map((e) => [e.querySelector('dt')?.textContent ?? '', e.querySelector('dd')?.textContent ?? '']),
    );
    // The qualifier under a figure (what of it rests on an assumed rate), where there is one.
    const notes = await page.$$eval('.figures div', (els) =>
      els.map((e) => [
        e.querySelector('dt')?.textContent ?? '',
        e.querySelector('dd.qualifier')?.textContent ?? '',
      ]),
    );
    return {
      figures: new Map(pairs as [string, string][]),
      notes: new Map((notes as [string, string][]).filter(([, n]) => n !== '')),
      problems,
    };
  } finally {
    await browser.close();
  }
}

/** An instant as the roll-forward's file name writes a period's end (UTC, milliseconds after a dot). */
const fileEnd = (iso: string) => {
  const basic = iso.slice(0, 19).replace(/[-:]/g, '');
  const millis = iso.slice(20, 23);
  return `${basic}${millis === '000' ? '' : `.${millis}`}Z`;
};

/** Money as the page shows it (`$1,234.50`, `-$3.00`) in cents. */
const pageCents = (text: string | undefined) => Math.round(Number(String(text).replace(/[$,]/g, '')) * 100);

const cents = (v: unknown) => Math.round(Number(v) * 100);
const sum = (rows: Record<string, string>[], key: string) => rows.reduce((s, r) => s + cents(r[key]), 0);

async function ohs(dir: string, ...args: string[]) {
  const r = await runOhs(args, { cwd: dir, env });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** The ageing's net total as of an instant, from its own CSV (`ohs report unpaid-invoices --as-of-time`). */
async function ageingTotal(dir: string, at: string, out: string): Promise<number> {
  const r = await ohs(dir, 'report', 'unpaid-invoices', '--as-of-time', at, '--format', 'csv', '--out', out);
  const file = join(dir, r.stdout.trim().split('\n')[0] as string);
  return sum(
    csv(file).filter((row) => row.status === 'open'),
    'totalDue',
  );
}

/** The sandbox's A/R by hand: open, not cancelled, dated by today, in cents. */
function truthTotal(): number {
  const today = new Date().toISOString().slice(0, 10);
  return sim()
    .truth()
    .Invoice.filter((i) => !i.dropInvoice && String(i.date).slice(0, 10) <= today)
    .reduce((s, i) => s + cents(i.balance ?? 0), 0);
}

const admin = async (body: Record<string, unknown>) => {
  const r = await call(sim(), 'POST', '/__sim/invoice', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Record<string, unknown>;
};

/** The CSV columns, in order (docs/reports.md). */
const ACCOUNT_KEYS = [
  'orgId',
  'org',
  'kinds',
  'kindCount',
  'complianceStatus',
  'complianceBasis',
  'drugStatus',
  'alcoholStatus',
  'openBalance',
  'balance91Plus',
  'oldestDaysPastDue',
  'openOrders',
  'onHold',
  'stuck',
  'lastDrugAlcoholOrder',
  'daysSinceLastOrder',
  'complianceEvidence',
  'invoiceEvidence',
  'orderEvidence',
  'decidingOrderId',
  'decidingOrderProduct',
  'decidingOrderCreated',
];
const ROLLFORWARD_KEYS = [
  'invoiceId',
  'orgId',
  'org',
  'invoiceDate',
  'opening',
  'new',
  'found',
  'lateFees',
  'increases',
  'decreases',
  'decreasesApplied',
  'decreasesElsewhere',
  'cancellations',
  'restorations',
  'removed',
  'closing',
  'appliedPayments',
  'unknown',
];

const rank: Record<string, number> = {
  NOT_MET: 0,
  BEHIND: 0,
  AT_RISK: 1,
  PENDING_RESULTS: 2,
  ON_TRACK: 3,
  MET: 4,
};
const BEHIND = ['NOT_MET', 'BEHIND', 'AT_RISK'];
const ASSUMED = ' (assumed rate)';

/** Each employer's row, recomputed by hand from the three reports' CSVs in `out` (as-of TEST_ANCHOR). */
function expectedRows(dir: string, out: string, allOrders: string): Map<string, Record<string, unknown>> {
  const file = (name: string) => join(dir, out, `${name}-${TEST_ANCHOR}.csv`);
  const instant = Date.parse(`${TEST_ANCHOR}T00:00:00Z`) + 86_400_000; // the end of the as-of day
  const orgs = new Map<string, Record<string, unknown>>();
  const of = (id: string) => {
    let o = orgs.get(id);
    if (o === undefined) {
      o = {
        openBalance: 0,
        balance91Plus: 0,
        oldest: null,
        open: 0,
        onHold: 0,
        stuck: 0,
        last: null,
        status: null,
        basis: 'none',
      };
      orgs.set(id, o);
    }
    return o;
  };
  const lastMonth = new Map<string, Record<string, string>>();
  for (const r of csv(file('compliance'))) {
    const seen = lastMonth.get(r.orgId as string);
    if (seen === undefined || Number(r.month) > Number(seen.month)) lastMonth.set(r.orgId as string, r);
  }
  for (const [id, r] of lastMonth) {
    const statuses = [r.drugStatus, r.alcoholStatus].map((s) => String(s));
    const scored = statuses.map((s) => s.replace(ASSUMED, '')).filter((s) => s in rank);
    const o = of(id);
    o.status =
      scored.length === 0
        ? statuses[0]?.replace(ASSUMED, '')
        : scored.sort((a, b) => (rank[a] as number) - (rank[b] as number))[0];
    o.basis = statuses.some((s) => s.endsWith(ASSUMED)) ? 'assumed' : 'measured';
  }
  for (const r of csv(file('unpaid-invoices')).filter((x) => x.status === 'open')) {
    const o = of(r.orgId as string);
    o.openBalance = (o.openBalance as number) + cents(r.totalDue);
    if (r.bucket === '91+') o.balance91Plus = (o.balance91Plus as number) + cents(r.totalDue);
    const days = Number(r.daysPastDue);
    if (cents(r.totalDue) > 0 && days > 0) o.oldest = Math.max((o.oldest as number | null) ?? 0, days);
  }
  for (const r of csv(file('order-ageing'))) {
    const o = of(r.orgId as string);
    o.open = (o.open as number) + 1;
    if (r.stage === 'ON_HOLD') o.onHold = (o.onHold as number) + 1;
    if (r.flag === 'STUCK') o.stuck = (o.stuck as number) + 1;
  }
  for (const r of csv(join(dir, allOrders, `order-ageing-${TEST_ANCHOR}.csv`))) {
    if (r.family !== 'drug' && r.family !== 'alcohol') continue;
    const o = of(r.orgId as string);
    if (o.last === null || String(r.createdAt) > String(o.last)) {
      o.last = r.createdAt;
      o.lastOrder = [r.orderItemId, r.product, r.createdAt];
    }
  }
  for (const o of orgs.values()) {
    const behind = BEHIND.includes(String(o.status));
    const recent = o.last !== null && instant - Date.parse(String(o.last)) <= 30 * 86_400_000;
    const kinds: string[] = [];
    if (behind && !recent) kinds.push('STOPPED_TESTING');
    if ((o.balance91Plus as number) > 0 && recent) kinds.push('TESTING_UNPAID');
    if (behind && (o.onHold as number) > 0) kinds.push('ON_HOLD_AND_BEHIND');
    o.kinds = kinds.join(';');
  }
  return orgs;
}

/** The accounts-at-risk CSV of `out` against the rows recomputed from the three reports' CSVs. */
async function checkAccounts(
  dir: string,
  out: string,
  options: string[] = [],
): Promise<Record<string, string>[]> {
  await ohs(
    dir,
    'report',
    'order-ageing',
    '--as-of',
    TEST_ANCHOR,
    '--present',
    '--option',
    'includeTerminal=true',
    ...options,
    '--format',
    'csv',
    '--out',
    `${out}-all-orders`,
  );
  const expected = expectedRows(dir, out, `${out}-all-orders`);
  const rows = csv(join(dir, out, `accounts-at-risk-${TEST_ANCHOR}.csv`));
  expect(rows.length).toBe(expected.size);
  expect(Object.keys(rows[0] ?? {})).toEqual(ACCOUNT_KEYS);
  for (const r of rows) {
    const e = expected.get(r.orgId as string) as Record<string, unknown>;
    const where = `org ${r.orgId}`;
    expect(r.kinds, where).toBe(e.kinds);
    expect(Number(r.kindCount), where).toBe(String(e.kinds) === '' ? 0 : String(e.kinds).split(';').length);
    expect(r.complianceStatus, where).toBe(e.status ?? '');
    expect(r.complianceBasis, where).toBe(e.basis);
    expect(cents(r.openBalance), where).toBe(e.openBalance);
    expect(cents(r.balance91Plus), where).toBe(e.balance91Plus);
    expect(r.oldestDaysPastDue, where).toBe(e.oldest === null ? '' : String(e.oldest));
    expect([r.openOrders, r.onHold, r.stuck].map(Number), where).toEqual([e.open, e.onHold, e.stuck]);
    expect(r.lastDrugAlcoholOrder, where).toBe(e.last === null ? '' : String(e.last));
    // The order deciding STOPPED_TESTING or TESTING_UNPAID is cited: the last drug or alcohol
    // order in the order ageing with terminal items (it may be completed: in no open-items file).
    const decides = /STOPPED_TESTING|TESTING_UNPAID/.test(String(e.kinds));
    expect([r.decidingOrderId, r.decidingOrderProduct, r.decidingOrderCreated], where).toEqual(
      decides && e.lastOrder !== undefined ? e.lastOrder : ['', '', ''],
    );
    // The keys of its evidence rows in the three reports of the same as-of.
    if (e.status !== null)
      expect(r.complianceEvidence).toMatch(
        new RegExp(`^compliance-${TEST_ANCHOR}\\.csv: orgId=${r.orgId}, year=\\d{4}, month=\\d+$`),
      );
  }
  // Sorted by the number of kinds, then the 91+ balance.
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1], rows[i]] as Record<string, string>[];
    const order =
      Number(a?.kindCount) - Number(b?.kindCount) || cents(a?.balance91Plus) - cents(b?.balance91Plus);
    expect(order, `row ${i}`).toBeGreaterThanOrEqual(0);
  }
  return rows;
}

describe.each(engines)('%s: accounts-at-risk', (engine) => {
  it('without policies: every employer joined from the three CSVs, kinds by their rules, never OK over assumed rates', async () => {
    const { dir, stderr } = await synced(engine);
    const rows = await checkAccounts(dir, 'out');
    expect(rows.some((r) => r.kinds !== '')).toBe(true);
    expect(rows.filter((r) => r.complianceBasis === 'measured')).toEqual([]);
    // The verdict the command printed (the same object the page and the workbook show).
    // Its line: `accounts-at-risk: N detail rows, W warnings ...: VERDICT`.
    const said = stderr
      .split('\n')
      .find((l) => l.startsWith('accounts-at-risk: ') && /detail rows?,/.test(l))
      ?.replace(/^accounts-at-risk: [^:]*: /, 'accounts-at-risk: ');
    expect(said).toMatch(/^accounts-at-risk: (Needs attention|Action needed): /);
    expect(said).toContain('scored on an assumed rate');
    // A bad threshold: one line naming the option and the value, exit 2, nothing written.
    const bad = await runOhs(
      ['report', 'accounts-at-risk', '--option', 'recentOrderDays=0', '--out', 'aar-bad'],
      { cwd: dir, env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe(
      'ohs: REPORT_PARAM_INVALID: accounts-at-risk: options.recentOrderDays: expected a whole number from 1 to 366, got `0`',
    );
    expect(existsSync(join(dir, 'aar-bad'))).toBe(false);
  }, 300_000);

  it('with policies and orders on hold: measured where a policy is, ON_HOLD_AND_BEHIND, links to the evidence rows', async () => {
    const { dir } = await synced(engine);
    const orgIds = [
      ...new Set(csv(join(dir, 'out', `compliance-${TEST_ANCHOR}.csv`)).map((r) => r.orgId)),
    ].slice(0, 4);
    const policies = join(dir, `policies-${engine}.csv`);
    writeFileSync(
      policies,
      `orgId,program,agency,rpMinDrug,rpMinAlc,dotRegistrationNumber,parentOrgId\n${orgIds.map((id) => `${id},NON_DOT,,50,10,,`).join('\n')}\n`,
    );
    await ohs(dir, 'policy', 'import', policies);
    const hold = ['--option', 'statusStage={"COL":"ON_HOLD"}'];
    await ohs(
      dir,
      'report',
      'all',
      '--as-of',
      TEST_ANCHOR,
      '--present',
      ...hold,
      '--format',
      'csv,html',
      '--out',
      'out-policies',
    );
    const rows = await checkAccounts(dir, 'out-policies', hold);
    for (const r of rows.filter((x) => orgIds.includes(x.orgId))) expect(r.complianceBasis).toBe('measured');
    expect(rows.some((r) => r.kinds?.includes('ON_HOLD_AND_BEHIND'))).toBe(true);
    // The page links each row to the same org's row on the other pages of the same as-of.
    const page = readFileSync(join(dir, 'out-policies', `accounts-at-risk-${TEST_ANCHOR}.html`), 'utf8');
    const first = rows.find((r) => r.complianceEvidence !== '' && r.invoiceEvidence !== '') as Record<
      string,
      string
    >;
    for (const name of ['compliance', 'unpaid-invoices']) {
      expect(page).toContain(`href="${name}-${TEST_ANCHOR}.html#org-${first.orgId}"`);
      expect(readFileSync(join(dir, 'out-policies', `${name}-${TEST_ANCHOR}.html`), 'utf8')).toContain(
        `id="org-${first.orgId}"`,
      );
    }
    // The verdict: Action needed when a kind rests on measured figures (or on A/R alone), else
    // needs attention (assumed rates and the joined reports' warnings are never OK).
    const verdict = JSON.parse(
      readFileSync(join(dir, 'out-policies', `accounts-at-risk-${TEST_ANCHOR}.summary.json`), 'utf8'),
    ) as { level: string };
    const measured = rows.some(
      (r) => r.kinds !== '' && (r.complianceBasis === 'measured' || r.kinds?.includes('TESTING_UNPAID')),
    );
    expect(verdict.level).toBe(measured ? 'bad' : 'warn');
    // In Chromium: the CSV's figures, nothing fetched, no error.
    const shown = await inChromium(join(dir, 'out-policies', `accounts-at-risk-${TEST_ANCHOR}.html`));
    if (shown !== null) {
      expect(shown.problems).toEqual([]);
      expect(shown.figures.get('Employers')).toBe(String(rows.length));
      expect(shown.figures.get('At risk')).toBe(String(rows.filter((r) => r.kinds !== '').length));
      for (const kind of ['STOPPED_TESTING', 'TESTING_UNPAID', 'ON_HOLD_AND_BEHIND']) {
        const of = rows.filter((r) => r.kinds?.split(';').includes(kind));
        expect(shown.figures.get(labelOf(kind, accountsAtRiskWords)), kind).toBe(String(of.length));
        // The value a number alone; the part on an assumed rate (never TESTING_UNPAID, which rests
        // on A/R and orders) said under it.
        const assumed =
          kind === 'TESTING_UNPAID' ? 0 : of.filter((r) => r.complianceBasis === 'assumed').length;
        expect(shown.notes.get(labelOf(kind, accountsAtRiskWords)), kind).toBe(
          assumed === 0
            ? undefined
            : assumed === of.length
              ? 'all on an assumed rate'
              : `${assumed} on ${assumed === 1 ? 'an assumed rate' : 'assumed rates'}`,
        );
      }
    }
  }, 300_000);
});

describe.each(engines)('%s: ar-rollforward', (engine) => {
  it('reconciles to the cent over payments, a late fee, a cancellation, a restoration and a new invoice', async () => {
    const { dir } = await synced(engine);
    // Before the history begins: refused, one line, a stable code, nothing written.
    const early = await runOhs(
      ['report', 'ar-rollforward', '--from', '2026-01-01', '--to', '2026-02-01', '--out', 'rf-early'],
      { cwd: dir, env },
    );
    expect(early.code).toBe(2);
    expect(early.stderr.split('\n')[0]).toMatch(
      /^ohs: AS_OF_BEFORE_HISTORY: ar-rollforward: the period starts 2026-01-01T00:00:00.000Z, before the mirror's history begins/,
    );
    expect(existsSync(join(dir, 'rf-early'))).toBe(false);

    // The sandbox is shared by the engines' tests: the mirror first catches up with it.
    await ohs(dir, 'sync', 'invoice');
    const invoices = sim()
      .truth()
      .Invoice.filter((i) => Number(i.balance) > 60 && !i.dropInvoice);
    const [paid, fee, cancelled, elsewhere] = invoices.slice(0, 4).map((i) => String(i.id));
    const restored = sim()
      .truth()
      .Invoice.find((i) => Number(i.balance) > 0 && i.dropInvoice);
    expect(restored).toBeDefined();
    const balanceOf = (id: string | undefined) => cents(sim().tables.Invoice.get(String(id))?.balance);
    const cancelledBalance = balanceOf(cancelled);
    const restoredBalance = balanceOf(String(restored?.id));
    const opening = truthTotal();

    await new Promise((r) => setTimeout(r, 1100));
    const from = new Date().toISOString();
    // A payment written back by the tool: the outbox, then `ohs apply`.
    const file = join(dir, `pay-${engine}.csv`);
    writeFileSync(file, `InvoiceId,amountToPay\n${paid},50.00\n`);
    await ohs(dir, 'plan', file, '--op', 'payment');
    await ohs(dir, 'apply');
    // Before any sync after it: the payment is not seen yet, and the page says so.
    const before = new Date(Date.now() + 1000).toISOString();
    await new Promise((r) => setTimeout(r, 1100));
    await ohs(
      dir,
      'report',
      'ar-rollforward',
      '--from',
      from,
      '--to',
      before,
      '--format',
      'csv,xlsx,html',
      '--out',
      'rf-before',
    );
    // Both ends of the period name the files.
    const beforeStem = join(dir, 'rf-before', `ar-rollforward-${fileEnd(from)}-${fileEnd(before)}`);
    const beforeRows = csv(`${beforeStem}.csv`);
    expect(sum(beforeRows, 'decreasesApplied')).toBe(5000);
    const verdictBefore = JSON.parse(readFileSync(`${beforeStem}.summary.json`, 'utf8')) as {
      level: string;
      problems: string[];
    };
    expect(verdictBefore.level).toBe('warn');
    expect(verdictBefore.problems.join()).toContain('1 payment applied not seen by a sync yet');

    // Changes in the service: a late fee, a cancellation, a restoration, a new invoice, a payment.
    await admin({ action: 'lateFee', id: fee, amount: 25 });
    await admin({ action: 'cancel', id: cancelled });
    await admin({ action: 'restore', id: restored?.id });
    const created = await admin({
      action: 'create',
      OrgId: restored?.OrgId,
      amount: 123.45,
      date: from.slice(0, 10),
    });
    const pay = await call(sim(), 'POST', pathOf('createPayment'), { InvoiceId: elsewhere, amountToPay: 10 });
    expect(pay.status).toBe(200);
    await ohs(dir, 'sync', 'invoice');
    await new Promise((r) => setTimeout(r, 1100));
    const to = new Date().toISOString();
    const closing = truthTotal();

    await ohs(
      dir,
      'report',
      'ar-rollforward',
      '--from',
      from,
      '--to',
      to,
      '--format',
      'csv,xlsx,html',
      '--out',
      'rf',
    );
    const stem = join(dir, 'rf', `ar-rollforward-${fileEnd(from)}-${fileEnd(to)}`);
    const rows = csv(`${stem}.csv`);
    expect(Object.keys(rows[0] ?? {})).toEqual(ROLLFORWARD_KEYS);
    const line = (key: string) => sum(rows, key);
    // By hand: what was done above.
    expect(line('opening')).toBe(opening);
    expect(line('new')).toBe(12345);
    // The late fee on a line of its own (the lateFee field's rise).
    expect(line('lateFees')).toBe(2500);
    expect(line('increases')).toBe(0);
    expect(line('found')).toBe(0);
    expect(line('decreases')).toBe(6000);
    expect(line('decreasesApplied')).toBe(5000);
    expect(line('decreasesElsewhere')).toBe(1000);
    expect(line('cancellations')).toBe(cancelledBalance);
    expect(line('restorations')).toBe(restoredBalance);
    expect(line('removed')).toBe(0);
    expect(line('closing')).toBe(closing);
    expect(closing).toBe(opening + 12345 + 2500 - 6000 - cancelledBalance + restoredBalance);
    // Invoice by invoice, the right lines.
    const row = (id: unknown) => rows.find((r) => r.invoiceId === String(id)) ?? {};
    expect(cents(row(paid).decreasesApplied)).toBe(5000);
    expect(cents(row(elsewhere).decreasesElsewhere)).toBe(1000);
    expect(cents(row(fee).lateFees)).toBe(2500);
    expect(cents(row(cancelled).cancellations)).toBe(cancelledBalance);
    expect(cents(row(restored?.id).restorations)).toBe(restoredBalance);
    expect(cents(row(created.id).new)).toBe(12345);
    // Opening and closing are the ageing's own totals as of both instants.
    expect(await ageingTotal(dir, from, 'ageing-from')).toBe(opening);
    expect(await ageingTotal(dir, to, 'ageing-to')).toBe(closing);
    // The payment applied is matched with the drop the sync saw; the verdict is OK.
    const verdict = JSON.parse(readFileSync(`${stem}.summary.json`, 'utf8')) as {
      level: string;
      figures: { label: string; value: string }[];
    };
    expect(verdict.level).toBe('ok');
    expect(verdict.figures.find((f) => f.label === 'Reconciles to the cent')?.value).toBe('yes');
    expect(verdict.figures.find((f) => f.label === 'Payments applied: matched')?.value).toBe('1');
    const shown = await inChromium(`${stem}.html`);
    if (shown !== null) {
      expect(shown.problems).toEqual([]);
      expect(pageCents(shown.figures.get('Opening A/R'))).toBe(line('opening'));
      expect(pageCents(shown.figures.get('+ New invoices'))).toBe(line('new'));
      expect(pageCents(shown.figures.get('− Decreases'))).toBe(line('decreases'));
      expect(pageCents(shown.figures.get('− Cancellations'))).toBe(line('cancellations'));
      expect(pageCents(shown.figures.get('+ Restorations'))).toBe(line('restorations'));
      expect(pageCents(shown.figures.get('Closing A/R'))).toBe(line('closing'));
    }
  }, 300_000);
});
