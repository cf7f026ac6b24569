import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { hugeErrorMessage } from './hostile.js';
import { localeRefusal, parseJsonBody, quotedRefusal, rewordedRefusal, SimHttpError } from './http-error.js';
import { loadLatency } from './load.js';
import { type FaultKind, faultMayHit, type WriteOperation } from './options.js';
import { serviceTime } from './queue.js';
import { readBody, send, sendError, trickle, truncate } from './respond.js';
import { execute, isWrite, type Route, recordsIn, routeFor } from './routes/index.js';
import type { SimState } from './state.js';
import { bump, countInFlight } from './stats.js';

/** One service request on its way through the sandbox: what it is and what became of it. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  readonly url: URL;
  readonly started: number;
  /** The answer's status (500 until known) and the fault injected, if any. */
  status: number;
  fault?: FaultKind;
  /** This request's number among service requests (0: not one, e.g. an unknown path). */
  seq: number;
  rateHeaders: Record<string, string>;
}

/** A request admitted: its route, body, whether it writes, and the service's recent rate. */
interface Admitted {
  route: Route;
  raw: Buffer;
  writes: boolean;
  recentRate: number;
}

/**
 * A service request, start to end: admission (route, count, token, rate limit), network time,
 * injected faults, the work (behind the server queue), the answer; every request is counted
 * and reported whatever becomes of it.
 */
export async function serveOperation(
  state: SimState,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  url: URL,
): Promise<void> {
  const ex: Exchange = {
    req,
    res,
    method: req.method ?? 'GET',
    path,
    url,
    started: Date.now(),
    status: 500,
    seq: 0,
    rateHeaders: {},
  };
  countInFlight(state.stats.inFlight, 1);
  try {
    const admitted = await admit(state, ex);
    await stall(state, ex, admitted);
    if (await injectFault(state, ex, admitted.route)) return;
    await perform(state, ex, admitted);
  } catch (err) {
    const e = asHttpError(state, ex, err);
    ex.status = e.status;
    sendError(res, state.options, e);
  } finally {
    countInFlight(state.stats.inFlight, -1);
    settle(state, ex);
  }
}

/** Reads, records and routes the request, counts it, checks its token and takes a rate-limit token. */
async function admit(state: SimState, ex: Exchange): Promise<Admitted> {
  const { options, stats } = state;
  const raw = await readBody(ex.req);
  if (options.recordRequests)
    state.recorded.push({
      method: ex.method,
      path: `${ex.path}${ex.url.search}`,
      body: raw.toString('utf8'),
    });
  const route = routeFor(ex.method, ex.path, options.missingOps);
  ex.seq = ++stats.requests;
  bump(stats.byOperation, route.name);
  const second = String(Math.floor(Date.now() / 1000));
  bump(stats.bySecond, second);
  state.load.add(Date.now());
  const recentRate = state.load.rate(Date.now());

  const auth = /^Bearer (.+)$/.exec(ex.req.headers.authorization ?? '');
  const token = auth?.[1];
  if (token !== options.token && token !== options.readonlyToken) {
    throw new SimHttpError(401, 'UNAUTHORIZED', 'missing or invalid bearer token');
  }
  const writes = isWrite(route);
  if (writes && token !== options.token) throw new SimHttpError(403, 'FORBIDDEN', 'this token may only read');
  const allowed = state.bucket.take();
  ex.rateHeaders = state.bucket.headers();
  if (!allowed) {
    stats.rateLimited++;
    bump(stats.rateLimitedBySecond, second);
    const retryAfter = { 'retry-after': String(options.retryAfter) };
    if (options.overloadStatus === '503')
      throw new SimHttpError(503, 'UNAVAILABLE', 'service unavailable (overloaded)', retryAfter);
    throw new SimHttpError(429, 'RATE_LIMITED', 'too many requests', { ...retryAfter, ...ex.rateHeaders });
  }
  return { route, raw, writes, recentRate };
}

/** The test hook's hold, then network time: latency, jitter and the load's latency (no queue). */
async function stall(state: SimState, ex: Exchange, { route, raw, recentRate }: Admitted): Promise<void> {
  const held = state.hooks.holdRequest?.({
    method: ex.method,
    path: ex.path,
    operation: route.name,
    body: raw.toString('utf8'),
  });
  if (held !== undefined) await held;
  const { options } = state;
  const delay =
    options.latencyMs +
    (options.latencyJitterMs > 0 ? state.faultRng.int(0, options.latencyJitterMs) : 0) +
    cycleLatency(options.latencyCycleMs, ex.req) +
    loadLatency(options, recentRate);
  if (delay > 0) await sleep(delay);
}

/** Answers so far on each connection (`latencyCycleMs`). */
const turns = new WeakMap<object, number>();

/** This answer's turn of `cycle` on its connection: fast and slow in turn per connection, as delayed acknowledgements make them. */
function cycleLatency(cycle: number[], req: IncomingMessage): number {
  if (cycle.length === 0) return 0;
  const turn = turns.get(req.socket) ?? 0;
  turns.set(req.socket, turn + 1);
  return cycle[turn % cycle.length] ?? 0;
}

/**
 * Draws an injected fault for this request (kept for after the work: lostReply, truncate); a 503
 * or 500 is thrown, a drop or hang closes the connection (true: the request is over).
 */
async function injectFault(state: SimState, ex: Exchange, route: Route): Promise<boolean> {
  const { options, faultRng } = state;
  if (options.faultRate > 0 && faultMayHit(options, route.name) && faultRng.chance(options.faultRate)) {
    ex.fault = faultRng.pick(options.faultKinds);
    state.stats.faults[ex.fault]++;
  }
  const why = options.hostile ? hugeErrorMessage : '';
  if (ex.fault === '503') {
    const after: Record<string, string> =
      options.faultRetryAfter > 0 ? { 'retry-after': String(options.faultRetryAfter) } : {};
    throw new SimHttpError(503, 'UNAVAILABLE', why || 'service unavailable (injected)', after);
  }
  if (ex.fault === '500') throw new SimHttpError(500, 'INTERNAL', why || 'internal error (injected)');
  if (ex.fault === 'hang') await sleep(options.hangMs);
  if (ex.fault === 'drop' || ex.fault === 'hang') {
    ex.res.socket?.destroy();
    return true;
  }
  return false;
}

/** Late or slow write fault for this write, drawn from the seed when switched on for its operation. */
function drawWriteFault(state: SimState, route: Route): 'late' | 'slow' | undefined {
  const { options, faultRng } = state;
  const op = route.name as WriteOperation;
  if (
    options.lateWriteRate > 0 &&
    options.lateWriteOps.includes(op) &&
    faultRng.chance(options.lateWriteRate)
  )
    return 'late';
  if (
    options.slowWriteRate > 0 &&
    options.slowWriteOps.includes(op) &&
    faultRng.chance(options.slowWriteRate)
  )
    return 'slow';
  return undefined;
}

/** The gateway gives up at once (504); the backend carries the write out a moment later. */
function lateWrite(state: SimState, ex: Exchange, route: Route, input: unknown): never {
  const { options } = state;
  state.stats.lateWrites++;
  const after = state.faultRng.int(
    options.lateWriteMinMs,
    Math.max(options.lateWriteMinMs, options.lateWriteMaxMs),
  );
  setTimeout(() => {
    try {
      execute(state, route, ex.path, ex.url, input);
      bump(state.stats.writesApplied, route.name);
    } catch {
      // A late write the backend refuses changes nothing, as a refused write would.
    }
  }, after).unref();
  throw new SimHttpError(504, 'GATEWAY_TIMEOUT', 'gateway timeout (injected late write)');
}

/** The work: body checks, write faults, the operation behind the server queue and on the shared CPU, then the answer. */
async function perform(state: SimState, ex: Exchange, { route, raw, writes }: Admitted): Promise<void> {
  const { options } = state;
  const input = parseJsonBody(raw, ex.req, route.op.method !== 'GET');
  if (writes && options.quoteRefusals) throw quotedRefusal(raw, ex.req.headers.authorization);
  if (writes && options.rewordErrors) throw rewordedRefusal(input);
  if (writes && options.localeRefusals) throw localeRefusal(input);
  if (state.hooks.failRequest?.({ method: ex.method, path: ex.path, body: input }) === true)
    throw new SimHttpError(500, 'INTERNAL', 'internal error (failRequest hook)');
  const writeFault = writes ? drawWriteFault(state, route) : undefined;
  if (writeFault === 'late') lateWrite(state, ex, route, input);
  // The server's work: a worker is held (after waiting for one) for the answer's service time.
  const worker = await state.queue.acquire();
  let answer: [number, unknown];
  let records = 0;
  try {
    answer = execute(state, route, ex.path, ex.url, input);
    records = recordsIn(route, answer[1], options.envelopeKey);
    const service = serviceTime(options.serviceMs, records);
    if (service > 0) await sleep(service);
  } finally {
    worker.release();
  }
  // The CPU, shared with every request in progress (no line: all of them run, slower).
  await state.cpu.run(serviceTime(options.cpuMs, records));
  const [status, body] = answer;
  ex.status = status;
  if (writes) bump(state.stats.writesApplied, route.name);
  if (writeFault === 'slow') {
    // Carried out; the answer comes after the client has given up waiting.
    state.stats.slowWrites++;
    await sleep(options.slowWriteMs);
    if (ex.res.socket === null || ex.res.socket.destroyed) return;
  }
  deliver(state, ex, status, body);
}

/** The answer as the faults and switches shape it: lost, cut short, trickled, or whole. */
function deliver(state: SimState, ex: Exchange, status: number, body: unknown): void {
  const { options } = state;
  // lostReply: the write is done; the reply never arrives. A client that resends it writes twice.
  if (ex.fault === 'lostReply') ex.res.socket?.destroy();
  else if (ex.fault === 'truncate') truncate(ex.res, status, body);
  else if (options.trickleMs > 0 && body !== undefined)
    trickle(ex.res, status, body, options.trickleMs, options.trickleBytes);
  else send(ex.res, options, status, body, ex.rateHeaders);
}

/** An error as the sandbox answers it; its own failures are kept (with their stack) for a test to name. */
function asHttpError(state: SimState, ex: Exchange, err: unknown): SimHttpError {
  if (err instanceof SimHttpError) return err;
  const errors = state.stats.internalErrors;
  errors.push(`${ex.method} ${ex.path}: ${err instanceof Error ? err.stack : String(err)}`);
  if (errors.length > 10) errors.shift();
  return new SimHttpError(500, 'INTERNAL', (err as Error).message ?? 'error');
}

/** Counts the outcome, runs the every-N-requests mutation and reports the request. */
function settle(state: SimState, ex: Exchange): void {
  const { fault } = ex;
  bump(
    state.stats.byStatus,
    fault === undefined || fault === '503' || fault === '500' ? String(ex.status) : fault,
  );
  // Every N-th service request, whatever its outcome (a refused or faulted one counts too).
  const every = state.options.mutateEveryRequests;
  if (ex.seq > 0 && every > 0 && ex.seq % every === 0) state.mutate();
  state.hooks.onRequest?.({
    method: ex.method,
    path: ex.path,
    status: ex.status,
    ms: Date.now() - ex.started,
    ...(fault === undefined ? {} : { fault }),
  });
}
