import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OhsClient } from '../../src/api/index.js';
import { createLogger } from '../../src/log.js';
import { type Mirror, openMirror } from '../../src/mirror/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { runSync } from '../../src/sync/index.js';
import { runOhs } from './cli.js';
import { clientFor } from './client.js';
import { defaults } from './defaults.js';

/** Fixtures of the write-back tests: a working folder for the CLI, a mirror synced from the sandbox. */
export const silent = createLogger({ level: 'silent', pretty: false });

export const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;

/**
 * A clean folder with config/local.json pointing at the sandbox (fast client) and at the mirror:
 * `target` (a SQLite path or a `postgres://` URL from `withTargets`), or `ohs.sqlite` in the
 * folder. Returns the folder and the mirror target, which the CLI run in the folder uses.
 */
export function workdir(url: string, target?: string): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-wb-'));
  mkdirSync(join(dir, 'config'));
  const db = target ?? join(dir, 'ohs.sqlite');
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      baseUrl: url,
      db,
      api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 100, maxRetries: 10 },
      sync: { idStart: ID_START },
    }),
  );
  return { dir, db };
}

/** Syncs the given streams of the sandbox into a mirror (in-process, fast client). */
export async function syncStreams(sim: RunningSim, db: string, streams: string[]): Promise<void> {
  const client = clientFor(sim, { concurrency: 8, requestsPerSecond: 5000 });
  const mirror = await openMirror(db);
  try {
    const report = await runSync(client, mirror, silent, {
      ...defaults.sync,
      idStart: { ...ID_START },
      progress: false,
      streams,
    });
    if (report.outcome !== 'ok') throw new Error(`sync ${report.outcome}`);
  } finally {
    await client.close();
    await mirror.close();
  }
}

export async function withMirror<T>(db: string, fn: (m: Mirror) => Promise<T>): Promise<T> {
  const mirror = await openMirror(db);
  try {
    return await fn(mirror);
  } finally {
    await mirror.close();
  }
}

export async function withClient<T>(client: OhsClient, fn: (c: OhsClient) => Promise<T>): Promise<T> {
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Writes a CSV file from rows of cells (quoted when needed). */
export function writeCsv(file: string, header: string[], rows: (string | number)[][]): string {
  const cell = (v: string | number) => {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  // A short row gets its empty trailing cells, as a spreadsheet exports it (a row of fewer fields than the header is refused).
  const full = rows.map((r) => [...r, ...Array<string>(Math.max(0, header.length - r.length)).fill('')]);
  writeFileSync(file, `${[header, ...full].map((r) => r.map(cell).join(',')).join('\n')}\n`);
  return file;
}

/** Invoices of the sandbox with a positive balance, not cancelled, by id. */
export function openInvoices(sim: RunningSim): { id: string; balance: number }[] {
  return sim
    .truth()
    .Invoice.filter((i) => Number(i.balance) > 0 && !i.dropInvoice)
    .map((i) => ({ id: String(i.id), balance: Number(i.balance) }));
}

/** Merges keys into the working folder's config/local.json (one level deep per top-level key). */
export function configure(dir: string, patch: Record<string, Record<string, unknown>>): void {
  const file = join(dir, 'config', 'local.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  for (const [k, v] of Object.entries(patch)) config[k] = { ...config[k], ...v };
  writeFileSync(file, JSON.stringify(config));
}

/** Payment rows of distinct amounts (1.00, 1.01, ...) over the given invoices, so each names its row upstream. */
export function paymentRows(
  invoices: { id: string }[],
  n: number,
  invoicesUsed = n,
  firstCents = 100,
): (string | number)[][] {
  return Array.from({ length: n }, (_, i) => [invoices[i % invoicesUsed]?.id ?? '', (firstCents + i) / 100]);
}

/**
 * Exactly once, from the sandbox's own truth: each planned payment (a distinct amount) was made
 * at most once, and once for every item the outbox calls applied; returns how many were made.
 */
export function expectPaidAtMostOnce(sim: RunningSim, rows: (string | number)[][]): Map<number, number> {
  const made = new Map<number, number>();
  for (const p of sim.truth().Payment) {
    const cents = Math.round(Number(p.amountToPay) * 100);
    made.set(cents, (made.get(cents) ?? 0) + 1);
  }
  for (const [invoice, amount] of rows) {
    const cents = Math.round(Number(amount) * 100);
    const n = made.get(cents) ?? 0;
    if (n > 1) throw new Error(`payment of ${amount} on invoice ${invoice} made ${n} times`);
  }
  return made;
}

/**
 * A working folder on `target` with `n` payments planned (distinct amounts from `firstCents`,
 * over `invoicesUsed` open invoices with a balance above 20), the invoice stream synced first.
 */
export async function plannedPayments(
  sim: RunningSim,
  target: string,
  opts: { n: number; invoicesUsed: number; firstCents: number; settleMs: number; env: NodeJS.ProcessEnv },
): Promise<{ dir: string; db: string; rows: (string | number)[][] }> {
  const { dir, db } = workdir(sim.url, target);
  configure(dir, { writeback: { settleMs: opts.settleMs } });
  await syncStreams(sim, db, ['invoice']);
  const invoices = openInvoices(sim).filter((i) => i.balance > 20);
  const rows = paymentRows(invoices, opts.n, opts.invoicesUsed, opts.firstCents);
  const file = writeCsv(join(dir, 'payments.csv'), ['InvoiceId', 'amountToPay'], rows);
  const planned = await runOhs(['plan', file, '--op', 'payment'], { cwd: dir, env: opts.env });
  if (planned.code !== 0) throw new Error(`ohs plan failed: ${planned.stderr}`);
  return { dir, db, rows };
}
