import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { csv, env, type Synced, syncedSandbox } from './synced-sandbox.js';

/**
 * End to end: `ohs sync` the sandbox into a mirror of each engine, `ohs report all` from each,
 * and check the CSVs against figures computed here, independently, from the sandbox's truth:
 * totals per ageing bucket, each org's annual targets, the set of open order items. The same
 * truth synced into SQLite and into PostgreSQL gives the same CSVs, byte for byte.
 */
const sim = withSim({ scale: 0.1 });
const syncedAndReported = syncedSandbox(sim);

const cents = (s: string) => Math.round(Number(s) * 100);
const dayMs = 86_400_000;

/** OrgMonth label → [year, month], for the label forms the sandbox writes. */
function parseLabel(label: unknown): [number, number] | undefined {
  const s = String(label);
  let m = /^(\d{4})-(\d{1,2})$/.exec(s);
  if (m !== null) return [Number(m[1]), Number(m[2])];
  m = /^(\d{1,2})\/(\d{4})$/.exec(s);
  if (m !== null) return [Number(m[2]), Number(m[1])];
  return undefined;
}

describe.each(engines)('%s: reports on a synced sandbox agree with the sandbox truth', (engine) => {
  it('unpaid-invoice buckets, compliance targets per org, and the open order items', async () => {
    const { dir, stderr, stdout } = await syncedAndReported(engine);
    const r = { stderr, stdout };
    // Every run says what it wrote, and the data's problems, on stderr.
    expect(r.stderr).toMatch(/^compliance: \d+ detail rows?, \d+ warnings?/m);
    expect(r.stderr).toMatch(/^unpaid-invoices: \d+ detail rows?, \d+ warnings?/m);
    // The warnings themselves are log lines of their report (JSON here), grouped by the terminal.
    expect(r.stderr).toMatch(/"report":"unpaid-invoices".*"msg":"\d+ cancelled invoice\(s\)/);
    expect(r.stderr).toMatch(
      /"report":"order-ageing".*"msg":"\d+ item\(s\) of products in no product family are aged on the generic thresholds/,
    );
    for (const f of r.stdout.trim().split('\n'))
      expect(statSync(f.startsWith('/') ? f : join(dir, f)).mode & 0o777).toBe(0o600);
    const truth = sim().truth();
    const asOf = Date.parse(`${TEST_ANCHOR}T00:00:00Z`);

    // Unpaid invoices: open balances bucketed by days past due.
    const expected: Record<string, number> = {};
    for (const inv of truth.Invoice) {
      // A cancelled invoice (dropInvoice filled) is owed by nobody.
      if (inv.dropInvoice) continue;
      const balance = Math.round(Number(inv.balance) * 100);
      if (Math.abs(balance) < 1 || Date.parse(`${String(inv.date)}T00:00:00Z`) > asOf) continue;
      const due = Date.parse(`${String(inv.dateDue ?? inv.date)}T00:00:00Z`);
      const days = Math.round((asOf - due) / dayMs);
      const bucket =
        balance < 0
          ? 'Credits'
          : days <= 0
            ? 'Current'
            : days <= 30
              ? '1-30'
              : days <= 60
                ? '31-60'
                : days <= 90
                  ? '61-90'
                  : '91+';
      expected[bucket] = (expected[bucket] ?? 0) + balance;
    }
    const got: Record<string, number> = {};
    for (const row of csv(join(dir, 'out', `unpaid-invoices-${TEST_ANCHOR}.csv`))) {
      if (row.status === 'cancelled') continue;
      got[row.bucket ?? ''] = (got[row.bucket ?? ''] ?? 0) + cents(row.totalDue ?? '0');
    }
    expect(got).toEqual(expected);

    // Compliance: with no policies every org is at the default FMCSA rates (50 / 10); as-of
    // mid-June, the year runs through May (m = 5).
    const m = 5;
    const year = Number(TEST_ANCHOR.slice(0, 4));
    const byOrg = new Map<number, Map<number, number>>();
    for (const row of truth.OrgMonth) {
      const ym = parseLabel(row.label);
      if (ym === undefined || ym[0] !== year || ym[1] > m) continue;
      const months = byOrg.get(row.OrgId as number) ?? new Map<number, number>();
      months.set(ym[1], Number(row.countEligibleRandomPool));
      byOrg.set(row.OrgId as number, months);
    }
    const targets = new Map<number, [number, number]>();
    for (const [org, months] of byOrg) {
      const first = Math.min(...months.keys());
      let pool = 0;
      let exposure = 0;
      for (let i = 1; i <= m; i++) {
        if (i >= first) pool = months.get(i) ?? pool;
        exposure += i >= first ? pool : 0;
      }
      // ceil(rate% × (exposure + pool_m × (12 − m)) / 12 / 100), in integers.
      const base = exposure + pool * (12 - m);
      targets.set(org, [Math.ceil((50 * base) / 1200), Math.ceil((10 * base) / 1200)]);
    }
    const compliance = csv(join(dir, 'out', `compliance-${TEST_ANCHOR}.csv`)).filter(
      (row) => Number(row.month) === m,
    );
    expect(compliance.length).toBe(targets.size);
    for (const row of compliance) {
      expect([Number(row.drugAnnualTarget), Number(row.alcoholAnnualTarget)], `org ${row.orgId}`).toEqual(
        targets.get(Number(row.orgId)),
      );
      expect(row.rateSource).toBe('default:FMCSA');
    }

    // Order ageing: exactly the order items still open, of every product, created by
    // the as-of instant (the end of the as-of day).
    const end = asOf + dayMs;
    const open = truth.OrderItem.filter(
      (o) => o.isNotModifiable === false && Date.parse(String(o.CreationTimestamp)) <= end,
    )
      .map((o) => Number(o.id))
      .sort((a, b) => a - b);
    const ageing = csv(join(dir, 'out', `order-ageing-${TEST_ANCHOR}.csv`))
      .map((row) => Number(row.orderItemId))
      .sort((a, b) => a - b);
    expect(ageing).toEqual(open);

    // The report name after --org (which takes several ids) is the report, not an org.
    const org = compliance[0]?.orgId ?? '';
    const named = await runOhs(
      ['report', '--as-of', TEST_ANCHOR, '--present', '--org', org, 'compliance', '--format', 'csv'],
      {
        cwd: dir,
        env,
      },
    );
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout.trim()).toMatch(/compliance-.*\.csv$/);
    expect(named.stderr).toMatch(/^compliance: 5 detail rows, \d+ warnings?/m);
    const twice = await runOhs(['report', 'order-ageing', '--org', org, 'compliance'], { cwd: dir, env });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("--org 'compliance': a report name among the --org values");
    // An option no report knows is an error naming it and the valid ones.
    const bad = await runOhs(['report', 'unpaid-invoices', '--option', 'agingBasi=invoiceDate'], {
      cwd: dir,
      env,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("unknown option 'agingBasi'");
    expect(bad.stderr).toContain('agingBasis, periodDays');
  }, 300_000);

  it('order ageing right after a sync, and the same instant asked later with --as-of-time: equal row for row', async () => {
    const { dir } = await syncedAndReported(engine);
    const synced = await runOhs(['sync'], { cwd: dir, env, timeoutMs: 240_000 });
    expect(synced.code, synced.stderr).toBe(0);
    const files = async (...args: string[]) => {
      const r = await runOhs(['report', 'order-ageing', ...args], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
      const out = r.stdout.trim().split('\n');
      const at = (ext: string) => {
        const f = out.find((x) => x.endsWith(ext)) ?? '';
        return f.startsWith('/') ? f : join(dir, f);
      };
      return { csv: at('.csv'), xlsx: at('.xlsx') };
    };
    const live = await files('--format', 'csv,xlsx', '--out', 'live');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(live.xlsx);
    let stated = '';
    wb.getWorksheet('About')?.eachRow((row) => {
      if (row.getCell(1).text === 'As-of instant') stated = row.getCell(2).text;
    });
    // The moment the report ran, not the start of the sync before it.
    expect(stated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z: the moment the report ran/);
    const instant = stated.slice(0, 20);
    const later = await files('--as-of-time', instant, '--format', 'csv', '--out', 'later');
    const a = csv(live.csv);
    const b = csv(later.csv);
    expect(a.length).toBeGreaterThan(10);
    expect(b).toEqual(a);
    // ORDERED is known from creation; no item whose time in status is not known is OK past its
    // stage's warn age (docs/reports.md, Order ageing: ORDERED 24, COLLECTED 24, AT_LAB 48, MRO 72 hours).
    const warn: Record<string, number> = {
      ORDERED: 24,
      COLLECTED: 24,
      AT_LAB: 48,
      MRO: 72,
      ON_HOLD: 72,
      OTHER: 72,
    };
    const ordered = a.filter((r) => r.stage === 'ORDERED');
    expect(ordered.length).toBeGreaterThan(0);
    for (const r of ordered) expect([r.orderItemId, r.flagBasis]).toEqual([r.orderItemId, 'creation']);
    for (const r of a)
      if (
        r.flagBasis !== 'history' &&
        r.flagBasis !== 'creation' &&
        Number(r.ageHours) >= (warn[r.stage ?? ''] ?? 0)
      )
        expect([r.orderItemId, r.flag]).not.toEqual([r.orderItemId, 'OK']);
  }, 300_000);
});

describe.runIf(engines.length > 1)('the same truth on every engine', () => {
  it('gives the same CSV of every report, byte for byte, and the same stderr', async () => {
    const all = await Promise.all(engines.map((e) => syncedAndReported(e)));
    const [first, ...others] = all as [Synced, ...Synced[]];
    // The roll-forward is named by its period, whose default on a mirror younger than a month
    // starts at that mirror's own history (each engine synced apart): checked by its name only.
    // The changes report too: named by its period, which ends at the run's instant.
    const rollForward = (f: string) => f.startsWith('ar-rollforward-') || f.startsWith('changes-');
    const csvs = (dir: string) =>
      readdirSync(join(dir, 'out'))
        .filter((f) => f.endsWith('.csv'))
        .sort();
    expect(csvs(first.dir).filter(rollForward)).toHaveLength(2);
    // The run's controls compare the roll-forward too, whose period ends at each engine's own
    // sync: there on every engine, compared by its verdict in test/agreement, not byte for byte.
    const controls = (f: string) => f.startsWith('controls-');
    for (const run of [first, ...others]) expect(csvs(run.dir).filter(controls)).toHaveLength(1);
    const files = csvs(first.dir).filter((f) => !rollForward(f) && !controls(f));
    expect(files).toEqual(
      [
        'accounts-at-risk',
        'catch-up',
        'compliance',
        'compliance-trend',
        'order-ageing',
        'unpaid-invoices',
        'unpaid-invoices-trend',
      ].map((n) => `${n}-${TEST_ANCHOR}.csv`),
    );
    for (const [i, other] of others.entries()) {
      const engine = engines[i + 1];
      expect(csvs(other.dir).filter((f) => !rollForward(f) && !controls(f))).toEqual(files);
      for (const f of files) {
        const a = readFileSync(join(first.dir, 'out', f), 'utf8');
        const b = readFileSync(join(other.dir, 'out', f), 'utf8');
        expect(a.split('\n').length, f).toBeGreaterThan(2);
        // Line by line first, so a difference names its row; then the whole file, byte for byte.
        const al = a.split('\n');
        const bl = b.split('\n');
        for (let k = 0; k < Math.max(al.length, bl.length); k++) {
          expect(bl[k], `${f} line ${k + 1}: ${engines[0]} vs ${engine}`).toBe(al[k]);
        }
        expect(
          Buffer.compare(readFileSync(join(first.dir, 'out', f)), readFileSync(join(other.dir, 'out', f))),
        ).toBe(0);
      }
      // The report lines and data warnings (the NDJSON log lines carry their time, pid and ms).
      const said = (stderr: string) => stderr.split('\n').filter((l) => !l.startsWith('{'));
      expect(said(first.stderr).length).toBeGreaterThan(3);
      expect(said(other.stderr), `report warnings: ${engines[0]} vs ${engine}`).toEqual(said(first.stderr));
    }
  }, 300_000);
});
