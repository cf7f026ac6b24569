import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import { sqliteDriver } from '../src/mirror/index.js';
import { type Column, type ReportResult, type Row, writeReport } from '../src/render/index.js';
import { drained } from '../src/render/streams.js';
import { numFmtOf, sheetBacklog } from '../src/render/xlsx-renderer.js';
import { benchRenderHtml } from './render-html.js';
import { defaults, measure, table } from './sandbox.js';

const { Database } = sqliteDriver();

/**
 * Rendering: a million rows (times scale) of a synthetic 12-column report, streamed from a real
 * SQLite table with better-sqlite3's iterate(), through writeReport into xlsx and CSV; each beside
 * the ceiling, a plain loop over the same statement writing the same cells with exceljs's
 * streaming writer or csv-stringify alone (no validation, no dispatch on column types), in the
 * same run. The plain xlsx loop gets the two things any correct streaming loop needs as well: one
 * style object per column, and the same wait for exceljs's backlog to drain (without it memory
 * grows with the report). Targets: at least 90% of the ceiling's rate, peak RSS under 300 MB.
 * writeReport does more than the ceiling: print setup, widths from the first rows, conditional
 * formatting, a summary sheet moved first, the SHA-256 of the detail on the About sheet.
 */
const columns: Column[] = [
  { key: 'orgId', title: 'Org ID', type: 'integer' },
  { key: 'org', title: 'Org', type: 'string', width: 28 },
  { key: 'invoiceId', title: 'Invoice', type: 'string' },
  { key: 'invoiceDate', title: 'Invoice date', type: 'date' },
  { key: 'createdAt', title: 'Created at', type: 'datetime' },
  { key: 'daysPastDue', title: 'Days past due', type: 'integer' },
  { key: 'bucket', title: 'Bucket', type: 'string' },
  { key: 'balance', title: 'Balance', type: 'money' },
  { key: 'lateFee', title: 'Late fee', type: 'money' },
  { key: 'drugRate', title: 'Drug rate', type: 'percent' },
  { key: 'ageHours', title: 'Age (hours)', type: 'number', decimals: 1 },
  { key: 'open', title: 'Open', type: 'boolean' },
];

/** A type, not an interface, so that it is assignable to Row (implicit index signature). */
type BenchRow = {
  orgId: number;
  org: string;
  invoiceId: string;
  invoiceDate: string;
  createdAt: string;
  daysPastDue: number;
  bucket: string;
  balance: number;
  lateFee: number | null;
  drugRate: number;
  ageHours: number;
  open: number;
};

const SELECT = `SELECT org_id AS orgId, org, invoice_id AS invoiceId, invoice_date AS invoiceDate,
  created_at AS createdAt, days_past_due AS daysPastDue, bucket, balance, late_fee AS lateFee,
  drug_rate AS drugRate, age_hours AS ageHours, open FROM bench_rows ORDER BY id`;

function buildTable(file: string, n: number): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, org_id INTEGER, org TEXT, invoice_id TEXT,
    invoice_date TEXT, created_at TEXT, days_past_due INTEGER, bucket TEXT, balance INTEGER,
    late_fee INTEGER, drug_rate REAL, age_hours REAL, open INTEGER)`);
  const insert = db.prepare('INSERT INTO bench_rows VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)');
  const names = ['Peña Trucking, Inc.', "O'Brien Logistics", 'Acme "Rail"', '-Dash Haulers', 'Zeta Air'];
  const buckets = ['Current', '1-30', '31-60', '61-90', '91+', 'Credits'];
  const day0 = Date.UTC(2024, 0, 1);
  db.transaction(() => {
    let seed = 42;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let i = 1; i <= n; i++) {
      const org = next() % 2000;
      const days = next() % 200;
      const created = day0 + (next() % 40_000_000) * 1000;
      insert.run(
        i,
        org + 1,
        `${names[org % names.length]} #${org}`,
        `INV-${String(i).padStart(8, '0')}`,
        new Date(day0 + (next() % 540) * 86_400_000).toISOString().slice(0, 10),
        `${new Date(created).toISOString().slice(0, 19)}Z`,
        days,
        buckets[days % buckets.length],
        (next() % 2_000_000) - 100_000,
        i % 7 === 0 ? null : next() % 5000,
        [0.5, 0.25, 0.1][org % 3],
        (next() % 100_000) / 10,
        next() % 2,
      );
    }
  })();
  db.close();
}

function open(file: string): { rows: () => IterableIterator<BenchRow>; close: () => void } {
  const db = new Database(file, { readonly: true });
  const stmt = db.prepare<[], BenchRow>(SELECT);
  return { rows: () => stmt.iterate(), close: () => db.close() };
}

/**
 * The report of the bench: the detail, and a summary sheet (first in the workbook) tallied while
 * the detail streams, as the reports do: counts and sums per bucket, never the rows themselves.
 */
function result(rows: Iterable<BenchRow>): ReportResult {
  const tally = new Map<string, { invoices: number; balance: number }>();
  function* counted(): Generator<Row> {
    for (const r of rows) {
      const t = tally.get(r.bucket) ?? { invoices: 0, balance: 0 };
      t.invoices++;
      t.balance += r.balance;
      tally.set(r.bucket, t);
      yield r;
    }
  }
  return {
    detail: { name: 'Invoices', columns, rows: counted() },
    summaries: () => [
      {
        name: 'By bucket',
        columns: [
          { key: 'bucket', title: 'Bucket', type: 'string', alert: { red: ['91+'], amber: ['61-90'] } },
          { key: 'invoices', title: 'Invoices', type: 'integer' },
          { key: 'balance', title: 'Balance', type: 'money' },
        ],
        rows: [...tally].map(([bucket, t]) => ({ bucket, ...t })),
      },
    ],
    warnings: () => [],
    about: () => [['Source', 'bench_rows']],
  };
}

/** The ceiling for xlsx: exceljs's streaming writer in a plain loop. */
async function plainXlsx(file: string, rows: Iterable<BenchRow>): Promise<number> {
  const out = createWriteStream(file);
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useStyles: true,
    useSharedStrings: false,
  });
  const ws = wb.addWorksheet('Invoices', { views: [{ state: 'frozen', ySplit: 1 }] });
  ws.columns = columns.map((c) => ({ width: c.width ?? 14 }));
  const styles = columns.map((c): Partial<ExcelJS.Style> => {
    const numFmt = numFmtOf(c);
    return numFmt === undefined ? {} : { numFmt };
  });
  ws.addRow(columns.map((c) => c.title)).commit();
  let n = 0;
  for (const r of rows) {
    n++;
    const row = ws.addRow([
      r.orgId,
      r.org,
      r.invoiceId,
      new Date(r.invoiceDate),
      new Date(r.createdAt),
      r.daysPastDue,
      r.bucket,
      r.balance / 100,
      r.lateFee === null ? undefined : r.lateFee / 100,
      r.drugRate,
      r.ageHours,
      r.open === 1,
    ]);
    for (let i = 0; i < styles.length; i++)
      if (i !== 8 || r.lateFee !== null) row.getCell(i + 1).style = styles[i]!;
    row.commit();
    if (n % 128 === 0) {
      const backlog = sheetBacklog(ws);
      if (backlog !== undefined && (backlog._writableState?.length ?? 0) > 1 << 20)
        await drained(backlog, [backlog]);
    }
  }
  ws.autoFilter = { from: { row: 1, column: 1 }, to: { row: n + 1, column: columns.length } };
  ws.commit();
  await wb.commit();
  return n;
}

/** The ceiling for CSV: csv-stringify in a plain loop, the same bytes as the renderer's. */
async function plainCsv(file: string, rows: Iterable<BenchRow>): Promise<number> {
  const csv = stringify({
    header: true,
    columns: columns.map((c) => c.key),
    record_delimiter: 'windows',
    quoted_match: /[\r\n]/,
    bom: true,
  });
  const done = pipeline(csv, createWriteStream(file));
  let n = 0;
  for (const r of rows) {
    n++;
    const ok = csv.write([
      String(r.orgId),
      /^[=+\-@\t\r]/.test(r.org) ? `'${r.org}` : r.org,
      r.invoiceId,
      r.invoiceDate,
      r.createdAt,
      String(r.daysPastDue),
      r.bucket,
      (r.balance / 100).toFixed(2),
      r.lateFee === null ? '' : (r.lateFee / 100).toFixed(2),
      (r.drugRate * 100).toFixed(1),
      r.ageHours.toFixed(1),
      r.open === 1 ? 'true' : 'false',
    ]);
    if (!ok) await drained(csv, [csv]);
  }
  csv.end();
  await done;
  return n;
}

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** One timed run: wall and CPU seconds (all threads: zlib runs on the thread pool), peak RSS. */
interface Run {
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  rssBeforeMb: number;
  file: string;
  fileMb: number;
}

async function timed(write: () => Promise<{ rows: number; file: string }>, n: number): Promise<Run> {
  globalThis.gc?.();
  const rssBeforeMb = Math.round(process.memoryUsage().rss / 1048576);
  const cpu0 = process.cpuUsage();
  const m = await measure(write);
  const cpu = process.cpuUsage(cpu0);
  if (m.result.rows !== n) throw new Error(`wrote ${m.result.rows} rows, expected ${n}`);
  return {
    seconds: m.seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMb: m.peakRssMb,
    rssBeforeMb,
    file: m.result.file,
    fileMb: statSync(m.result.file).size / 1048576,
  };
}

/**
 * Ceiling and writeReport in turn, `rounds` times each (this machine has two cores and is often
 * shared, so one run of each can be off by 30%); the best of each is kept, and the highest peak.
 */
async function pair(
  rounds: number,
  ceiling: () => Promise<Run>,
  ours: () => Promise<Run>,
  keep: (c: Run, o: Run) => void,
): Promise<[Run, Run]> {
  let bestC: Run | undefined;
  let bestO: Run | undefined;
  for (let i = 0; i < rounds; i++) {
    const c = await ceiling();
    const o = await ours();
    keep(c, o);
    const better = (a: Run | undefined, b: Run): Run =>
      a === undefined || b.seconds < a.seconds
        ? { ...b, peakRssMb: Math.max(b.peakRssMb, a?.peakRssMb ?? 0) }
        : { ...a, peakRssMb: Math.max(a.peakRssMb, b.peakRssMb) };
    bestC = better(bestC, c);
    bestO = better(bestO, o);
    rmSync(c.file, { force: true });
    rmSync(o.file, { force: true });
  }
  return [bestC!, bestO!];
}

export async function benchRender(scale: number, rounds = 2): Promise<string> {
  const n = Math.max(1, Math.round(1_000_000 * scale));
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-render-'));
  const dbFile = join(dir, 'rows.sqlite');
  try {
    buildTable(dbFile, n);
    const src = open(dbFile);
    const report = async (formats: ('xlsx' | 'csv')[]) => {
      const out = await writeReport(result(src.rows()), {
        outDir: join(dir, 'out'),
        name: 'bench',
        asOf: '2025-06-30',
        title: 'Bench',
        formats,
        csv: defaults.reports.csv,
      });
      return { rows: out.rows, file: out.files[0]! };
    };
    const lines: Record<string, string | number>[] = [];
    const line = (run: string, r: Run, ceiling?: Run) =>
      lines.push({
        run,
        rows: n,
        's (best)': r.seconds.toFixed(1),
        'rows/s': Math.round(n / r.seconds),
        'of ceiling': ceiling === undefined ? '-' : `${((100 * ceiling.seconds) / r.seconds).toFixed(1)}%`,
        'cpu s': r.cpuSeconds.toFixed(1),
        'cpu of ceiling':
          ceiling === undefined ? '-' : `${((100 * ceiling.cpuSeconds) / r.cpuSeconds).toFixed(1)}%`,
        'RSS before MB': r.rssBeforeMb,
        'peak RSS MB': r.peakRssMb,
        'file MB': r.fileMb.toFixed(1),
      });

    // CSV first: the lighter runs see the smaller baseline RSS. The first round also checks that
    // the two CSV files are the same bytes.
    let sameCsv = true;
    const [csvPlain, csvOurs] = await pair(
      rounds,
      () =>
        timed(async () => {
          const file = join(dir, 'plain.csv');
          return { rows: await plainCsv(file, src.rows()), file };
        }, n),
      () => timed(() => report(['csv']), n),
      (c, o) => {
        sameCsv &&= digest(c.file) === digest(o.file);
      },
    );
    line('csv: plain csv-stringify (ceiling)', csvPlain);
    line('csv: writeReport', csvOurs, csvPlain);

    const [xlsxPlain, xlsxOurs] = await pair(
      rounds,
      () =>
        timed(async () => {
          const file = join(dir, 'plain.xlsx');
          return { rows: await plainXlsx(file, src.rows()), file };
        }, n),
      () => timed(() => report(['xlsx']), n),
      () => undefined,
    );
    line('xlsx: plain exceljs stream (ceiling)', xlsxPlain);
    line('xlsx: writeReport', xlsxOurs, xlsxPlain);

    // Both formats in one pass over the rows, against the two ceilings one after the other.
    const both = await timed(() => report(['xlsx', 'csv']), n);
    const sum: Run = {
      ...xlsxPlain,
      seconds: xlsxPlain.seconds + csvPlain.seconds,
      cpuSeconds: xlsxPlain.cpuSeconds + csvPlain.cpuSeconds,
    };
    line('xlsx+csv: writeReport, one pass (once)', both, sum);
    src.close();
    return [
      `Render: ${n} rows x ${columns.length} columns from SQLite (iterate) into xlsx and CSV, beside plain exceljs / csv-stringify loops (ceilings), best of ${rounds} interleaved runs; targets >= 90% of ceiling, peak RSS < 300 MB`,
      table(lines),
      `CSV of writeReport byte-identical to the plain loop's: ${sameCsv ? 'yes' : 'NO'}`,
      '',
      await benchRenderHtml(Math.max(0.1, Math.min(scale, 1))),
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
