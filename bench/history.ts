import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { reportByName } from '../reports/index.js';
import { OhsClient } from '../src/api/index.js';
import { createLogger } from '../src/log.js';
import { type Mirror, openMirror, tableDefs } from '../src/mirror/index.js';
import { startSim } from '../src/sim/index.js';
import { runSync } from '../src/sync/index.js';
import { startPgServer } from '../test/helpers/pg-server.js';
import { table } from './sandbox.js';

/**
 * What the mirror's history costs on disk (issue 23): the sandbox synced in full, then NIGHTS
 * nights of the sandbox's own mutations (one step of `200 × scale` changes of each kind a night:
 * new order items, status moves, deletions, invoices paid, users and staff changed, OrgMonth
 * counts) each followed by an incremental sync, as the nightly job runs it. The history tables'
 * bytes (indexes included) are read after the first sync and after each night, on each engine:
 * growth per night, and per year at that rate. Then the unpaid-invoices report (the one whose
 * query reads through asOf so far) on the present and as of the instant after the first sync.
 */
const NIGHTS = 5;
const TOKEN = 'bench-history-token';
const logger = createLogger({ level: 'silent', pretty: false });
const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;

async function historyBytes(m: Mirror): Promise<{ bytes: number; versions: number }> {
  let versions = 0;
  for (const def of tableDefs) {
    const r = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(`h_${def.table}`)}`.execute(
      m.db,
    );
    versions += Number(r.rows[0]?.n ?? 0);
  }
  if (m.engine === 'sqlite') {
    const r = await sql<{
      b: number;
    }>`SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'h\\_%' ESCAPE '\\'`.execute(m.db);
    return { bytes: Number(r.rows[0]?.b ?? 0), versions };
  }
  const r = await sql<{ b: string }>`SELECT sum(pg_total_relation_size(c.oid))::text AS b FROM pg_class c
    WHERE c.relname LIKE 'h\\_%' AND c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace`.execute(
    m.db,
  );
  return { bytes: Number(r.rows[0]?.b ?? 0), versions };
}

/** Seconds of the unpaid-invoices report on the mirror (now, or as of an instant), best of 5. */
async function reportSeconds(mirror: Mirror, at: string | undefined): Promise<number> {
  const report = reportByName('unpaid-invoices');
  if (report === undefined) throw new Error('no unpaid-invoices report');
  let best = Number.POSITIVE_INFINITY;
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    await report.run({
      db: mirror.db,
      params: {
        asOf: new Date().toISOString().slice(0, 10),
        asOfTimestamp: '',
        orgIds: [],
        timezone: 'UTC',
        options: {},
        ...(at === undefined ? {} : { mirrorAsOf: at }),
      },
    });
    best = Math.min(best, (performance.now() - t) / 1000);
  }
  return best;
}

async function nights(target: string, scale: number): Promise<Record<string, string | number>> {
  const sim = await startSim({ seed: 5, scale, anchorDate: '2026-06-15', token: TOKEN });
  const client = new OhsClient({
    baseUrl: sim.url,
    token: TOKEN,
    concurrency: 8,
    requestsPerSecond: 5000,
    timeoutMs: 10_000,
    maxRetries: 8,
    retryBaseMs: 5,
    retryMaxMs: 100,
  });
  const mirror = await openMirror(target);
  try {
    const sync = async (full: boolean) => {
      const r = await runSync(client, mirror, logger, { idStart: { ...ID_START }, progress: false, full });
      if (r.error !== undefined) throw r.error;
    };
    await sync(true);
    const first = await historyBytes(mirror);
    const between = new Date().toISOString();
    const size = Math.max(1, Math.round(200 * scale));
    for (let n = 0; n < NIGHTS; n++) {
      sim.mutate(size);
      await sync(false);
    }
    const last = await historyBytes(mirror);
    const perNight = (last.bytes - first.bytes) / NIGHTS;
    const present = await reportSeconds(mirror, undefined);
    const past = await reportSeconds(mirror, between);
    return {
      engine: mirror.engine,
      'changes/night': size,
      'history after 1st sync MB': (first.bytes / 1e6).toFixed(1),
      'versions/night': Math.round((last.versions - first.versions) / NIGHTS),
      'bytes/version': Math.round((last.bytes - first.bytes) / Math.max(1, last.versions - first.versions)),
      'bytes/night': Math.round(perNight),
      'MB/year': ((perNight * 365) / 1e6).toFixed(1),
      'unpaid-invoices now s': present.toFixed(3),
      'as of 1st sync s': past.toFixed(3),
      'as-of/now': (past / present).toFixed(2),
    };
  } finally {
    await mirror.close();
    await client.close();
    await sim.close();
  }
}

export async function benchHistory(scale: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-history-'));
  const server = await startPgServer();
  try {
    const rows = [
      await nights(join(dir, 'history.sqlite'), scale),
      await nights(server.createDatabase('history'), scale),
    ];
    return [
      `history growth: the sandbox (scale ${scale}) synced in full, then ${NIGHTS} nights of its mutations, each followed by an incremental sync; history tables with their indexes`,
      table(rows),
    ].join('\n');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
