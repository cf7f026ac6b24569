import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { asOfDate, parseIsoDate, reportTime } from '../../src/dates.js';
import { asOf, metaKeys, readMeta } from '../../src/mirror/index.js';
import { orgStatus } from '../../src/reports/compliance/index.js';
import { monthEnds } from '../../src/reports/core/ar-trend.js';
import { reportNamed } from '../../src/reports/index.js';
import type { SimRecord } from '../../src/sim/store.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { cliConfig, cliEnv, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The mirror remembers, through the real CLI on each engine: sync; an invoice deleted upstream;
 * and an order item deleted upstream; sync (the mirror finds them gone); the sandbox's truth
 * taken at an instant T; then upstream changes (invoices paid, order items moved and deleted,
 * another invoice deleted, the order item restored); sync. `ohs report unpaid-invoices --as-of-time T`
 * lists exactly the invoices and balances the sandbox held at T, and `order-ageing` exactly its
 * order items in their statuses then (the trend's read at T agrees); without it, the present;
 * the About sheet says which; an instant before the mirror's history begins is refused.
 */
const targets = new Map(engines.map((e) => [e, withTargets(e)] as const));

/** Invoice id -> balance in cents of the open invoices of a truth, as the report lists them. */
function openInvoices(invoices: readonly SimRecord[], asOfDay: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const inv of invoices) {
    if (inv.dropInvoice) continue;
    const cents = Math.round(Number(inv.balance) * 100);
    if (Math.abs(cents) < 1 || String(inv.date) > asOfDay) continue;
    out.set(String(inv.id), cents);
  }
  return out;
}

function listed(dir: string, day: string): Map<string, number> {
  const rows = parse(readFileSync(join(dir, `unpaid-invoices-${day}.csv`), 'utf8'), {
    columns: true,
    bom: true,
  }) as Record<string, string>[];
  // Cancelled invoices are listed with their status, apart from every bucket: not open.
  return new Map(
    rows
      .filter((r) => r.status !== 'cancelled')
      .map((r) => [String(r.invoiceId), Math.round(Number(r.balance) * 100)]),
  );
}

const sorted = <V>(m: Map<string, V>) => [...m.entries()].sort((a, b) => a[0].localeCompare(b[0]));

/** Order item id -> status of a truth's items created by `instant` (the report leaves later ones out). */
function itemStatuses(items: readonly SimRecord[], instant: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of items)
    if (Date.parse(String(o.CreationTimestamp)) <= Date.parse(instant))
      out.set(String(o.id), String(o.c_currentStatusCodeName));
  return out;
}

/** A sheet of a workbook as rows keyed by column title. */
async function sheetRows(file: string, name: string): Promise<Record<string, unknown>[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const ws = wb.getWorksheet(name) as ExcelJS.Worksheet;
  const titles = Array.from(ws.getRow(1).values as unknown[], (v) => String(v ?? '')).slice(1);
  const rows: Record<string, unknown>[] = [];
  ws.eachRow((row, n) => {
    if (n > 1) rows.push(Object.fromEntries(titles.map((t, i) => [t, row.getCell(i + 1).value])));
  });
  return rows;
}

function ageing(dir: string, day: string): Record<string, string>[] {
  return parse(readFileSync(join(dir, `order-ageing-${day}.csv`), 'utf8'), {
    columns: true,
    bom: true,
  }) as Record<string, string>[];
}

describe.each(engines)('%s: reports as of an instant between two syncs', (engine) => {
  // A sandbox of its own per engine: the test changes it.
  const sim = withSim({ scale: 0.05 });
  it('unpaid-invoices, order-ageing and compliance (its Trend at a month end) --as-of-time equal the sandbox truth then; without it, the present', async () => {
    const db = await (targets.get(engine) as () => Promise<string>)();
    const dir = mkdtempSync(join(tmpdir(), `ohs-history-cli-${engine}-`));
    const config = cliConfig(dir);
    const ohs = (args: string[]) =>
      runOhs(['--config', config, ...args, '--db', db], { cwd: dir, env: cliEnv(sim()), timeoutMs: 240_000 });
    const sync = async () => {
      const r = await ohs(['sync', '--full']);
      expect(r.code, r.stderr).toBe(0);
    };
    const invoices = sim().tables.Invoice;
    const items = sim().tables.OrderItem;
    await sync();
    // Deleted upstream and found gone by the next sync: an invoice for good, an order item to be
    // restored later (a deleted invoice id is not read again until a sync asks for it).
    const gone = invoices.all().find((r) => Number(r.balance) > 0) as SimRecord;
    invoices.delete(gone.id);
    const restored = structuredClone(items.all()[3]) as SimRecord;
    items.delete(restored.id);
    await sync();

    const at = new Date().toISOString();
    const day = at.slice(0, 10);
    // Files of an --as-of-time run carry its instant (two instants of a day keep both).
    const dayAt = `${day}-at-${at.slice(0, 19).replace(/[-:]/g, '')}Z`;
    const truthThen = openInvoices(sim().truth().Invoice, day);
    const itemsThen = itemStatuses(sim().truth().OrderItem, at);
    expect(truthThen.has(String(gone.id))).toBe(false);
    expect(itemsThen.has(String(restored.id))).toBe(false);

    const removed = invoices.get([...truthThen.keys()][0] as string) as SimRecord;
    invoices.delete(removed.id);
    const summary = sim().mutate(40);
    expect(summary.paid).toBeGreaterThan(0);
    expect(summary.moved).toBeGreaterThan(0);
    items.insert(restored);
    await sync();
    const truthNow = openInvoices(sim().truth().Invoice, day);
    expect(truthThen.has(String(removed.id))).toBe(true);
    expect(truthNow.has(String(removed.id))).toBe(false);
    expect(sorted(truthNow)).not.toEqual(sorted(truthThen));
    expect(truthThen.size).toBeGreaterThan(5);

    const then = await ohs([
      'report',
      'unpaid-invoices',
      '--as-of-time',
      at,
      '--format',
      'csv',
      '--out',
      'then',
    ]);
    expect(then.code, then.stderr).toBe(0);
    expect(sorted(listed(join(dir, 'then'), dayAt))).toEqual(sorted(truthThen));
    // The Trend CSV: the last 12 month ends, every one before the history (begun today): omitted.
    const trend = parse(readFileSync(join(dir, 'then', `unpaid-invoices-trend-${dayAt}.csv`), 'utf8'), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    expect(trend).toHaveLength(12);
    for (const r of trend) {
      expect(r.note).toMatch(/^omitted: before the mirror's history begins/);
      expect(r.total).toBe('');
    }

    // As known at T there is no "newer balances" warning: the figures are those of T, and the
    // About sheet says so; --present with a past as-of says present figures, and warns loudly.
    expect(then.stderr).not.toContain('BALANCES NEWER');
    const mirrorRead = async (args: string[], out: string) => {
      const r = await ohs(['report', 'unpaid-invoices', ...args, '--format', 'xlsx', '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      const wb = new ExcelJS.Workbook();
      const stem = args[0] === '--as-of-time' ? dayAt : args[1]?.slice(0, 10);
      await wb.xlsx.readFile(join(dir, out, `unpaid-invoices-${stem}.xlsx`));
      const ws = wb.getWorksheet('About') as ExcelJS.Worksheet;
      const lines = new Map<string, string>();
      ws.eachRow((row) => {
        lines.set(String(row.getCell(1).value), String(row.getCell(2).value));
      });
      return { line: lines.get('Mirror as of'), lines, stderr: r.stderr };
    };
    const known = await mirrorRead(['--as-of-time', at], 'about-then');
    expect(known.line).toContain(`mirror as known at ${at}`);
    // The last sync as known at T: the second run (the third ended after T).
    expect(known.lines.get('Last sync of invoice')).toContain('sync run #2 (full, ok,');
    const yesterday = new Date(Date.parse(at) - 86_400_000).toISOString().slice(0, 10);
    const aged = await mirrorRead(['--as-of', yesterday, '--present'], 'about-present');
    expect(aged.line).toMatch(/^present figures \(--present\)/);
    // A warning of the report, a JSON log line naming it.
    expect(aged.stderr).toMatch(
      /"report":"unpaid-invoices".*"msg":"(AS-OF BEFORE THE MIRROR|BALANCES NEWER)/,
    );

    // Order ageing as of T: every item the sandbox held then, in the status it had then (all
    // stages, terminal ones too); its time in status from the statuses seen by T only.
    const ageingArgs = ['report', 'order-ageing', '--option', 'includeTerminal=true', '--format', 'csv'];
    const ageThen = await ohs([...ageingArgs, '--as-of-time', at, '--out', 'then']);
    expect(ageThen.code, ageThen.stderr).toBe(0);
    const rowsThen = ageing(join(dir, 'then'), dayAt);
    expect(sorted(new Map(rowsThen.map((r) => [String(r.orderItemId), String(r.status)])))).toEqual(
      sorted(itemsThen),
    );
    for (const r of rowsThen) {
      expect(r.dataFlags ?? '').not.toContain('SINCE_AFTER_AS_OF');
      if (r.statusSince !== '')
        expect(Date.parse(r.statusSince as string)).toBeLessThanOrEqual(Date.parse(at));
    }
    const itemsNow = itemStatuses(sim().truth().OrderItem, new Date().toISOString());
    const moved = [...itemsThen].filter(([id, st]) => itemsNow.has(id) && itemsNow.get(id) !== st);
    expect(moved.length).toBeGreaterThan(0);
    expect([...itemsThen.keys()].some((id) => !itemsNow.has(id))).toBe(true);

    // Compliance as of T reads the history too: no "read the present" note, no failure.
    const comp = await ohs(['report', 'compliance', '--as-of-time', at, '--format', 'csv', '--out', 'then']);
    expect(comp.code, comp.stderr).toBe(0);
    expect(comp.stderr).not.toContain('Read the mirror as it is now');
    // Its Trend CSV: the month ends of the year up to T, every one before the history (begun
    // today): omitted, with blank figures.
    const compTrend = parse(readFileSync(join(dir, 'then', `compliance-trend-${dayAt}.csv`), 'utf8'), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    const lastEnd = monthEnds(
      { year: Number(day.slice(0, 4)), month: Number(day.slice(5, 7)), day: Number(day.slice(8)) },
      'UTC',
      1,
    )[0] as typeof monthEnds extends (...a: never[]) => (infer E)[] ? E : never;
    expect(compTrend).toHaveLength(lastEnd.day.year === Number(day.slice(0, 4)) ? lastEnd.day.month : 0);
    for (const r of compTrend) {
      expect(r.note).toMatch(/^omitted: before the mirror's history begins/);
      expect(r.orgs).toBe('');
    }
    // The org statuses of the report as of T (its YTD by org sheet), to compare with the trend's.
    const compX = await ohs([
      'report',
      'compliance',
      '--as-of-time',
      at,
      '--format',
      'xlsx',
      '--out',
      'then',
    ]);
    expect(compX.code, compX.stderr).toBe(0);
    const ytdThen = (await sheetRows(join(dir, 'then', `compliance-${dayAt}.xlsx`), 'YTD by org')).filter(
      (r) => !String(r.Org ?? '').startsWith('Total'),
    );
    expect(ytdThen.length).toBeGreaterThan(5);
    const statusCounts = new Map<string, number>();
    for (const r of ytdThen) {
      const s = orgStatus({ drugStatus: r['Drug status'], alcoholStatus: r['Alcohol status'] } as never);
      statusCounts.set(s, (statusCounts.get(s) ?? 0) + 1);
    }

    const now = await ohs(['report', 'unpaid-invoices', '--format', 'csv', '--out', 'now']);
    expect(now.code, now.stderr).toBe(0);
    expect(sorted(listed(join(dir, 'now'), day))).toEqual(sorted(truthNow));
    // Order ageing of the present: the items the sandbox holds now, in their present statuses
    // (the restored one among them).
    const ageNow = await ohs([...ageingArgs, '--out', 'now']);
    expect(ageNow.code, ageNow.stderr).toBe(0);
    const rowsNow = new Map(
      ageing(join(dir, 'now'), day).map((r) => [String(r.orderItemId), String(r.status)]),
    );
    expect(sorted(rowsNow)).toEqual(sorted(itemStatuses(sim().truth().OrderItem, new Date().toISOString())));
    expect(rowsNow.has(String(restored.id))).toBe(true);

    // The order item restored: absent from the mirror as of T, present now, two intervals.
    await withMirror(db, async (m) => {
      const itemAt = (instant: string | undefined) =>
        m.db
          .selectFrom(asOf(m.db, 'orderitem', instant))
          .select('id')
          .where('id', '=', restored.id)
          .where('deleted_at', 'is', null)
          .execute();
      expect(await itemAt(at)).toEqual([]);
      expect((await itemAt(undefined)).length).toBe(1);
      const intervals = await sql<{ valid_from: string; valid_to: string | null }>`
        SELECT valid_from, valid_to FROM orderitem_history WHERE id = ${restored.id} ORDER BY valid_from`.execute(
        m.db,
      );
      expect(intervals.rows.length).toBe(2);
      expect(intervals.rows[0]?.valid_to !== null && (intervals.rows[0]?.valid_to ?? '') < at).toBe(true);
      expect(intervals.rows[1]?.valid_from !== undefined && intervals.rows[1].valid_from > at).toBe(true);
      expect(intervals.rows[1]?.valid_to).toBeNull();
      // The trend's one read of every version (asOfSpan), picked at T: the A/R the sandbox held then.
      const [atT] = await reportNamed('unpaid-invoices').trend(
        {
          db: m.db,
          params: {
            time: reportTime(asOfDate(parseIsoDate(day) ?? { year: 0, month: 1, day: 1 }, 'UTC'), {
              present: true,
            }),
            orgIds: [],
            options: {},
          },
        },
        [
          {
            day: { year: Number(day.slice(0, 4)), month: Number(day.slice(5, 7)), day: Number(day.slice(8)) },
            instant: at,
          },
        ],
      );
      expect(atT?.openInvoices).toBe(truthThen.size);
      expect(atT?.total).toBe([...truthThen.values()].reduce((a, b) => a + b, 0));
      expect(atT?.note).toBeNull();
      // The compliance trend at a month end read as of T (the history holds no past month end
      // yet: the month end scored, the mirror read at T) equals the report run as of T.
      const [compAtT] = await reportNamed('compliance').trend(
        {
          db: m.db,
          params: {
            time: reportTime(asOfDate(parseIsoDate(day) ?? { year: 0, month: 1, day: 1 }, 'UTC'), {
              present: true,
            }),
            orgIds: [],
            options: {},
          },
        },
        [{ day: lastEnd.day, instant: at }],
      );
      expect(compAtT?.note).toBeNull();
      expect(compAtT?.orgs).toBe(ytdThen.length);
      for (const [status, key] of [
        ['MET', 'MET'],
        ['ON_TRACK', 'ON_TRACK'],
        ['PENDING_RESULTS', 'PENDING_RESULTS'],
        ['AT_RISK', 'AT_RISK'],
        ['BEHIND', 'BEHIND'],
        ['NOT_MET', 'NOT_MET'],
        ['N/A', 'noStatus'],
      ] as const)
        expect(compAtT?.[key], status).toBe(statusCounts.get(status) ?? 0);
      expect(compAtT?.drugCompletedYtd).toBe(
        ytdThen.reduce((a, r) => a + Number(r['Drug completed YTD'] ?? 0), 0),
      );
      // Each sync pruned what mirror.historyDays (400) lets go: nothing yet, the cutoff noted.
      const cutoff = await readMeta(m.db, metaKeys.historyPrunedBefore);
      expect(cutoff !== undefined && Date.parse(at) - Date.parse(cutoff) > 399 * 86_400_000).toBe(true);
    });

    // Before the history begins (the first sync ended today): refused, nothing written.
    for (const args of [
      ['--as-of-time', '2026-01-01T00:00:00Z'],
      ['--as-of', '2026-01-01'],
    ]) {
      const early = await ohs(['report', 'unpaid-invoices', ...args, '--format', 'csv', '--out', 'early']);
      expect(early.code).toBe(2);
      expect(early.stderr).toMatch(/^ohs: AS_OF_BEFORE_HISTORY: .*before the mirror's history begins/m);
      expect(early.stdout).toBe('');
    }
    // The reports job decides the instant the same way (src/app/reports.ts mirrorInstant).
    const job = await ohs(['run', 'reports', '--as-of', '2026-01-01']);
    expect(job.code).toBe(2);
    expect(job.stderr).toMatch(/^ohs: AS_OF_BEFORE_HISTORY: --as-of 2026-01-01: the end of that day,/m);
  });
});
