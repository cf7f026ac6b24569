import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { type CliResult, runOhs } from '../helpers/cli.js';

/** The CLI run with its clock set to `at` (libfaketime): the mirror records that instant. */
export async function ohsAt(
  at: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<CliResult> {
  const stamp = at.replace('T', ' ').replace(/(\.\d+)?Z$/, '');
  return runOhs(args, {
    cwd: options.cwd,
    env: { ...options.env, TZ: 'UTC' },
    timeoutMs: 180_000,
    via: ['faketime', '-f', `@${stamp}`],
  });
}

export type CsvRow = Record<string, string>;

/** The rows of a CSV the CLI wrote (BOM, header), as text. */
export function readCsv(file: string): CsvRow[] {
  return parse(readFileSync(file, 'utf8'), { columns: true, bom: true, skip_empty_lines: true }) as CsvRow[];
}

/** The one file of `dir` whose name starts with `prefix` and ends with `suffix`. */
export function fileOf(dir: string, prefix: string, suffix: string): string {
  const found = readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith(suffix));
  if (found.length !== 1) throw new Error(`${prefix}*${suffix} in ${dir}: ${found.join(', ') || 'none'}`);
  return join(dir, found[0] as string);
}

/** A CSV cell neutralised against formulas reads back without its leading quote. */
export const plain = (s: string | undefined) => (s ?? '').replace(/^'(?=[=+\-@\t\r])/, '');

/**
 * The lines the changes report must hold for the kinds read from the base reports' CSVs, computed
 * here from those CSVs at both ends by their keys, independently of the report's code: catch-up
 * verdicts (orgId + testType), invoices crossing 60 and 90 days past due (open at both ends) and
 * new ones, order flags (orderItemId) and new orders. Keys: `KIND|subject|orgId`.
 */
export function expectedFromCsvs(
  before: { catchUp: CsvRow[]; unpaid: CsvRow[]; ageing: CsvRow[] },
  after: { catchUp: CsvRow[]; unpaid: CsvRow[]; ageing: CsvRow[] },
  restored: ReadonlySet<string> = new Set(),
): string[] {
  const out: string[] = [];
  const by = (rows: CsvRow[], key: (r: CsvRow) => string) => new Map(rows.map((r) => [key(r), r]));
  const cb = by(before.catchUp, (r) => `${r.orgId}|${r.testType}`);
  const ca = by(after.catchUp, (r) => `${r.orgId}|${r.testType}`);
  for (const k of new Set([...cb.keys(), ...ca.keys()])) {
    const [orgId, testType] = k.split('|');
    if ((cb.get(k)?.verdict ?? null) !== (ca.get(k)?.verdict ?? null))
      out.push(`CATCH_UP_VERDICT|${testType}|${orgId}`);
  }
  const ub = by(before.unpaid, (r) => r.invoiceId ?? '');
  for (const r of after.unpaid) {
    if (r.status === 'cancelled') continue;
    const id = r.invoiceId ?? '';
    const was = ub.get(id);
    if (was === undefined) {
      if (!restored.has(id)) out.push(`INVOICE_NEW|${id}|${r.orgId}`);
      continue;
    }
    if (was.status === 'cancelled') continue;
    const [d0, d1] = [Number(plain(was.daysPastDue)), Number(plain(r.daysPastDue))];
    if (d0 <= 90 && d1 > 90) out.push(`INVOICE_OVER_90|${id}|${r.orgId}`);
    else if (d0 <= 60 && d1 > 60) out.push(`INVOICE_OVER_60|${id}|${r.orgId}`);
  }
  const ob = by(before.ageing, (r) => r.orderItemId ?? '');
  const fresh = new Set<string>();
  for (const r of after.ageing) {
    const id = r.orderItemId ?? '';
    const was = ob.get(id);
    const [f0, f1] = [was?.flag || 'OK', r.flag || 'OK'];
    // A new item already flagged is its flag's line only (counted once).
    if (was === undefined && f1 === 'OK') fresh.add(`ORDERS_NEW|${r.family || 'generic'}|${r.orgId}`);
    if (f0 === f1) continue;
    const rank = { OK: 0, WARN: 1, STUCK: 2 } as Record<string, number>;
    const kind =
      (rank[f1] ?? 0) > (rank[f0] ?? 0) ? (f1 === 'STUCK' ? 'ORDER_STUCK' : 'ORDER_WARN') : 'ORDER_EASED';
    out.push(`${kind}|${id}|${r.orgId}`);
  }
  out.push(...fresh);
  return out.sort();
}

/** The report's lines of those kinds, as `expectedFromCsvs` keys them. */
export function linesOfKinds(rows: CsvRow[]): string[] {
  const kinds = new Set([
    'CATCH_UP_VERDICT',
    'INVOICE_NEW',
    'INVOICE_OVER_60',
    'INVOICE_OVER_90',
    'ORDER_STUCK',
    'ORDER_WARN',
    'ORDER_EASED',
    'ORDERS_NEW',
  ]);
  return rows
    .filter((r) => kinds.has(r.kind ?? ''))
    .map((r) => `${r.kind}|${plain(r.subject)}|${r.orgId}`)
    .sort();
}
