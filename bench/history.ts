import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { pagingOptions } from '../src/api/index.js';
import { asOfNow, reportTime } from '../src/dates.js';
import { createLogger } from '../src/log.js';
import { type Mirror, openMirror, tableDefs } from '../src/mirror/index.js';
import { reportByName } from '../src/reports/index.js';
import { startSim } from '../src/sim/index.js';
import { runSync } from '../src/sync/index.js';
import { startPgServer } from '../test/helpers/pg-server.js';
import { configuredClient, defaults, table } from './sandbox.js';

/**
 * What the mirror's history costs on disk: the sandbox synced in full, then NIGHTS
 * nights of the sandbox's own mutations (one step of `200 × scale` changes of each kind a night:
 * new order items, status moves, deletions, invoices paid, users and staff changed, OrgMonth
 * counts) each followed by an incremental sync, as the nightly job runs it. The history tables'
 * bytes (indexes included) are read after the first sync and after each night, on each engine:
 * growth per night, and per year at that rate. Then each report, read through, on the present
 * and as of the instant after the first sync (target: within 1.5x).
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

const REPORTS = ['unpaid-invoices', 'order-ageing', 'compliance'] as const;

/** Seconds of one whole run of a report (its detail read through, its sheets made). */
async function reportOnce(mirror: Mirror, name: string, at: string | undefined): Promise<number> {
  const report = reportByName(name);
  if (report === undefined) throw new Error(`no report ${name}`);
  const t = performance.now();
  const result = await report.run({
    db: mirror.db,
    params: {
      time: { ...reportTime(asOfNow('UTC')), mirrorAt: at ?? null },
      orgIds: [],
      options: {},
    },
  });
  for await (const _ of result.detail.rows) {
    // read through
  }
  result.summaries();
  result.warnings();
  result.about();
  return (performance.now() - t) / 1000;
}

/** Each report on the present and as of `at`, interleaved, best of 5 each. */
async function reportTimes(mirror: Mirror, at: string): Promise<Record<string, string>[]> {
  const rows: Record<string, string>[] = [];
  for (const name of REPORTS) {
    let now = Number.POSITIVE_INFINITY;
    let past = Number.POSITIVE_INFINITY;
    for (let k = 0; k < 5; k++) {
      now = Math.min(now, await reportOnce(mirror, name, undefined));
      past = Math.min(past, await reportOnce(mirror, name, at));
    }
    rows.push({
      engine: mirror.engine,
      report: name,
      'now s': now.toFixed(3),
      'as of 1st sync s': past.toFixed(3),
      'as-of/now': (past / now).toFixed(2),
    });
  }
  return rows;
}

async function nights(
  target: string,
  scale: number,
): Promise<{ growth: Record<string, string | number>; times: Record<string, string>[] }> {
  const sim = await startSim({ seed: 5, scale, anchorDate: '2026-06-15', token: TOKEN });
  const client = configuredClient(sim.url, TOKEN, {
    concurrency: 8,
    requestsPerSecond: 5000,
    timeoutMs: 10_000,
    maxRetries: 8,
    retryBaseMs: 5,
    retryMaxMs: 100,
    ...pagingOptions(defaults.api),
  });
  const mirror = await openMirror(target);
  try {
    const sync = async (full: boolean) => {
      const r = await runSync(client, mirror, logger, {
        ...defaults.sync,
        idStart: { ...ID_START },
        progress: false,
        full,
      });
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
    const times = await reportTimes(mirror, between);
    const growth = {
      engine: mirror.engine,
      'changes/night': size,
      'history after 1st sync MB': (first.bytes / 1e6).toFixed(1),
      'versions/night': Math.round((last.versions - first.versions) / NIGHTS),
      'bytes/version': Math.round((last.bytes - first.bytes) / Math.max(1, last.versions - first.versions)),
      'bytes/night': Math.round(perNight),
      'MB/year': ((perNight * 365) / 1e6).toFixed(1),
    };
    return { growth, times };
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
    const ran = [
      await nights(join(dir, 'history.sqlite'), scale),
      await nights(server.createDatabase('history'), scale),
    ];
    return [
      `history growth: the sandbox (scale ${scale}) synced in full, then ${NIGHTS} nights of its mutations, each followed by an incremental sync; history tables with their indexes`,
      table(ran.map((r) => r.growth)),
      'each report read through (detail, sheets) on the present and as of the instant after the first sync, interleaved, best of 5',
      table(ran.flatMap((r) => r.times)),
    ].join('\n');
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
