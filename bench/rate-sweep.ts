import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/log.js';
import { MirrorRateBudget, openMirror } from '../src/mirror/index.js';
import { runSync } from '../src/sync/index.js';
import { hook, type SimStats, sandbox, TOKEN } from './rate.js';
import { configuredClient, defaults } from './sandbox.js';

/**
 * The adaptive concurrency against the best fixed one, per server model, in the same run: for
 * each model (bench/README.md, "Rate"), a full sync into a fresh mirror at each fixed concurrency
 * (api.concurrency = api.maxConcurrency = N), then the adaptive one (the configuration's
 * defaults: 8, up to 48); its throughput as a share of the fastest fixed one, the sandbox's peak
 * and mean requests in progress, and the share answered 429. Fixed levels run from the highest
 * down and stop below half the best so far (against these models answers a second never fall
 * and then rise again as fewer are in flight, so a lower level cannot be the best).
 * `OHS_BENCH_RATE=sweep` runs every model; `sweep-timer`, `sweep-fifo`, `sweep-alternating`,
 * `sweep-cpu`, `sweep-150`, `sweep-20` one each.
 */
interface Model {
  name: string;
  what: string;
  flags: string[];
  /**
   * Multiplies the bench's --scale: each sync seconds, not minutes. The servers with no queue
   * and the FIFO workers run syncs of 5 to 8 s at their best level: the adaptive client's start
   * (a window of 200 ms at 8 in flight, one at 16, then 48 or back) costs about 0.3 s whatever
   * the sync, which a one-second sync would weigh as a third of the run, its share of the best
   * and its mean in flight alike (bench/README.md gives those figures too).
   */
  scale: number;
  levels: number[];
}

const ALL = [48, 32, 24, 16, 8, 4, 2, 1];

export const MODELS: Model[] = [
  {
    name: 'timer',
    what: 'timer latency 40 ms (no queue)',
    flags: ['--latency-ms', '40'],
    scale: 0.5,
    levels: ALL,
  },
  {
    name: 'fifo',
    what: 'FIFO workers: 4, 10 ms per 100 records',
    flags: ['--workers', '4', '--service-ms', '10'],
    scale: 0.3,
    levels: ALL,
  },
  {
    name: 'alternating',
    what: 'alternating 3, 44, 8, 47 ms per connection (no queue)',
    flags: ['--latency-cycle-ms', '3,44,8,47'],
    scale: 0.5,
    levels: ALL,
  },
  {
    name: 'cpu',
    what: 'shared CPU: 1 core, 4 ms per 100 records, 20 ms network',
    flags: ['--cpu-ms', '4', '--cpus', '1', '--latency-ms', '20'],
    scale: 0.05,
    levels: ALL,
  },
  {
    name: '150',
    what: '150 req/s not told, 200 ms latency',
    flags: ['--rate-limit', '150', '--latency-ms', '200'],
    scale: 0.1,
    levels: ALL,
  },
  {
    // Any concurrency of 1 or more meets 20 req/s at a few ms of latency: the few lowest levels.
    name: '20',
    what: '20 req/s not told',
    flags: ['--rate-limit', '20'],
    scale: 0.02,
    levels: [8, 4, 2, 1],
  },
];

const logger = createLogger({ level: 'warn', pretty: false });

type Stats = SimStats & { inFlight: { peak: number; mean: number } };

interface Run {
  seconds: number;
  requests: number;
  rateLimited: number;
  peak: number;
  mean: number;
  limit: string;
  /** 429s by second of the run (from its first second with a request): when they came. */
  refusedAt: string;
}

/** The 429s by second of the run, as `second: count` from its first second with a request. */
function refusedBySecond(st: Stats): string {
  const first = Math.min(...Object.keys(st.bySecond).map(Number));
  return Object.entries(st.rateLimitedBySecond)
    .map(([sec, n]) => `${Number(sec) - first}: ${n}`)
    .join(', ');
}

/** A full sync into a fresh mirror at `concurrency` (fixed when `max` equals it). */
async function runOnce(url: string, db: string, concurrency: number, max: number): Promise<Run> {
  const sb = { url, stop: async () => {} };
  await hook(sb, 'POST', '/reset-stats');
  const mirror = await openMirror(db);
  const client = configuredClient(url, TOKEN, { concurrency, maxConcurrency: max });
  client.transport.limiter.share(new MirrorRateBudget(mirror.db));
  const started = performance.now();
  try {
    const report = await runSync(client, mirror, logger, {
      ...defaults.sync,
      full: true,
      idStart: { invoice: 240001, staff: 6001, applicant: 9001 },
      progress: false,
    });
    if (report.outcome !== 'ok') throw new Error(`sync ${report.outcome}`);
    const seconds = (performance.now() - started) / 1000;
    const st = await hook<Stats>(sb, 'GET', '/stats');
    const c = client.metrics().concurrency;
    return {
      seconds,
      requests: st.requests,
      rateLimited: st.rateLimited,
      peak: st.inFlight.peak,
      mean: st.inFlight.mean,
      limit: c === undefined ? '' : `${c.lowest}-${c.highest}, ${c.limit} at the end`,
      refusedAt: refusedBySecond(st),
    };
  } finally {
    await client.close();
    await mirror.close();
  }
}

const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;

/** One model: the fixed levels, then the adaptive sync; a table row and the lines of each run. */
async function sweep(model: Model, scale: number, dir: string): Promise<{ row: string; lines: string[] }> {
  const sb = await sandbox(model.scale * scale, model.flags);
  try {
    // A first sync, not counted: the first run of a process pays its JIT and the sandbox's warm-up.
    await runOnce(sb.url, join(dir, `sweep-${model.name}-warm.sqlite`), 8, 8);
    const fixed = new Map<number, Run>();
    for (const level of model.levels) {
      const run = await runOnce(sb.url, join(dir, `sweep-${model.name}-${level}.sqlite`), level, level);
      fixed.set(level, run);
      if (run.seconds > 2 * Math.min(...[...fixed.values()].map((r) => r.seconds))) break;
    }
    const adaptive = await runOnce(
      sb.url,
      join(dir, `sweep-${model.name}-adaptive.sqlite`),
      defaults.api.concurrency,
      defaults.api.maxConcurrency,
    );
    const [bestN, best] = [...fixed].reduce((a, b) => (b[1].seconds < a[1].seconds ? b : a));
    const share = best.seconds / adaptive.seconds;
    const each = [...fixed].map(([k, r]) => `${k}: ${r.seconds.toFixed(2)} s`).join(', ');
    const load = loadavg()[0]?.toFixed(1);
    const row = `| ${model.what} (scale ${model.scale * scale}) | ${each} | ${bestN} | ${adaptive.seconds.toFixed(2)} s, **${share.toFixed(2)}** | ${adaptive.peak} / ${adaptive.mean} (limit ${adaptive.limit}) | ${pct(adaptive.rateLimited, adaptive.requests)} (best fixed ${pct(best.rateLimited, best.requests)}) | ${load} |`;
    const lines = [
      `${model.name}: ${model.what}, scale ${model.scale * scale}, load ${load}: fixed ${each} (lower levels not run once one took twice the best); adaptive ${adaptive.requests} requests in ${adaptive.seconds.toFixed(2)} s = ${share.toFixed(2)}x the best fixed (${bestN} in flight, ${best.seconds.toFixed(2)} s; target >= 0.85); sandbox in flight peak ${adaptive.peak}, mean ${adaptive.mean} (best fixed: ${best.peak}, ${best.mean}); limit ${adaptive.limit}; 429: ${pct(adaptive.rateLimited, adaptive.requests)} (target <= 3%)${adaptive.rateLimited > 0 ? `, by second of the run ${adaptive.refusedAt} (best fixed: ${best.refusedAt})` : ''}`,
    ];
    return { row, lines };
  } finally {
    await sb.stop();
  }
}

/** The sweep of the models `run` selects (`sweep`, or `sweep-NAME`). */
export async function sweepCases(scale: number, dir: string, only: string[] | undefined): Promise<string[]> {
  const chosen = MODELS.filter(
    (m) => only === undefined || only.includes('sweep') || only.includes(`sweep-${m.name}`),
  );
  if (chosen.length === 0) return [];
  const rows: string[] = [];
  const lines: string[] = [];
  for (const m of chosen) {
    const r = await sweep(m, scale, dir);
    rows.push(r.row);
    lines.push(...r.lines);
  }
  return [
    ...lines,
    '',
    '| server model | fixed concurrency: full sync | best fixed | adaptive: time, share of the best | adaptive in flight at the sandbox: peak / mean | 429 | load |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ];
}
