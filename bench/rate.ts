import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { type MetricsSnapshot, NotFoundError, type OhsClient } from '../src/api/index.js';
import { createLogger } from '../src/log.js';
import { MirrorRateBudget, openMirror, tableDefs } from '../src/mirror/index.js';
import { runSync, type SyncReport, streams } from '../src/sync/index.js';
import { modelCases } from './rate-model.js';
import { queueCases } from './rate-queue.js';
import { sweepCases } from './rate-sweep.js';
import { configuredClient, defaults, spawnSandbox } from './sandbox.js';

/**
 * `npm run bench -- rate [--scale X]`: the adaptive rate (src/api/rate) against the sandbox in
 * its own process, every ratio against a baseline of the same run:
 * - no limit: a full sync beside a bare undici loop replaying exactly the requests the sandbox
 *   received from it (recorded by the sandbox), at the same concurrency; once with the sandbox
 *   answering at once (latency 0: a contest of CPU, so each side's CPU seconds are printed too)
 *   and once with a service-like latency (20 ms +- 10, a LAN service), which both sides see;
 * - limits of 150 and 20 req/s the tool is not told: share of the limit used over the whole sync,
 *   share of 429s (and 20 req/s with RateLimit headers, planned instead of probed);
 * - a full sync and an apply of 200 payments, two real `ohs` processes on one mirror, against
 *   40 req/s: the worst 5-second window of both together, share of 429s;
 * - requests per id-stream record on a full pass; an incremental sync with nothing changed;
 * - against a sandbox that queues like a server (bench/rate-queue.ts): a full sync against a flat
 *   fetch loop at its best fixed concurrency, and the 150 (behind 200 ms) and 20 req/s limits.
 * `--scale` multiplies the data sets (default 1: about three minutes on two idle cores); env
 * `OHS_BENCH_RATE=nolimit,latency,150,latency200,faults,20,headers,two,writeback,queue,queue150,queue20`
 * runs only the cases named (nolimit: both latencies, latency: only the 20 ms one; latency200: 150 req/s behind 200 ms of
 * latency; faults: 40 req/s with and without 10% faults; writeback: ohs apply of 200 payments
 * with and without 10% faults at 40 req/s); queue, queue150, queue20: the same against a sandbox
 * that queues like a server (bench/rate-queue.ts); sweep (or sweep-timer, sweep-fifo,
 * sweep-alternating, sweep-cpu, sweep-150, sweep-20): the adaptive concurrency against the best
 * fixed one, per server model (bench/rate-sweep.ts); model: the same models and controllers on a
 * simulated clock, idle and loaded (bench/rate-model.ts).
 */
export const TOKEN = 'bench-token';
const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;
/** The client's concurrency at the start, and its ceiling (config/default.json: one source of defaults). */
const CONCURRENCY = defaults.api.concurrency;
const CEILING = defaults.api.maxConcurrency;
const bin = fileURLToPath(new URL('../../bin/ohs.js', import.meta.url));
const logger = createLogger({ level: 'warn', pretty: false });

export interface Sandbox {
  url: string;
  stop: () => Promise<void>;
}

export interface SimStats {
  requests: number;
  rateLimited: number;
  bySecond: Record<string, number>;
  rateLimitedBySecond: Record<string, number>;
  writesApplied: Record<string, number>;
}

export async function hook<T>(sb: Sandbox, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${sb.url}/__sim${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return (await res.json()) as T;
}

export async function sandbox(scale: number, extra: string[] = []): Promise<Sandbox> {
  const args = ['--scale', String(scale), '--token', TOKEN, '--anchor-date', '2026-06-15', '--hooks'];
  return spawnSandbox([...args, ...extra]);
}

/** CPU seconds (user + system) of this process since `from`. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(from);
  return (u.user + u.system) / 1e6;
};

/** A full (or incremental) sync in this process, with the default adaptive client sharing the mirror's budget. */
export async function sync(
  url: string,
  db: string,
  full: boolean,
): Promise<{ seconds: number; cpu: number; report: SyncReport; metrics: MetricsSnapshot }> {
  const mirror = await openMirror(db);
  const client = configuredClient(url, TOKEN, { concurrency: CONCURRENCY, maxConcurrency: CEILING });
  client.transport.limiter.share(new MirrorRateBudget(mirror.db));
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const report = await runSync(client, mirror, logger, {
      ...defaults.sync,
      full,
      idStart: { ...ID_START },
      progress: false,
    });
    if (report.outcome !== 'ok') throw new Error(`sync ${report.outcome}`);
    const seconds = (performance.now() - started) / 1000;
    return { seconds, cpu: cpuSince(cpu), report, metrics: client.metrics() };
  } finally {
    await client.close();
    await mirror.close();
  }
}

export type Recorded = { method: string; path: string; body: string };

/**
 * The sync's own shape for a kind of request: GETs by id in batches of 16 (id-runner's BATCH), a
 * query stream's partitions at once, lists one at a time; never more than the client's 8 in flight.
 */
function syncShape(op: string): { concurrency: number; batch: number } {
  if (op.startsWith('GET ') && op.includes('{id}')) return { concurrency: CONCURRENCY, batch: 16 };
  const decl = streams.find((d) => op.toLowerCase().endsWith(`/${d.resource.toLowerCase()}`));
  const parts =
    op.startsWith('POST ') && decl?.kind === 'query' && decl.partitioned ? defaults.sync.partitions : 1;
  return { concurrency: Math.min(CONCURRENCY, parts), batch: Number.POSITIVE_INFINITY };
}

/** `group` through `workers` at once. */
async function pooled(
  group: Recorded[],
  workers: number,
  send: (r: Recorded) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let r = group[next++]; r !== undefined; r = group[next++]) await send(r);
    }),
  );
}

/**
 * The recorded requests again, as a bare undici loop (the ceiling): operation after operation in
 * the order the sync first used them, each at the concurrency the sync gives it (GETs by id in
 * batches of 16 at once, a query stream's partitions at once). `flat`: all of them through
 * CONCURRENCY workers in the order received, no batch and no operation waiting for another (the
 * sync's streams run at once, so with latency it beats the shaped loop; this one it cannot).
 */
async function replay(
  sb: Sandbox,
  recorded: Recorded[],
  via?: OhsClient,
  flat = false,
  fair?: FairStore,
): Promise<{ seconds: number; cpu: number; records: number }> {
  const url = new URL(sb.url);
  // A flat loop keeps as many requests in flight as the sync's ceiling allows.
  const workers = flat ? CEILING : CONCURRENCY;
  const pool = new Pool(url.origin, { connections: workers, pipelining: 1 });
  const prefix = url.pathname.replace(/\/+$/, '');
  const groups = new Map<string, Recorded[]>();
  for (const r of recorded) {
    const op = `${r.method} ${r.path.replace(/\?.*$/, '').replace(/\/[^/]*\d[^/]*/g, '/{id}')}`;
    groups.set(op, [...(groups.get(op) ?? []), r]);
  }
  const bare = async (r: Recorded) => {
    const res = await pool.request({
      method: r.method as 'GET',
      path: `${prefix}${r.path}`,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: r.body === '' ? null : r.body,
    });
    const text = await res.body.text();
    if (fair !== undefined && res.statusCode === 200) fair.add(JSON.parse(text) as unknown);
  };
  // The same requests through our client's transport (queue, adaptive rate, retries, JSON).
  const client = async (r: Recorded) => {
    await via?.transport
      .send({
        method: r.method as 'GET',
        path: r.path,
        ...(r.body === '' ? {} : { body: JSON.parse(r.body) as unknown }),
        idempotent: true,
      })
      .catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      });
  };
  const send = via === undefined ? bare : client;
  const started = performance.now();
  const cpu = process.cpuUsage();
  if (flat) await pooled(recorded, workers, send);
  else {
    for (const [op, group] of groups) {
      const shape = syncShape(op);
      for (let i = 0; i < group.length; i += shape.batch)
        await pooled(group.slice(i, i + shape.batch), shape.concurrency, send);
    }
  }
  fair?.flush();
  const seconds = (performance.now() - started) / 1000;
  const used = cpuSince(cpu);
  await pool.close();
  return { seconds, cpu: used, records: fair?.records ?? 0 };
}

/**
 * The fair bare loop's store: each answer's records (a page, or one record) upserted into a
 * SQLite table by a prepared statement, in pages of 250 per transaction, as JSON text: the least
 * a mirror must do per record (no checks, no masking, no comparison with the stored row).
 */
class FairStore {
  records = 0;
  private readonly db: Database.Database;
  private readonly upsert: Database.Statement;
  private readonly page: [string, string][] = [];
  private readonly write: (rows: [string, string][]) => void;

  constructor(file: string) {
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS rec (id TEXT PRIMARY KEY, raw TEXT NOT NULL)');
    this.upsert = this.db.prepare(
      'INSERT INTO rec (id, raw) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET raw = excluded.raw',
    );
    this.write = this.db.transaction((rows: [string, string][]) => {
      for (const [id, raw] of rows) this.upsert.run(id, raw);
    });
  }

  add(body: unknown): void {
    const list = Array.isArray(body) ? body : [body];
    for (const r of list as { id?: unknown }[]) this.page.push([String(r.id), JSON.stringify(r)]);
    this.records += list.length;
    if (this.page.length >= 250) this.flush();
  }

  flush(): void {
    this.write(this.page.splice(0));
  }

  close(): void {
    this.db.close();
  }
}

function idStreamCost(report: SyncReport): string {
  const ids = new Set<string>(streams.filter((s) => s.kind === 'ids').map((s) => s.name));
  let requests = 0;
  let records = 0;
  for (const s of report.streams) {
    if (!ids.has(s.stream)) continue;
    requests += s.requests;
    records += s.stats.inserted + s.stats.updated + s.stats.unchanged;
  }
  return `${(requests / Math.max(1, records)).toFixed(2)} (${requests} requests, ${records} records)`;
}

/** Requests per second in the worst `span`-second window of a per-second histogram. */
function worstWindow(bySecond: Record<string, number>, span = 5): number {
  const secs = Object.keys(bySecond).map(Number);
  if (secs.length === 0) return 0;
  const from = Math.min(...secs);
  const to = Math.max(...secs);
  let worst = 0;
  for (let s = from; s <= Math.max(from, to - span + 1); s++) {
    let n = 0;
    for (let k = s; k < s + span; k++) n += bySecond[String(k)] ?? 0;
    worst = Math.max(worst, n / span);
  }
  return worst;
}

function minus(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v - (b[k] ?? 0)]));
}

export const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;

interface Timed {
  seconds: number;
  cpu: number;
}
/** Rounds of each no-limit side: the first into a fresh mirror, the others re-syncs. */
const ROUNDS = 4;
const best = (a: Timed | undefined, b: Timed) => (a === undefined || b.seconds < a.seconds ? b : a);

/**
 * A full sync beside the bare loop (and the client's transport alone) replaying its requests,
 * best of two rounds each, interleaved (a shared machine has hiccups); the second full pass
 * rewrites every row of the first. `latency`: the sandbox's added latency and jitter (ms), which
 * the sync and both loops see alike.
 */
async function noLimit(
  scale: number,
  dir: string,
  latency?: { ms: number; jitterMs: number },
): Promise<string[]> {
  const extra =
    latency === undefined
      ? []
      : ['--latency-ms', String(latency.ms), '--latency-jitter-ms', String(latency.jitterMs)];
  const sb = await sandbox(scale, ['--record-requests', ...extra]);
  try {
    const db = join(dir, `nolimit-${latency?.ms ?? 0}.sqlite`);
    let full: Awaited<ReturnType<typeof sync>> | undefined;
    let bare: Timed | undefined;
    let viaClient: Timed | undefined;
    let flat: Timed | undefined;
    let fair: Timed | undefined;
    let fairRecords = 0;
    let recorded: Recorded[] = [];
    // CPU per record, each side's least over the rounds (the first: a fresh mirror and a cold
    // JIT, kept apart as `cold`): a long sync runs warm.
    const cpu = { sync: Number.POSITIVE_INFINITY, fair: Number.POSITIVE_INFINITY, coldSync: 0, coldFair: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      await hook(sb, 'GET', '/requests');
      const run = await sync(sb.url, db, true);
      if (full === undefined || run.seconds < full.seconds) full = run;
      cpu.sync = Math.min(cpu.sync, run.cpu);
      if (round === 0) cpu.coldSync = run.cpu;
      recorded = await hook<Recorded[]>(sb, 'GET', '/requests');
      bare = best(bare, await replay(sb, recorded));
      flat = best(flat, await replay(sb, recorded, undefined, true));
      if (latency === undefined) {
        const store = new FairStore(join(dir, `fair-${round}.sqlite`));
        const f = await replay(sb, recorded, undefined, true, store);
        store.close();
        fairRecords = f.records;
        fair = best(fair, f);
        cpu.fair = Math.min(cpu.fair, f.cpu);
        if (round === 0) cpu.coldFair = f.cpu;
      }
      const c = configuredClient(sb.url, TOKEN, { concurrency: CONCURRENCY, maxConcurrency: CEILING });
      viaClient = best(viaClient, await replay(sb, recorded, c));
      await c.close();
    }
    if (full === undefined || bare === undefined || viaClient === undefined || flat === undefined)
      throw new Error('no full sync');
    const load = loadavg()[0]?.toFixed(1);
    const where =
      latency === undefined
        ? `sandbox answering at once: a contest of CPU`
        : `sandbox latency ${latency.ms + latency.jitterMs / 2} ms +- ${latency.jitterMs / 2}`;
    const syncRecords = full.report.streams.reduce((n, st) => n + st.stats.records, 0);
    const lines = [
      `no limit (scale ${scale}, ${where}, load ${load}): full sync ${recorded.length} requests in ${full.seconds.toFixed(2)} s (${full.cpu.toFixed(2)} s CPU), concurrency ${JSON.stringify(full.metrics.concurrency)}; a flat bare undici loop of the same requests keeping ${CEILING} in flight (the sync's ceiling) ${flat.seconds.toFixed(2)} s (${flat.cpu.toFixed(2)} s CPU): sync at ${(flat.seconds / full.seconds).toFixed(2)}x it (target >= 0.9); rate cuts ${JSON.stringify(full.metrics.rate?.cuts)}`,
      `  the same requests shaped as the sync sends them (GETs by id 16 at a time, partitions at once, ${CONCURRENCY} in flight) ${bare.seconds.toFixed(2)} s (${bare.cpu.toFixed(2)} s CPU): sync at ${(bare.seconds / full.seconds).toFixed(2)}x it`,
      `  the same requests through the client (its queue, adaptive rate, retries, JSON) ${viaClient.seconds.toFixed(2)} s (${viaClient.cpu.toFixed(2)} s CPU): ${(bare.seconds / viaClient.seconds).toFixed(2)}x the bare loop (the transport's own cost); the rest of the sync's time is its own work per record (parse, map, SQLite)`,
    ];
    if (fair !== undefined) {
      const perSync = cpu.sync / Math.max(1, syncRecords);
      const perFair = cpu.fair / Math.max(1, fairRecords);
      lines.push(
        `  CPU per record, least of ${ROUNDS} rounds: sync ${(perSync * 1e6).toFixed(1)} us (${cpu.sync.toFixed(2)} s, ${syncRecords} records), a fair bare loop (the same requests, JSON.parse, prepared upsert in pages of 250) ${(perFair * 1e6).toFixed(1)} us (${cpu.fair.toFixed(2)} s, ${fairRecords} records): ratio ${(perFair / perSync).toFixed(2)} (target >= 0.8); the first round (fresh mirror, cold JIT) ${cpu.coldSync.toFixed(2)} s vs ${cpu.coldFair.toFixed(2)} s: ${(cpu.coldFair / cpu.coldSync).toFixed(2)}`,
        // What the least a mirror must do costs in wall time: the fair loop, 48 in flight like the
        // flat one, against the flat loop that parses nothing (the ceiling of any sync here).
        `  the fair loop's wall time ${fair.seconds.toFixed(2)} s (${fair.cpu.toFixed(2)} s CPU) vs the flat loop's ${flat.seconds.toFixed(2)} s: ${(flat.seconds / fair.seconds).toFixed(2)}x it (a sync doing at least the fair loop's work is bounded by this)`,
      );
    }
    if (latency !== undefined) return lines;
    await hook(sb, 'POST', '/reset-stats');
    await sync(sb.url, db, false);
    const incremental = await hook<SimStats>(sb, 'GET', '/stats');
    return [
      ...lines,
      `  requests per id-stream record, full pass: ${idStreamCost(full.report)}`,
      `  incremental with nothing changed: ${incremental.requests} requests, ${pct(incremental.requests, recorded.length)} of the full sync's (target <= 20%)`,
    ];
  } finally {
    await sb.stop();
  }
}

async function limited(
  scale: number,
  dir: string,
  limit: number,
  headers = 'none',
  latencyMs = 0,
): Promise<string> {
  const lat = latencyMs > 0 ? ['--latency-ms', String(latencyMs)] : [];
  const sb = await sandbox(scale, ['--rate-limit', String(limit), '--rate-headers', headers, ...lat]);
  try {
    const full = await sync(sb.url, join(dir, `limit-${limit}-${headers}-${latencyMs}.sqlite`), true);
    const st = await hook<SimStats & { inFlight: { mean: number } }>(sb, 'GET', '/stats');
    const used = (st.requests - st.rateLimited) / full.seconds;
    const rate = full.metrics.rate;
    // What could hold it below the limit: too few in flight at the sandbox (limit × latency are
    // needed), the rate in force, or this process's CPU (the sync's own work on a loaded machine).
    const why = `; sandbox in flight mean ${st.inFlight.mean} (${((limit * latencyMs) / 1000).toFixed(0)} needed), rate at the end ${rate?.rate}, sync CPU ${full.cpu.toFixed(1)} s of ${full.seconds.toFixed(1)} s`;
    const leases =
      rate === undefined
        ? ''
        : `, budget ${rate.leases} round trips ${rate.leaseMs.toFixed(0)} ms (${pct(rate.leaseMs / 1000, full.seconds)} of the sync)`;
    const at = latencyMs > 0 ? `, service latency ${latencyMs} ms` : '';
    return `limit ${limit} req/s${headers === 'none' ? ', not told' : `, ${headers} RateLimit headers`}${at} (scale ${scale}, load ${loadavg()[0]?.toFixed(1)}): concurrency ${JSON.stringify(full.metrics.concurrency)}, ${st.requests} requests in ${full.seconds.toFixed(1)} s, ${used.toFixed(1)} req/s answered = ${(used / limit).toFixed(2)}x the limit (target >= 0.85), 429: ${pct(st.rateLimited, st.requests)} (target <= 3%), cuts ${JSON.stringify(rate?.cuts)}${leases}${why}`;
  } finally {
    await sb.stop();
  }
}

/** Rows (id, raw JSON, deleted or not) of every mirrored table in `a` and not in `b`, and back. */
function diffs(a: string, b: string): number {
  const db = new Database(a, { readonly: true });
  try {
    db.prepare('ATTACH DATABASE ? AS other').run(b);
    let n = 0;
    for (const t of tableDefs) {
      const cols = `id, raw, deleted_at IS NULL`;
      const name = `"${t.table}"`;
      const one = db.prepare(
        `SELECT count(*) AS n FROM (SELECT ${cols} FROM main.${name} EXCEPT SELECT ${cols} FROM other.${name})`,
      );
      const two = db.prepare(
        `SELECT count(*) AS n FROM (SELECT ${cols} FROM other.${name} EXCEPT SELECT ${cols} FROM main.${name})`,
      );
      n += (one.get() as { n: number }).n + (two.get() as { n: number }).n;
    }
    return n;
  } finally {
    db.close();
  }
}

/**
 * A full sync against `limit` req/s, with and without 10% faults (503 with Retry-After 1,
 * dropped connections, bodies cut short), on two sandboxes of the same seed: the time of the
 * faulty one over the clean one, and the rows that differ between the two mirrors.
 */
async function withFaults(scale: number, dir: string, limit: number): Promise<string> {
  const run = async (faulty: boolean) => {
    const extra = faulty ? ['--faults', '0.1', '--fault-kinds', '503,drop,truncate'] : [];
    const sb = await sandbox(scale, ['--rate-limit', String(limit), ...extra]);
    try {
      if (faulty) await hook(sb, 'POST', '/config', { faultRetryAfter: 1 });
      const db = join(dir, `faults-${faulty}.sqlite`);
      const full = await sync(sb.url, db, true);
      const st = await hook<SimStats & { faults: Record<string, number> }>(sb, 'GET', '/stats');
      return { db, full, st };
    } finally {
      await sb.stop();
    }
  };
  const clean = await run(false);
  const faulty = await run(true);
  const n = diffs(clean.db, faulty.db);
  const r = faulty.full.metrics.rate;
  return `limit ${limit} req/s with 10% faults (scale ${scale}, load ${loadavg()[0]?.toFixed(1)}): full sync ${faulty.full.seconds.toFixed(1)} s vs ${clean.full.seconds.toFixed(1)} s without faults = ${(faulty.full.seconds / clean.full.seconds).toFixed(2)}x (target <= 1.3); faults ${JSON.stringify(faulty.st.faults)}; cuts ${JSON.stringify(r?.cuts)} (without faults ${JSON.stringify(clean.full.metrics.rate?.cuts)}), holds ${r?.holds}, lowest cut ${r?.lowestCut} req/s; 429: ${pct(faulty.st.rateLimited, faulty.st.requests)}; ${n} rows differ between the two mirrors (target 0)`;
}

async function ohs(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; err: string; seconds: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...process.env, OHS_TOKEN: TOKEN },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, err, seconds: (performance.now() - started) / 1000 };
}

/**
 * A mirror in `cwd` holding the sandbox's invoices (`ohs sync invoice`), and 200 payments of 1.00
 * planned against them (up to `perInvoice` to each open invoice, never more than its balance).
 */
async function plannedPayments(sb: Sandbox, cwd: string, perInvoice = 20): Promise<void> {
  mkdirSync(join(cwd, 'config'), { recursive: true });
  writeFileSync(
    join(cwd, 'config', 'local.json'),
    JSON.stringify({ baseUrl: sb.url, logLevel: 'warn', sync: { idStart: ID_START } }),
  );
  const prep = await ohs(['sync', 'invoice'], cwd);
  if (prep.code !== 0) throw new Error(`ohs sync invoice: ${prep.err}`);
  const invoices = await hook<{ id: string; balance: number | null; dropInvoice?: string }[]>(
    sb,
    'GET',
    '/truth/Invoice',
  );
  const rows: string[] = [];
  for (const i of invoices) {
    if (i.dropInvoice !== undefined) continue;
    const room = Math.min(perInvoice, Math.floor(i.balance ?? 0));
    for (let k = 0; k < room && rows.length < 200; k++) rows.push(`${i.id},1.00`);
  }
  if (rows.length < 200) throw new Error(`room for ${rows.length} payments only: use a larger --scale`);
  writeFileSync(join(cwd, 'payments.csv'), `${['InvoiceId,amountToPay', ...rows].join('\n')}\n`);
  const plan = await ohs(['plan', 'payments.csv', '--op', 'payment'], cwd);
  if (plan.code !== 0) throw new Error(`ohs plan: ${plan.err}`);
}

/** A full sync and an apply of 200 payments, two `ohs` processes at once on one mirror. */
async function twoProcesses(scale: number, dir: string, limit: number): Promise<string> {
  const sb = await sandbox(scale);
  try {
    const cwd = join(dir, 'two');
    // The payments are planned against the mirror's invoices (an earlier sync, before the limit).
    await plannedPayments(sb, cwd);
    // A quarter second of burst: the 5-second windows then measure the tool, not the sandbox's burst.
    await hook(sb, 'POST', '/config', { rateLimit: limit, rateBurst: Math.ceil(limit / 4) });
    await hook(sb, 'POST', '/reset-stats');
    const started = performance.now();
    const [s, a] = await Promise.all([ohs(['sync', '--full'], cwd), ohs(['apply', '--yes'], cwd)]);
    const seconds = (performance.now() - started) / 1000;
    if (s.code !== 0) throw new Error(`ohs sync --full: exit ${s.code}: ${s.err.slice(-500)}`);
    if (a.code !== 0) throw new Error(`ohs apply: exit ${a.code}: ${a.err.slice(-500)}`);
    const st = await hook<SimStats>(sb, 'GET', '/stats');
    const payments = st.writesApplied.createPayment ?? 0;
    if (payments !== 200) throw new Error(`${payments} payments made, not 200`);
    const sent = worstWindow(st.bySecond);
    const answered = worstWindow(minus(st.bySecond, st.rateLimitedBySecond));
    return `two processes on one mirror (ohs sync --full and ohs apply of 200 payments, scale ${scale}) against ${limit} req/s: ${st.requests} requests in ${seconds.toFixed(1)} s (sync ${s.seconds.toFixed(1)} s, apply ${a.seconds.toFixed(1)} s), ${(st.requests / seconds).toFixed(1)} req/s together; worst 5 s window ${answered.toFixed(1)} req/s answered, ${sent.toFixed(1)} sent with the 429s (target <= ${limit}); 429: ${pct(st.rateLimited, st.requests)} (target <= 3%); 200 payments, each once`;
  } finally {
    await sb.stop();
  }
}

/**
 * `ohs apply` of 200 payments (two per invoice: lanes of two) against `limit` req/s, with and
 * without 10% faults (503 with Retry-After 1, dropped connections, bodies cut short) switched on
 * once the payments are planned, on two sandboxes of the same seed. A write whose outcome is
 * unknown is never resent in the run that sent it (docs/writeback.md): it is read back, and
 * resent only after two agreeing reads in as many runs, so `ohs apply` runs again until it exits
 * 0 (at most 8 runs), as a nightly job would. Figures: the faulty applies' seconds over the clean
 * one's, each payment made once on both, and the invoices whose balance differs between the two.
 */
async function writebackWithFaults(scale: number, dir: string, limit: number): Promise<string> {
  const run = async (faulty: boolean) => {
    const sb = await sandbox(scale);
    try {
      const cwd = join(dir, `apply-${faulty}`);
      await plannedPayments(sb, cwd, 2);
      await hook(sb, 'POST', '/config', {
        rateLimit: limit,
        ...(faulty ? { faultRate: 0.1, faultKinds: ['503', 'drop', 'truncate'], faultRetryAfter: 1 } : {}),
      });
      await hook(sb, 'POST', '/reset-stats');
      let seconds = 0;
      let runs = 0;
      for (let code: number | null = 5; code === 5 && runs < 8; runs++) {
        const apply = await ohs(['apply', '--yes'], cwd);
        seconds += apply.seconds;
        code = apply.code;
        if (code !== 0 && code !== 5) throw new Error(`ohs apply: exit ${code}: ${apply.err.slice(-500)}`);
      }
      const st = await hook<SimStats & { faults: Record<string, number> }>(sb, 'GET', '/stats');
      const payments = st.writesApplied.createPayment ?? 0;
      if (payments !== 200) throw new Error(`${payments} payments made, not 200 (faults ${faulty})`);
      const balances = await hook<{ id: string; balance: number | null }[]>(sb, 'GET', '/truth/Invoice');
      return { seconds, runs, st, balances: new Map(balances.map((i) => [i.id, i.balance])) };
    } finally {
      await sb.stop();
    }
  };
  const clean = await run(false);
  const faulty = await run(true);
  let differ = 0;
  for (const [id, b] of clean.balances) if (faulty.balances.get(id) !== b) differ++;
  const ratio = faulty.seconds / clean.seconds;
  return `write-back against ${limit} req/s with 10% faults (scale ${scale}, load ${loadavg()[0]?.toFixed(1)}): ohs apply of 200 payments, two per invoice, ${faulty.seconds.toFixed(1)} s in ${faulty.runs} runs (${faulty.st.requests} requests) vs ${clean.seconds.toFixed(1)} s in ${clean.runs} (${clean.st.requests} requests) without faults = ${ratio.toFixed(2)}x (target <= 1.3); faults ${JSON.stringify(faulty.st.faults)}; 200 payments each once on both; ${differ} invoice balances differ between the two services (target 0)`;
}

export async function benchRate(scale: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'ohs-bench-rate-'));
  try {
    const lines = [
      'Rate: the adaptive rate and the shared budget (src/api/rate), sandbox in its own process',
    ];
    const only = process.env.OHS_BENCH_RATE?.split(',');
    const run = (name: string) => only === undefined || only.includes(name);
    if (run('nolimit')) lines.push(...(await noLimit(0.3 * scale, dir)));
    if (run('nolimit') || run('latency'))
      lines.push(...(await noLimit(0.3 * scale, dir, { ms: 10, jitterMs: 20 })));
    if (run('150')) lines.push(await limited(0.3 * scale, dir, 150));
    if (run('latency200')) lines.push(await limited(0.3 * scale, dir, 150, 'none', 200));
    if (run('faults')) lines.push(await withFaults(0.05 * scale, dir, 40));
    if (run('20')) lines.push(await limited(0.05 * scale, dir, 20));
    if (run('headers')) lines.push(await limited(0.05 * scale, dir, 20, 'draft'));
    if (run('two')) lines.push(await twoProcesses(0.1 * scale, dir, 40));
    if (run('writeback')) lines.push(await writebackWithFaults(0.3 * scale, dir, 40));
    if (run('model')) lines.push(...modelCases());
    lines.push(...(await queueCases(scale, dir, run)));
    lines.push(...(await sweepCases(scale, dir, only)));
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
