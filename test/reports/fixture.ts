import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, expect } from 'vitest';
import { asOfDate, asOfInstant, parseInstantFlag, parseIsoDate, reportTime } from '../../src/dates.js';
import { type Mirror, type OrgPolicyTable, openMirror, writePolicy } from '../../src/mirror/index.js';
import { formatCents, neutralise, writeReport } from '../../src/render/index.js';
import type { Column, ReportResult, Row, Sheet } from '../../src/render/types.js';
import type { ReportDefinition, ReportParams } from '../../src/reports/index.js';
import { defaults } from '../helpers/defaults.js';
import { type EngineName, withTargets } from '../helpers/engines.js';

/**
 * Fixtures of the report tests: a real temporary mirror of the engine under test per test (a
 * SQLite file, or a new PostgreSQL database), rows written the way the sync writes them
 * (writer.upsert in a transaction, status history), and a report run whose detail is read to the
 * end before the summaries, as the renderers do.
 */
export const SYNC_TIME = '2025-07-01T02:00:00.000Z';

/** For a describe block of `engine`: a fresh empty mirror per call, closed after each test. */
export function tempMirrors(engine: EngineName): () => Promise<Mirror> {
  const target = withTargets(engine);
  const open: Mirror[] = [];
  afterEach(async () => {
    for (const m of open.splice(0)) await m.close();
  });
  return async () => {
    const m = await openMirror(await target());
    open.push(m);
    return m;
  };
}

type Rec = Record<string, unknown>;

export async function upsert(
  m: Mirror,
  resource: 'OrgMonth' | 'Invoice' | 'OrderItem',
  records: Rec[],
  now = SYNC_TIME,
): Promise<void> {
  await m.write(async (w) => {
    await w.upsert(resource, records, { now });
  });
}

export async function softDelete(
  m: Mirror,
  table: 'orgmonth' | 'invoice' | 'orderitem',
  id: number | string,
): Promise<void> {
  await m.db.updateTable(table).set({ deleted_at: SYNC_TIME }).where('id', '=', id).execute();
}

export interface HistoryRow {
  orderitem_id: number;
  status_id: number;
  status_name: string;
  first_seen_at: string;
  last_seen_at?: string;
}

export async function history(m: Mirror, rows: HistoryRow[]): Promise<void> {
  for (const r of rows) {
    await m.db
      .insertInto('orderitem_status_history')
      .values({
        orderitem_id: r.orderitem_id,
        status_id: r.status_id,
        status_code: null,
        status_name: r.status_name,
        first_seen_at: r.first_seen_at,
        last_seen_at: r.last_seen_at ?? r.first_seen_at,
      })
      .execute();
  }
}

export async function policy(
  m: Mirror,
  rows: (Partial<OrgPolicyTable> & { org_id: number })[],
): Promise<void> {
  // As `ohs policy import` writes them: org_policy and a version in force from updated_at.
  for (const r of rows)
    await m.db.transaction().execute((trx) =>
      writePolicy(trx, {
        program: 'DOT',
        agency: null,
        rp_min_drug: null,
        rp_min_alc: null,
        dot_registration_number: null,
        parent_org_id: null,
        source: 'import',
        updated_at: SYNC_TIME,
        ...r,
      }),
    );
}

export async function syncState(m: Mirror, stream: string, lastSuccessAt: string): Promise<void> {
  await m.db
    .insertInto('sync_stream_state')
    .values({
      stream,
      last_run_id: 1,
      last_success_at: lastSuccessAt,
      last_full_at: lastSuccessAt,
      pass_id: null,
      pass_started_at: null,
    })
    .execute();
}

/**
 * A report's parameters as a command resolves them: the as-of date (the end of that day), or an
 * instant (`asOfTimestamp`, whose date in the zone must be the date given), in `timezone`; the
 * mirror read as it is (`--present`), or as known at `mirrorAsOf` (its history).
 */
export function params(
  asOf: string,
  options: Record<string, unknown> = {},
  more: Omit<Partial<ReportParams>, 'time'> & {
    asOfTimestamp?: string;
    timezone?: string;
    mirrorAsOf?: string;
  } = {},
): ReportParams {
  const { asOfTimestamp, timezone = defaults.timezone, mirrorAsOf, ...rest } = more;
  const date = parseIsoDate(asOf);
  if (date === null) throw new Error(`not a date: ${asOf}`);
  const resolved =
    asOfTimestamp === undefined
      ? asOfDate(date, timezone)
      : asOfInstant(parseInstantFlag(asOfTimestamp, 'asOfTimestamp', timezone), timezone);
  if (resolved.dateText !== asOf) throw new Error(`${asOfTimestamp} is not on ${asOf} in ${timezone}`);
  const time = reportTime(resolved, { present: true });
  return { time: { ...time, mirrorAt: mirrorAsOf ?? null }, orgIds: [], options, ...rest };
}

export async function rowsOf(sheet: Sheet): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of sheet.rows) out.push(r);
  return out;
}

export interface Ran {
  result: ReportResult;
  detail: Row[];
  summaries: Sheet[];
  /** Rows of a summary sheet by name. */
  summary(name: string): Promise<Row[]>;
  warnings: string[];
  about: [string, string][];
}

/** The CSV text of a value, as docs/reports.md's rendering rules say (dates and times apart). */
function csvText(c: Column, v: Row[string]): string | undefined {
  if (v === null || v === undefined) return '';
  switch (c.type) {
    case 'string':
      return typeof v === 'string' ? neutralise(v) : String(v);
    case 'integer':
      return String(v);
    case 'number':
      return Number(v).toFixed(c.decimals ?? 2);
    case 'money':
      return formatCents(Number(v));
    case 'percent':
      return (Number(v) * 100).toFixed(c.decimals ?? 1);
    case 'boolean':
      return String(v === true || v === 1);
    default:
      return undefined; // date, datetime: checked by the renderer's own tests
  }
}

/**
 * The report written through the renderers, then read back: every detail cell of the CSV and of
 * the xlsx must say what the report's rows say, so each worked example asserted on the rows is
 * asserted on both files too.
 */
async function checkFiles(def: ReportDefinition, m: Mirror, p: ReportParams, detail: Row[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-example-files-'));
  try {
    const result = await def.run({ db: m.db, params: p });
    const columns = result.detail.columns;
    await writeReport(result, {
      outDir: dir,
      name: def.name,
      asOf: p.time.asOf.dateText,
      title: def.title,
      formats: ['csv', 'xlsx'],
      csv: defaults.reports.csv,
    });
    // A report named by its period (the roll-forward) says its files' name.
    const stem = `${def.name}-${result.fileName ?? p.time.asOf.dateText}`;
    const csv = parse(readFileSync(join(dir, `${stem}.csv`), 'utf8'), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    expect(csv).toHaveLength(detail.length);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(dir, `${stem}.xlsx`));
    const sheet = wb.getWorksheet(result.detail.name);
    // The xlsx detail may hold subtotal rows (A/R per org); the data rows are the others.
    const dataRows: number[] = [];
    const label = columns.findIndex((c) => c.key === result.detail.subtotals?.label) + 1;
    sheet?.eachRow((r, n) => {
      const text = label > 0 ? r.getCell(label).value : null;
      const subtotal = typeof text === 'string' && /^(Subtotal|Total$)/.test(text);
      if (n > 1 && !(subtotal && result.detail.subtotals !== undefined)) dataRows.push(n);
    });
    expect(dataRows).toHaveLength(detail.length);
    detail.forEach((row, i) => {
      columns.forEach((c, k) => {
        const text = csvText(c, row[c.key]);
        if (text !== undefined) expect(csv[i]?.[c.key], `csv row ${i + 1} ${c.key}`).toBe(text);
        const v = row[c.key];
        if (v === null || v === undefined || typeof v !== 'number') return;
        const cell = sheet?.getRow(dataRows[i] as number).getCell(k + 1).value;
        if (c.type === 'money') expect(cell, `xlsx row ${i + 2} ${c.key}`).toBeCloseTo(v / 100, 9);
        else if (c.type === 'integer' || c.type === 'number' || c.type === 'percent') {
          expect(cell, `xlsx row ${i + 2} ${c.key}`).toBeCloseTo(v, 9);
        }
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a report; the detail is read to the end before summaries, warnings and about. */
export async function runReport(def: ReportDefinition, m: Mirror, p: ReportParams): Promise<Ran> {
  const result = await def.run({ db: m.db, params: p });
  const detail = await rowsOf(result.detail);
  await checkFiles(def, m, p, detail);
  const summaries = result.summaries();
  return {
    result,
    detail,
    summaries,
    summary: async (name) => {
      const sheet = summaries.find((s) => s.name === name);
      if (sheet === undefined)
        throw new Error(`no summary sheet ${name}: ${summaries.map((s) => s.name).join(', ')}`);
      return rowsOf(sheet);
    },
    warnings: result.warnings(),
    about: result.about(),
  };
}

/** The value of an About line. */
export function aboutValue(ran: Ran, key: string): string | undefined {
  return ran.about.find(([k]) => k === key)?.[1];
}
