import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { NotFoundError, type OhsClient } from '../src/api/index.js';
import { createLogger } from '../src/log.js';
import { type Mirror, openMirror } from '../src/mirror/index.js';
import { runSync, streams } from '../src/sync/index.js';
import type { IdStreamDecl, QueryStreamDecl } from '../src/sync/types.js';
import { configuredClient, defaults, measure, spawnScaledSandbox, table } from './sandbox.js';

/**
 * Full sync of the sandbox, stream by stream, beside a fetch-only pass that makes the same
 * requests without SQLite (the ceiling), in the same run; then an incremental sync with nothing
 * changed, against the full one.
 */
const TOKEN = 'bench-token';
const idStart = { invoice: 240001, staff: 6001, applicant: 9001 } as const;
const PARTITIONS = defaults.sync.partitions;
const PROBE_WINDOW = 100;

function client(url: string): OhsClient {
  return configuredClient(url, TOKEN, { concurrency: 8, requestsPerSecond: 100_000 });
}

async function fetchQuery(c: OhsClient, decl: QueryStreamDecl): Promise<number> {
  const edge = async (dir: 'asc' | 'desc') =>
    Number(
      (await c.query(decl.resource, { sortBy: 'id', sortDirection: dir, pageSize: 1, return: ['id'] }))
        .records[0]?.id,
    );
  const n = decl.partitioned ? PARTITIONS : 1;
  const min = await edge('asc');
  const max = await edge('desc');
  const step = Math.ceil((max - min + 1) / n);
  const parts = Array.from({ length: n }, (_, i) => ({
    after: i === 0 ? undefined : min - 1 + i * step,
    atMost: i === n - 1 ? undefined : min - 1 + (i + 1) * step,
  }));
  const counts = await Promise.all(
    parts.map(async (p) => {
      let k = 0;
      for await (const page of c.scan(decl.resource, {
        ...(p.after === undefined ? {} : { after: p.after }),
        ...(p.atMost === undefined ? {} : { atMost: p.atMost }),
      })) {
        k += page.records.length;
      }
      return k;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function fetchIds(c: OhsClient, decl: IdStreamDecl): Promise<number> {
  let next = idStart[decl.name as keyof typeof idStart];
  let misses = 0;
  let found = 0;
  while (misses < 50) {
    const batch = Array.from({ length: 16 }, (_, k) => next + k);
    next += 16;
    const results = await Promise.all(
      batch.map((id) =>
        c.get(decl.resource, decl.resource === 'Invoice' ? String(id) : id, 'all').catch((err: unknown) => {
          if (err instanceof NotFoundError) return undefined;
          throw err;
        }),
      ),
    );
    for (const r of results) {
      if (r === undefined) misses++;
      else {
        misses = 0;
        found++;
      }
    }
  }
  return found;
}

export async function benchSync(scale: number): Promise<string> {
  // Once on a sandbox answering at once (the mirror's writes are the whole difference), once with
  // 20 ms per response, about what a remote service costs.
  return `${await benchSyncAt(scale, 0)}\n\n${await benchSyncAt(scale, 20)}`;
}

async function benchSyncAt(scale: number, latencyMs: number): Promise<string> {
  const sandbox = await spawnScaledSandbox(scale, TOKEN, '--latency-ms', String(latencyMs));
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-'));
  const logger = createLogger({ level: 'warn', pretty: false });
  try {
    const rows: Record<string, string | number>[] = [];
    const mirror = await openMirror(join(dir, 'bench.sqlite'));
    let fullSeconds = 0;
    let fetchSeconds = 0;
    let totalRecords = 0;
    for (const decl of streams) {
      const f = client(sandbox.url);
      const fetchOnly = await measure(async () => {
        if (decl.kind === 'query') return fetchQuery(f, decl);
        if (decl.kind === 'list') return (await f.list(decl.resource, 'all')).records.length;
        return fetchIds(f, decl);
      });
      await f.close();
      const s = client(sandbox.url);
      const synced = await measure(() =>
        runSync(s, mirror, logger, {
          ...defaults.sync,
          streams: [decl.name],
          full: true,
          idStart,
          partitions: PARTITIONS,
          // Wide enough that probing an empty mirror's id streams is not stopped by its bound (100
          // windows above idStart): the sync then sees every record fetch-only does.
          probeWindow: PROBE_WINDOW,
          progress: false,
        }),
      );
      await s.close();
      const stats = synced.result.streams[0]?.stats;
      const records = (stats?.inserted ?? 0) + (stats?.updated ?? 0) + (stats?.unchanged ?? 0);
      if (records !== fetchOnly.result)
        throw new Error(`${decl.name}: sync saw ${records}, fetch-only ${fetchOnly.result}`);
      fullSeconds += synced.seconds;
      fetchSeconds += fetchOnly.seconds;
      totalRecords += records;
      const fetchRate = fetchOnly.result / fetchOnly.seconds;
      const syncRate = records / synced.seconds;
      rows.push({
        stream: decl.name,
        records,
        'fetch-only rec/s': Math.round(fetchRate),
        'sync rec/s': Math.round(syncRate),
        'sync/fetch': `${((100 * syncRate) / fetchRate).toFixed(1)}%`,
        'peak MB': synced.peakRssMb,
      });
    }
    const c = client(sandbox.url);
    const incremental = await measure(() =>
      runSync(c, mirror, logger, { ...defaults.sync, idStart, progress: false }),
    );
    await c.close();
    const again = await fullPassOverMirror(sandbox.url, mirror, join(dir, 'bench.sqlite'));
    await mirror.close();
    return [
      `Sync: full sync of the sandbox (scale ${scale}, ${latencyMs} ms latency) stream by stream, beside fetch-only requests (no SQLite)`,
      table(rows),
      `all streams: ${totalRecords} records, fetch-only ${fetchSeconds.toFixed(2)} s, sync ${fullSeconds.toFixed(2)} s: sync at ${((100 * fetchSeconds) / fullSeconds).toFixed(1)}% of the fetch-only rate`,
      `incremental sync with nothing changed: ${incremental.seconds.toFixed(2)} s (${((100 * incremental.seconds) / fullSeconds).toFixed(1)}% of the full sync)`,
      again,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await sandbox.stop();
  }
}

/**
 * A second --full over the filled mirror, nothing changed upstream, while a reader holds a read
 * transaction (a BI tool): requests per id-stream record, and how much the WAL grew
 * (unchanged rows are not rewritten).
 */
async function fullPassOverMirror(url: string, mirror: Mirror, file: string): Promise<string> {
  // An empty WAL to start from: what the pass adds is then the file's size.
  await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(mirror.db);
  const reader = new Database(file, { readonly: true });
  const wal = () => {
    try {
      return statSync(`${file}-wal`).size;
    } catch {
      return 0;
    }
  };
  const c = client(url);
  try {
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM orderitem').get();
    const before = wal();
    const report = await runSync(c, mirror, createLogger({ level: 'warn', pretty: false }), {
      ...defaults.sync,
      full: true,
      idStart,
      progress: false,
    });
    const grown = (wal() - before) / 1e6;
    const perRecord = report.streams
      .filter((s) => streams.find((d) => d.name === s.stream)?.kind === 'ids')
      .map((s) => `${s.stream} ${(s.requests / Math.max(1, s.stats.records)).toFixed(2)}`)
      .join(', ');
    return `second --full over the mirror, nothing changed, a reader in a read transaction: WAL grew ${grown.toFixed(1)} MB; requests per id-stream record: ${perRecord}`;
  } finally {
    reader.exec('COMMIT');
    reader.close();
    await c.close();
  }
}
