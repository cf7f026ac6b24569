import { ConcurrencyLimit } from '../src/api/rate/concurrency.js';
import { RateControl } from '../src/api/rate/control.js';
import { defaultConfig } from '../src/config/index.js';

/** The adaptive client's start, ceiling and longest hold: config/default.json's. */
const API = defaultConfig().api;

/**
 * The rate cases on a simulated clock (`OHS_BENCH_RATE=model`): the client's two controllers as
 * they are (ConcurrencyLimit and RateControl, both pure state machines) driven by discrete
 * events against models of the sandbox's servers, so that a figure depends on the controller and
 * the server only, never on the machine's load. The client is modelled as the transport is:
 * `limit` slots (p-queue), each taking a token of the rate in line (one waiter at a time), then
 * sending; a 429 is resent through its slot after the hold; a clean answer's latency (from the
 * send, not the token) and the slots in use go to the concurrency limit. Deterministic: the only
 * randomness is a seeded generator.
 *
 * A loaded machine is modelled too (`loaded`): each process (client and server) runs only in
 * slices of `sliceMs` out of every `periodMs` (the share a runnable process gets at a load of
 * about 2 × periodMs / sliceMs on two cores), at a random phase per period; an answer is noticed
 * only while the client runs, and each costs the client `cpuMs` of its slice.
 */

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a server answers a request sent at `at` on `connection`: when, and its status. */
interface ModelServer {
  answer(at: number, connection: number, kind: string): { at: number; status: number; retryAfterMs?: number };
  /** The kind of a request sent at `at` (a sync's streams: pages, then GETs by id); default 'get'. */
  kindAt?(at: number): string;
  /** The client's CPU for an answer of `kind`, ms (decoding, checks, writes), beyond the load's. */
  clientMs?(kind: string): number;
}

const timerServer = (ms: number): ModelServer => ({ answer: (at) => ({ at: at + ms, status: 200 }) });

function alternatingServer(cycle: number[]): ModelServer {
  const turn = new Map<number, number>();
  return {
    answer: (at, c) => {
      const i = turn.get(c) ?? 0;
      turn.set(c, i + 1);
      return { at: at + 0.5 + (cycle[i % cycle.length] ?? 0), status: 200 };
    },
  };
}

/**
 * `workers` at a time, `serviceMs` each, the rest waiting in arrival order, behind `networkMs`
 * (there and back). One worker behind 20 ms stands for the shared CPU (`--cpu-ms --cpus 1`): with
 * requests of one size, processor sharing serves as many a second as one FIFO worker.
 */
function fifoServer(workers: number, serviceMs: number, networkMs = 0.5): ModelServer {
  const free = new Array<number>(workers).fill(0);
  return {
    answer: (at) => {
      const arrives = at + networkMs / 2;
      let w = 0;
      for (let i = 1; i < free.length; i++) if ((free[i] ?? 0) < (free[w] ?? 0)) w = i;
      const done = Math.max(arrives, free[w] ?? 0) + serviceMs;
      free[w] = done;
      return { at: done + networkMs / 2, status: 200 };
    },
  };
}

/** A token bucket of `rate` a second (a second's worth deep, full at the start) in front of `latencyMs`; a 429 at once, Retry-After 1 s. */
function limitedServer(rate: number, latencyMs: number): ModelServer {
  let tokens = Math.max(1, Math.ceil(rate));
  let at0 = 0;
  return {
    answer: (at) => {
      const arrives = at + 0.25;
      tokens = Math.min(Math.max(1, Math.ceil(rate)), tokens + ((arrives - at0) / 1000) * rate);
      at0 = arrives;
      if (tokens < 1) return { at: arrives + 0.25, status: 429, retryAfterMs: 1000 };
      tokens -= 1;
      return { at: arrives + 0.25 + latencyMs, status: 200 };
    },
  };
}

/**
 * A sync's requests against the alternating server: in its first `pagesMs`, one request in five
 * is a page (30 ms more at the server, 1.5 ms of the client's CPU), the rest GETs by id (0.35 ms
 * each); then GETs only. The client's CPU is what a real sync spends per answer on an idle
 * machine, so at 48 in flight its own delay in handling answers is part of their latency.
 */
function syncServer(cycle: number[], pagesMs: number): ModelServer {
  const alt = alternatingServer(cycle);
  let n = 0;
  return {
    kindAt: (at) => (at < pagesMs && n++ % 5 === 0 ? 'page' : 'get'),
    answer: (at, c, kind) => {
      const a = alt.answer(at, c, kind);
      return kind === 'page' ? { ...a, at: a.at + 30 } : a;
    },
    clientMs: (kind) => (kind === 'page' ? 1.5 : 0.35),
  };
}

/** A process that runs `sliceMs` out of every `periodMs`, at a random phase per period. */
interface Load {
  sliceMs: number;
  periodMs: number;
  /** The client's CPU per answer, ms. */
  cpuMs: number;
}

function scheduler(load: Load | undefined, random: () => number): (t: number) => number {
  if (load === undefined) return (t) => t;
  const phases = new Map<number, number>();
  const phase = (k: number) => {
    let p = phases.get(k);
    if (p === undefined) {
      p = random() * (load.periodMs - load.sliceMs);
      phases.set(k, p);
    }
    return p;
  };
  // The first moment at or after `t` at which the process runs.
  return (t) => {
    for (let k = Math.floor(t / load.periodMs); ; k++) {
      const start = k * load.periodMs + phase(k);
      if (t < start) return start;
      if (t < start + load.sliceMs) return t;
    }
  };
}

interface ModelRun {
  answers: number;
  rateLimited: number;
  sent: number;
  /** Mean and peak requests at the server (sent, not yet answered), time-weighted. */
  meanInFlight: number;
  peakInFlight: number;
  /** The concurrency limit's lowest and highest, and its value at the end. */
  limit: { lowest: number; highest: number; end: number };
  /** The limit when the first 429 came (undefined: none). */
  limitAtFirst429: number | undefined;
  /** 429s of requests sent before the client noticed the first one (the first episode's cost). */
  firstBurst: number;
}

interface Event {
  at: number;
  seq: number;
  run: () => void;
}

/** A min-heap of events by time, then by order of scheduling. */
class Events {
  private readonly heap: Event[] = [];
  private seq = 0;
  push(at: number, run: () => void): void {
    const h = this.heap;
    h.push({ at, seq: this.seq++, run });
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p] as Event, h[i] as Event];
      i = p;
    }
  }
  pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Event, h[i] as Event];
        i = m;
      }
    }
    return top;
  }
}
const before = (a: Event | undefined, b: Event | undefined) =>
  a !== undefined && b !== undefined && (a.at < b.at || (a.at === b.at && a.seq < b.seq));

/**
 * The client against `server` for `ms` of simulated time, always more requests wanting to go
 * than the limit lets (a sync's streams): concurrency `fixed`, or adaptive as configured by
 * default (8, up to 48; at least 2, as the transport's floor).
 */
export function simulate(server: ModelServer, ms: number, fixed?: number, load?: Load, seed = 1): ModelRun {
  const random = rng(seed);
  const clientRuns = scheduler(load, random);
  const serverRuns = scheduler(load, rng(seed + 1));
  const limit =
    fixed === undefined
      ? new ConcurrencyLimit({ initial: API.concurrency, min: 2, max: API.maxConcurrency })
      : new ConcurrencyLimit({ initial: fixed, min: fixed, max: fixed });
  const rate = new RateControl(Number.POSITIVE_INFINITY, API.retryMaxMs, 0);
  const events = new Events();
  const run: ModelRun = {
    answers: 0,
    rateLimited: 0,
    sent: 0,
    meanInFlight: 0,
    peakInFlight: 0,
    limit: { lowest: limit.limit, highest: limit.limit, end: limit.limit },
    limitAtFirst429: undefined,
    firstBurst: 0,
  };
  let first429At = Number.POSITIVE_INFINITY;
  let slots = 0;
  let atServer = 0;
  let area = 0;
  let areaAt = 0;
  const idle: number[] = [];
  let connections = 0;
  /** Slots waiting for a token, in order; whether one of them has a wake-up scheduled. */
  const line: ((now: number) => void)[] = [];
  let waking = false;
  /** When the client's CPU is next free (its answers are handled one after another). */
  let busyUntil = 0;
  const count = (now: number, d: number) => {
    area += atServer * (now - areaAt);
    areaAt = now;
    atServer += d;
    run.peakInFlight = Math.max(run.peakInFlight, atServer);
  };
  const serveLine = (now: number) => {
    while (line.length > 0) {
      const wait = rate.wait(now);
      if (wait > 0) {
        if (!waking) {
          waking = true;
          events.push(now + wait, () => {
            waking = false;
            serveLine(clientRuns(now + wait));
          });
        }
        return;
      }
      rate.take(now);
      line.shift()?.(now);
    }
  };
  const send = (now: number) => {
    const connection = idle.pop() ?? connections++;
    run.sent++;
    count(now, 1);
    const kind = server.kindAt?.(now) ?? 'get';
    const a = server.answer(now, connection, kind);
    const arrives = serverRuns(a.at);
    events.push(arrives, () => {
      count(arrives, -1);
      idle.push(connection);
      // Noticed once the client runs and its CPU is free; each answer costs it cpuMs.
      const seen = Math.max(clientRuns(arrives), busyUntil);
      const handled = seen + (load?.cpuMs ?? 0) + (server.clientMs?.(kind) ?? 0);
      busyUntil = handled;
      events.push(handled, () => answered(handled, now, a.status, kind, a.retryAfterMs));
    });
  };
  const answered = (now: number, sentAt: number, status: number, kind: string, retryAfterMs?: number) => {
    rate.observe({ status, sentAt, retryAfterMs }, now);
    if (status === 429) {
      run.rateLimited++;
      run.limitAtFirst429 ??= limit.limit;
      first429At = Math.min(first429At, now);
      if (sentAt < first429At) run.firstBurst++;
    } else {
      run.answers++;
      limit.add(kind, now - sentAt, slots, now);
      run.limit.lowest = Math.min(run.limit.lowest, limit.limit);
      run.limit.highest = Math.max(run.limit.highest, limit.limit);
    }
    // The slot is free: the next request (or this one again, after a 429) takes it.
    slots--;
    fill(now);
  };
  const fill = (now: number) => {
    while (slots < limit.limit) {
      slots++;
      line.push(send);
      serveLine(now);
    }
  };
  events.push(0, () => fill(0));
  for (let e = events.pop(); e !== undefined && e.at <= ms; e = events.pop()) e.run();
  count(ms, 0);
  run.meanInFlight = area / ms;
  run.limit.end = limit.limit;
  return run;
}

interface Case {
  name: string;
  what: string;
  server: () => ModelServer;
  /** The limit of a rate-limited server, req/s (its share used is reported too). */
  limit?: number;
}

export const MODEL_CASES: Case[] = [
  { name: 'timer', what: 'timer latency 40 ms', server: () => timerServer(40) },
  { name: 'fifo', what: 'FIFO workers: 4, 10 ms each', server: () => fifoServer(4, 10) },
  {
    name: 'alternating',
    what: 'alternating 3, 44, 8, 47 ms',
    server: () => alternatingServer([3, 44, 8, 47]),
  },
  { name: 'cpu', what: 'one core, 4 ms each, 20 ms network', server: () => fifoServer(1, 4, 20) },
  {
    name: 'sync',
    what: 'a sync against alternating latency: pages then GETs, the client CPU of each',
    server: () => syncServer([3, 44, 8, 47], 5000),
  },
  { name: '150', what: '150 req/s behind 200 ms', server: () => limitedServer(150, 200), limit: 150 },
  { name: '20', what: '20 req/s, 1 ms', server: () => limitedServer(20, 1), limit: 20 },
];

/** A machine at a load of about 25 on two cores: each process runs 4 ms in 50; 0.2 ms of client CPU an answer. */
export const LOADED: Load = { sliceMs: 4, periodMs: 50, cpuMs: 0.2 };

const LEVELS = [1, 2, 4, 8, 16, 24, 32, 48];

/** One case: every fixed level and the adaptive client, over `ms` of simulated time; a table row. */
function modelRow(c: Case, ms: number, load?: Load): string {
  const fixed = LEVELS.map((n) => [n, simulate(c.server(), ms, n, load)] as const);
  const [bestN, best] = fixed.reduce((a, b) => (b[1].answers > a[1].answers ? b : a));
  const a = simulate(c.server(), ms, undefined, load);
  const share = a.answers / Math.max(1, best.answers);
  const pct = (x: number, of: number) => `${((100 * x) / Math.max(1, of)).toFixed(1)}%`;
  const used = c.limit === undefined ? '' : `, ${(a.answers / (ms / 1000) / c.limit).toFixed(2)}x the limit`;
  const each = fixed.map(([n, r]) => `${n}: ${(r.answers / (ms / 1000)).toFixed(0)}`).join(', ');
  return `| ${c.what}${load === undefined ? '' : ', loaded'} | ${each} | ${bestN} | **${share.toFixed(2)}**${used} | ${a.peakInFlight} / ${a.meanInFlight.toFixed(1)} | ${a.limit.lowest}-${a.limit.highest}, ${a.limit.end} at the end | ${pct(a.rateLimited, a.sent)} (best fixed ${pct(best.rateLimited, best.sent)}; limit at the first: ${a.limitAtFirst429 ?? '-'}, ${a.firstBurst} of them before it was seen) |`;
}

/** `OHS_BENCH_RATE=model`: every case on an idle and on a loaded machine, 20 simulated seconds each. */
export function modelCases(ms = 20_000): string[] {
  return [
    `model (simulated clock, ${ms / 1000} s each; loaded: each process runs ${LOADED.sliceMs} ms in ${LOADED.periodMs}, ${LOADED.cpuMs} ms of client CPU an answer)`,
    '| server model | fixed concurrency: answers a second | best fixed | adaptive: share of the best fixed | in flight at the server: peak / mean | limit | 429 |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...MODEL_CASES.map((c) => modelRow(c, ms)),
    ...MODEL_CASES.map((c) => modelRow(c, ms, LOADED)),
  ];
}
