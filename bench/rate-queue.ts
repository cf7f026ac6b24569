import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { hook, pct, type Recorded, type Sandbox, type SimStats, sandbox, sync, TOKEN } from './rate.js';

/**
 * The rate cases against a sandbox that queues like a server (`--workers 4 --service-ms 5`: four
 * requests served at a time, 5 ms each for up to 100 records, the rest waiting), where latency
 * grows with what is in flight, as a real service's does:
 * - no limit: a full sync against a flat loop replaying exactly its requests at a fixed
 *   concurrency (4, 8, 16, 32 and 48 tried, the fastest taken), best of two rounds each;
 * - a 150 req/s limit behind 200 ms of network latency, and a 20 req/s limit, neither told to the
 *   tool: share of the limit used over the whole sync, share of 429s.
 */
const QUEUE = ['--workers', '4', '--service-ms', '5'];
const WHERE = 'queueing sandbox, 4 workers, 5 ms per 100 records';
const LOOP_CONCURRENCY = [4, 8, 16, 32, 48];
const ROUNDS = 2;

interface QueueStats {
  served: number;
  peakDepth: number;
  busyMs: number;
  waitMs: number;
}
type Stats = SimStats & { queue: QueueStats };

/** The recorded requests again through `workers` connections, each sent as the previous one answers. */
async function flatLoop(sb: Sandbox, recorded: Recorded[], workers: number): Promise<number> {
  const url = new URL(sb.url);
  const prefix = url.pathname.replace(/\/+$/, '');
  const pool = new Pool(url.origin, { connections: workers, pipelining: 1 });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let r = recorded[next++]; r !== undefined; r = recorded[next++]) {
        const res = await pool.request({
          method: r.method as 'GET',
          path: `${prefix}${r.path}`,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: r.body === '' ? null : r.body,
        });
        await res.body.text();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return seconds;
}

/** The queue's figures of a run: its peak depth and how busy the workers were. */
function queueLine(q: QueueStats, seconds: number): string {
  const busy = q.busyMs / (4 * 1000 * seconds);
  return `queue peak depth ${q.peakDepth}, workers busy ${(100 * busy).toFixed(0)}%, mean wait ${(q.waitMs / Math.max(1, q.served)).toFixed(1)} ms`;
}

async function noLimit(scale: number, dir: string): Promise<string[]> {
  const sb = await sandbox(scale, ['--record-requests', ...QUEUE]);
  try {
    const db = join(dir, 'queue-nolimit.sqlite');
    let full: Awaited<ReturnType<typeof sync>> | undefined;
    let fullStats: Stats | undefined;
    let requests = 0;
    const loops = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      await hook(sb, 'GET', '/requests');
      await hook(sb, 'POST', '/reset-stats');
      const run = await sync(sb.url, db, true);
      const st = await hook<Stats>(sb, 'GET', '/stats');
      if (full === undefined || run.seconds < full.seconds) {
        full = run;
        fullStats = st;
      }
      const recorded = await hook<Recorded[]>(sb, 'GET', '/requests');
      requests = recorded.length;
      for (const n of LOOP_CONCURRENCY) {
        const s = await flatLoop(sb, recorded, n);
        loops.set(n, Math.min(loops.get(n) ?? Number.POSITIVE_INFINITY, s));
      }
    }
    if (full === undefined || fullStats === undefined) throw new Error('no full sync');
    const [bestN, bestS] = [...loops].reduce((a, b) => (b[1] < a[1] ? b : a));
    const each = [...loops].map(([n, s]) => `${n}: ${s.toFixed(2)} s`).join(', ');
    return [
      `no limit (${WHERE}, scale ${scale}, load ${loadavg()[0]?.toFixed(1)}): full sync ${requests} requests in ${full.seconds.toFixed(2)} s, concurrency ${JSON.stringify(full.metrics.concurrency)}, rate cuts ${JSON.stringify(full.metrics.rate?.cuts)}, ${queueLine(fullStats.queue, full.seconds)}`,
      `  a flat fetch loop of the same requests at fixed concurrency (best of ${ROUNDS}) ${each}; fastest ${bestN} in flight: sync at ${(bestS / full.seconds).toFixed(2)}x it (target >= 0.85)`,
    ];
  } finally {
    await sb.stop();
  }
}

async function limited(scale: number, dir: string, limit: number, latencyMs = 0): Promise<string> {
  const lat = latencyMs > 0 ? ['--latency-ms', String(latencyMs)] : [];
  const sb = await sandbox(scale, [...QUEUE, '--rate-limit', String(limit), ...lat]);
  try {
    const full = await sync(sb.url, join(dir, `queue-limit-${limit}-${latencyMs}.sqlite`), true);
    const st = await hook<Stats>(sb, 'GET', '/stats');
    const used = (st.requests - st.rateLimited) / full.seconds;
    const target = limit >= 100 ? 0.9 : 0.95;
    const at = latencyMs > 0 ? `, network latency ${latencyMs} ms` : '';
    return `limit ${limit} req/s, not told (${WHERE}${at}, scale ${scale}, load ${loadavg()[0]?.toFixed(1)}): concurrency ${JSON.stringify(full.metrics.concurrency)}, ${st.requests} requests in ${full.seconds.toFixed(1)} s, ${used.toFixed(1)} req/s answered = ${(used / limit).toFixed(2)}x the limit (target >= ${target}), 429: ${pct(st.rateLimited, st.requests)} (target <= 3%), cuts ${JSON.stringify(full.metrics.rate?.cuts)}, ${queueLine(st.queue, full.seconds)}`;
  } finally {
    await sb.stop();
  }
}

/** The queueing cases `run` selects (`queue`, `queue150`, `queue20`). */
export async function queueCases(
  scale: number,
  dir: string,
  run: (name: string) => boolean,
): Promise<string[]> {
  const lines: string[] = [];
  if (run('queue')) lines.push(...(await noLimit(0.3 * scale, dir)));
  if (run('queue150')) lines.push(await limited(0.3 * scale, dir, 150, 200));
  if (run('queue20')) lines.push(await limited(0.05 * scale, dir, 20));
  return lines;
}
