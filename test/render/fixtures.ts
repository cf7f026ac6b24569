import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll } from 'vitest';
import type { Column, ReportResult, Row, Sheet } from '../../src/render/index.js';

const made: string[] = [];

/** A fresh output directory, removed after the test file. */
export function outDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-render-'));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export async function readXlsx(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
}

/** One column of every cell type. */
export const everyType: Column[] = [
  { key: 'orgId', title: 'Org ID', type: 'integer' },
  { key: 'org', title: 'Org', type: 'string', width: 30 },
  { key: 'invoiceDate', title: 'Invoice date', type: 'date' },
  { key: 'createdAt', title: 'Created at', type: 'datetime' },
  { key: 'balance', title: 'Balance', type: 'money' },
  { key: 'drugRate', title: 'Drug rate', type: 'percent' },
  { key: 'ageHours', title: 'Age (hours)', type: 'number', decimals: 1 },
  { key: 'open', title: 'Open', type: 'boolean' },
];

export const everyTypeRows: Row[] = [
  {
    orgId: 1,
    org: 'Peña, "Hermanos"',
    invoiceDate: '2025-06-30',
    createdAt: '2025-06-10T12:00:00Z',
    balance: 123450,
    drugRate: 0.5,
    ageHours: 36.25,
    open: true,
  },
  {
    orgId: 2,
    org: "O'Brien\nline two",
    invoiceDate: '2024-02-29',
    createdAt: '2025-06-10 08:30:15',
    balance: -4005,
    drugRate: 0.105,
    ageHours: 0,
    open: false,
  },
  {
    orgId: 3,
    org: null,
    invoiceDate: null,
    createdAt: null,
    balance: null,
    drugRate: null,
    ageHours: null,
    open: null,
  },
];

export interface ReportSpec {
  detail?: Partial<Sheet>;
  summaries?: Sheet[];
  warnings?: string[];
  about?: [string, string][];
}

export function report(spec: ReportSpec = {}): ReportResult {
  return {
    detail: { name: 'Invoices', columns: everyType, rows: everyTypeRows, ...spec.detail },
    summaries: () => spec.summaries ?? [],
    warnings: () => spec.warnings ?? [],
    about: () => spec.about ?? [],
  };
}

/** The 1-based column of a key among `everyType`. */
export function col(key: string): number {
  return everyType.findIndex((c) => c.key === key) + 1;
}
