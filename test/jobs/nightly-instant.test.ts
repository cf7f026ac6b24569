import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';

/**
 * The nightly job's reports stand at an instant decided after its own sync (dates.ts ReportTime):
 * an order the sync saw move has a known time in status, and the job's order ageing is the one
 * `ohs report` gives at the job's stated instant (the same bytes) and right after (the same rows
 * but for the ages, which run on with the clock). Before, the job reported as of its own start,
 * before its sync: every status the sync saw begin was "time in status unknown" and flagged by
 * its age instead (28 of 769 rows differed from a report run right after).
 */
const sim = withSim({ scale: 0.02 });
const env = { OHS_TOKEN: WRITE_TOKEN };
let dir: string;
let moved: number[];
let nightlyCsv: string;
let stated: string;

type Row = Record<string, string>;
const rowsOf = (text: string): Row[] => parse(text, { columns: true, bom: true }) as Row[];
const only = (folder: string, pattern: RegExp): string => {
  const names = readdirSync(folder).filter((n) => pattern.test(n));
  expect(names, `${folder}: ${readdirSync(folder).join(', ')}`).toHaveLength(1);
  return join(folder, names[0] as string);
};

async function ohs(...args: string[]) {
  const r = await runOhs(args, { cwd: dir, env, timeoutMs: 240_000 });
  expect(r.code, `ohs ${args.join(' ')}\n${r.stderr}`).toBe(0);
  return r;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ohs-nightly-instant-'));
  mkdirSync(join(dir, 'config'));
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      baseUrl: sim().url,
      api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200 },
      sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
      jobs: { outDir: 'nightly', formats: ['csv', 'xlsx'] },
    }),
  );
  await ohs('sync');
  // A day of changes upstream: 50 orders move to their next status (sim/mutate.ts).
  const before = sim().changes().moves.length;
  sim().mutate(50);
  moved = sim()
    .changes()
    .moves.slice(before)
    .map((m) => m.orderItemId);
  expect(moved.length).toBeGreaterThan(0);
  await ohs('run', 'nightly');
  nightlyCsv = readFileSync(only(join(dir, 'nightly'), /^order-ageing-\d{4}-\d{2}-\d{2}\.csv$/), 'utf8');
  // The instant the job's About sheet states for its order ageing.
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(only(join(dir, 'nightly'), /^order-ageing-\d{4}-\d{2}-\d{2}\.xlsx$/));
  const about = wb.getWorksheet('About');
  let value = '';
  about?.eachRow((row) => {
    if (String(row.getCell(1).value) === 'As-of instant') value = String(row.getCell(2).value);
  });
  stated = value.slice(0, 20);
  expect(stated).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe("the nightly job's order ageing stands at the instant after its sync", () => {
  it('knows the time in status of every order its own sync saw move', () => {
    const rows = rowsOf(nightlyCsv);
    const seen = rows.filter((r) => moved.includes(Number(r.orderItemId)));
    expect(seen.length).toBeGreaterThan(0);
    const unknown = seen.filter((r) => r.timeInStatusHours === '');
    expect(unknown.map((r) => r.orderItemId)).toEqual([]);
  });

  it('is the same bytes as ohs report at the instant it states', async () => {
    await ohs('report', 'order-ageing', '--as-of-time', stated, '--format', 'csv', '--out', 'asked');
    const asked = readFileSync(only(join(dir, 'asked'), /^order-ageing-.*\.csv$/), 'utf8');
    expect(asked).toBe(nightlyCsv);
  });

  it('gives unpaid invoices and compliance as ohs report does, at its stated instant and right after', async () => {
    for (const name of ['unpaid-invoices', 'compliance']) {
      const pattern = new RegExp(`^${name}-\\d{4}-\\d{2}-\\d{2}\\.csv$`);
      const night = readFileSync(only(join(dir, 'nightly'), pattern), 'utf8');
      await ohs('report', name, '--as-of-time', stated, '--format', 'csv', '--out', `asked-${name}`);
      const asked = readFileSync(
        only(join(dir, `asked-${name}`), new RegExp(`^${name}-\\d.*\\.csv$`)),
        'utf8',
      );
      expect(asked, name).toBe(night);
      await ohs('report', name, '--format', 'csv', '--out', `after-${name}`);
      const after = readFileSync(
        only(join(dir, `after-${name}`), new RegExp(`^${name}-\\d.*\\.csv$`)),
        'utf8',
      );
      expect(rowsOf(after), name).toEqual(rowsOf(night));
    }
  });

  it('has the same rows, statuses and flags as ohs report run right after', async () => {
    await ohs('report', 'order-ageing', '--format', 'csv', '--out', 'after');
    const after = rowsOf(readFileSync(only(join(dir, 'after'), /^order-ageing-.*\.csv$/), 'utf8'));
    const night = rowsOf(nightlyCsv);
    // Everything but the ages, which run on with the clock between the two runs.
    const ages = /^(ageHours|ageDays|timeInStatusHours|timeInStatusDays)$/;
    const fixed = (r: Row) => Object.fromEntries(Object.entries(r).filter(([k]) => !ages.test(k)));
    const differ = night.filter((r, i) => JSON.stringify(fixed(r)) !== JSON.stringify(fixed(after[i] ?? {})));
    expect(after.length).toBe(night.length);
    expect(differ.map((r) => r.orderItemId)).toEqual([]);
  });
});
