import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateMeter } from '../api/rate/meter.js';
import { UsageError } from '../errors.js';
import {
  type ObjectSpec,
  type OperationDef,
  type OperationName,
  operations,
  type ResourceName,
  resources,
} from '../schema/index.js';
import { Actions } from './actions.js';
import { hugeErrorMessage, makeHostile, unquoteRawNumbers } from './hostile.js';
import { badRequest, notFound, parseJsonBody, quotedRefusal, SimHttpError } from './http-error.js';
import { invoiceAdmin } from './invoice-admin.js';
import { type MutationSummary, Mutator } from './mutate.js';
import {
  type FaultKind,
  faultKinds,
  faultMayHit,
  liveOptionKeys,
  type SimOptions,
  type SimOptionsInput,
  simOptionsSchema,
  type WriteOperation,
} from './options.js';
import { parseQuery, project, runQuery } from './query.js';
import { Rng } from './rng.js';
import { isoDate, seedData } from './seed.js';
import type { SimRecord, SimStatus, SimTables } from './store.js';

export interface SimStats {
  /** Service requests received (hooks excluded). */
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
  rateLimited: number;
  /** Service requests by epoch second received, and those of them answered 429. */
  bySecond: Record<string, number>;
  rateLimitedBySecond: Record<string, number>;
  /** Late writes (504 now, carried out later) and slow writes (carried out, answered late). */
  lateWrites: number;
  slowWrites: number;
  /** Writes that changed the data, by operation (a write whose reply was lost counts too). */
  writesApplied: Record<string, number>;
  mutations: number;
  /** The last (up to 10) exceptions the sandbox itself threw while answering (its own 500s). */
  internalErrors: string[];
}

export interface RequestInfo {
  method: string;
  path: string;
  status: number;
  ms: number;
  fault?: FaultKind;
}

export interface StartSimOptions extends SimOptionsInput {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
  /** Called after each service request (for logs). */
  onRequest?: (info: RequestInfo) => void;
  /**
   * Test hook: a service request for which this answers true fails with 500 (every attempt),
   * e.g. one partition of a scan failing while its siblings run.
   */
  failRequest?: (req: { method: string; path: string; body: unknown }) => boolean;
  /**
   * Test hook: a service request for which this returns a promise is held (after it is counted and
   * let through the rate limit) until the promise settles, e.g. to keep one stream's pass open
   * until a test has stopped the run, whatever the machine's pace.
   */
  holdRequest?: (req: { method: string; path: string; operation: string }) => Promise<void> | undefined;
}

export interface RunningSim {
  /** Base URL of the service, prefix included, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly options: SimOptions;
  readonly tables: SimTables;
  readonly statuses: readonly SimStatus[];
  readonly stats: SimStats;
  /** A deep copy of every record the service holds now, by resource. */
  truth(): Record<ResourceName, SimRecord[]>;
  /** The status moves and deletions live mutation has made so far. */
  changes(): Pick<Mutator, 'moves' | 'deleted'>;
  /** One step of live mutation now. */
  mutate(size?: number): MutationSummary;
  /** Changes the switches that may change while running (faults, envelope, rate limit, ...). */
  configure(patch: Partial<Pick<SimOptions, (typeof liveOptionKeys)[number]>>): SimOptions;
  resetStats(): void;
  close(): Promise<void>;
}

interface Route {
  name: OperationName;
  op: OperationDef;
  pattern: RegExp;
}

const routes: Route[] = Object.entries(operations).map(([name, op]) => ({
  name: name as OperationName,
  op,
  pattern: new RegExp(`^${op.path.replace('{id}', '([^/]+)')}$`),
}));

const MAX_BODY = 16 * 1024 * 1024; // 16 MiB: larger bodies answer 413.

function freshStats(): SimStats {
  return {
    requests: 0,
    byOperation: {},
    byStatus: {},
    faults: Object.fromEntries(faultKinds.map((k) => [k, 0])) as Record<FaultKind, number>,
    rateLimited: 0,
    bySecond: {},
    rateLimitedBySecond: {},
    lateWrites: 0,
    slowWrites: 0,
    writesApplied: {},
    mutations: 0,
    internalErrors: [],
  };
}

function bump(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/** `loadLatencyMs` for each `loadKnee` of requests per second above the knee: an overloaded service. */
function loadLatency(options: SimOptions, recentRate: number): number {
  if (options.loadKnee <= 0 || recentRate <= options.loadKnee) return 0;
  return Math.round((options.loadLatencyMs * (recentRate - options.loadKnee)) / options.loadKnee);
}

/**
 * The rate limit's bucket described in RateLimit headers (`rateHeaders`): the quota is the bucket's
 * capacity, the window the time it takes to fill from empty, the reset the time it takes to fill
 * from now (at least a second, as the draft counts in whole seconds).
 */
function rateLimitHeaders(options: SimOptions, tokens: number, capacity: number): Record<string, string> {
  if (options.rateLimit <= 0 || options.rateHeaders === 'none') return {};
  const window = Math.round((capacity / options.rateLimit) * 1000) / 1000;
  const remaining = String(Math.max(0, Math.floor(tokens)));
  const reset = String(Math.max(1, Math.ceil((capacity - tokens) / options.rateLimit)));
  const limit = String(capacity);
  switch (options.rateHeaders) {
    case 'draft':
      return {
        'ratelimit-limit': limit,
        'ratelimit-remaining': remaining,
        'ratelimit-reset': reset,
        'ratelimit-policy': `${limit};w=${window}`,
      };
    case 'combined':
      return {
        ratelimit: `"bucket";r=${remaining};t=${reset}`,
        'ratelimit-policy': `"bucket";q=${limit};w=${window}`,
      };
    case 'x':
      return { 'x-ratelimit-limit': limit, 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': reset };
  }
}

/** Starts the sandbox of the service on an HTTP port. */
/** Whether a listening host is a loopback address (the hooks may only listen there). */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export async function startSim(input: StartSimOptions = {}): Promise<RunningSim> {
  const { port = 0, host = '127.0.0.1', onRequest, failRequest, holdRequest, ...rest } = input;
  const parsed = simOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `sandbox option ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  let options: SimOptions = parsed.data;
  if (options.hooks && !isLoopbackHost(host))
    throw new UsageError(
      `sandbox: --hooks with --host ${host}: the hooks are unauthenticated test endpoints (they hand out the write token and SSNs); use a loopback host`,
    );
  const anchorDate = options.anchorDate ?? isoDate(Date.now());
  const { tables, statuses } = seedData({ seed: options.seed, scale: options.scale, anchorDate });
  if (options.hostile) makeHostile(tables, options.seed);
  const actions = new Actions(tables, () => options);
  const mutator = new Mutator(tables, statuses, new Rng(options.seed + 1));
  const faultRng = new Rng(options.seed + 2);
  let stats = freshStats();

  // Token bucket for the rate limit: `rateLimit` tokens a second, `rateBurst` at most.
  let tokens = 0;
  let lastRefill = Date.now();
  const capacity = () => options.rateBurst || Math.max(1, Math.ceil(options.rateLimit));
  const takeToken = (): boolean => {
    if (options.rateLimit <= 0) return true;
    const now = Date.now();
    tokens = Math.min(capacity(), tokens + ((now - lastRefill) / 1000) * options.rateLimit);
    lastRefill = now;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
  tokens = capacity();
  const load = new RateMeter();
  /** With `recordRequests`: the service requests received, to replay them (bench/rate.ts). */
  let recorded: { method: string; path: string; body: string }[] = [];

  const mutate = (size = options.mutationSize) => {
    stats.mutations++;
    return mutator.step(size);
  };
  let timer: NodeJS.Timeout | undefined;
  const schedule = () => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    if (options.mutateEveryMs > 0) {
      timer = setInterval(() => mutate(), options.mutateEveryMs);
      timer.unref();
    }
  };
  schedule();

  const truth = () =>
    Object.fromEntries(
      Object.entries(tables).map(([name, table]) => [name, structuredClone([...table.all()])]),
    ) as Record<ResourceName, SimRecord[]>;

  const configure: RunningSim['configure'] = (patch) => {
    const allowed = new Set<string>(liveOptionKeys);
    for (const key of Object.keys(patch)) {
      if (!allowed.has(key)) throw badRequest(`sandbox option '${key}' cannot change while running`);
    }
    const next = simOptionsSchema.safeParse({ ...options, ...patch });
    if (!next.success) {
      const issue = next.error.issues[0];
      throw badRequest(`sandbox option ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
    }
    options = { ...next.data, anchorDate: options.anchorDate };
    tokens = Math.min(tokens, capacity());
    schedule();
    return options;
  };

  const listBody = (records: unknown[], total: number): unknown =>
    options.envelope === 'array' ? records : { [options.envelopeKey]: records, [options.totalKey]: total };

  /** Runs one service operation; returns [status, body] or throws a SimHttpError. */
  const execute = (route: Route, id: string | undefined, url: URL, body: unknown): [number, unknown] => {
    const resource: { spec: ObjectSpec; idType: 'number' | 'string' } = resources[route.op.resource];
    const table = tables[route.op.resource];
    const numericId = (): number => {
      if (id === undefined || !/^\d+$/.test(id))
        throw badRequest(`path id: expected a whole number, got '${id ?? ''}'`);
      return Number(id);
    };
    const selection = () => {
      const raw = url.searchParams.get(options.fieldsParam);
      const fields = raw === null || raw === '' ? undefined : raw.split(',').map((f) => f.trim());
      for (const f of fields ?? []) {
        if (!Object.hasOwn(resource.spec.fields, f) && !Object.hasOwn(resource.spec.arrays ?? {}, f)) {
          throw badRequest(`${options.fieldsParam}: unknown field '${f}'`);
        }
      }
      const extra = url.searchParams.get('isAdditionalData');
      if (extra !== null && extra !== 'true' && extra !== 'false')
        throw badRequest('isAdditionalData: "true" or "false"');
      return { fields, additional: extra === 'true' };
    };
    switch (route.op.kind) {
      case 'query': {
        // An empty body (no bytes) means all defaults.
        const q = parseQuery(resource.spec, body === undefined ? {} : body);
        const result = runQuery(table, q, options);
        return [200, listBody(result.records, result.total)];
      }
      case 'list': {
        const { fields, additional } = selection();
        const records = table.all().map((r) => project(r, fields, additional, options.lean));
        return [200, listBody(records, records.length)];
      }
      case 'get': {
        const { fields, additional } = selection();
        const key = resource.idType === 'number' ? numericId() : (id ?? '');
        const record = table.get(key);
        if (record === undefined) throw notFound(`${route.op.resource.toLowerCase()} ${key} not found`);
        return [200, project(record, fields, additional, options.lean)];
      }
      case 'create': {
        if (route.name === 'createPayment') return [200, actions.createPayment(body)];
        if (route.name === 'createPerson') return [200, actions.createPerson(body)];
        return [200, actions.createOrg(body)];
      }
      case 'update': {
        if (route.name === 'updatePerson') return [200, actions.updatePerson(numericId(), body)];
        return [200, actions.updateApplicant(numericId(), body)];
      }
      case 'delete': {
        const deleted = actions.deletePerson(numericId());
        return options.deleteAnswer === '204' ? [204, undefined] : [200, deleted];
      }
    }
  };

  const hooks = (method: string, path: string, url: URL, body: unknown): [number, unknown] => {
    if (method === 'GET' && path === '/truth') {
      return [200, { resources: truth(), statuses, moves: mutator.moves, deleted: mutator.deleted }];
    }
    const one = /^\/truth\/([A-Za-z]+)$/.exec(path);
    if (method === 'GET' && one !== null) {
      const name = one[1] as ResourceName;
      if (!Object.hasOwn(tables, name)) throw notFound(`no resource ${name}`);
      return [200, structuredClone([...tables[name].all()])];
    }
    if (method === 'GET' && path === '/stats') return [200, stats];
    if (method === 'GET' && path === '/requests') {
      const out = recorded;
      recorded = [];
      return [200, out];
    }
    if (method === 'GET' && path === '/changes')
      return [200, { moves: mutator.moves, deleted: mutator.deleted }];
    if (method === 'POST' && path === '/mutate') {
      const size = Number(
        url.searchParams.get('size') ?? (body as { size?: number } | undefined)?.size ?? options.mutationSize,
      );
      return [200, mutate(size)];
    }
    if (method === 'POST' && path === '/config') return [200, configure((body ?? {}) as Partial<SimOptions>)];
    if (method === 'POST' && path === '/invoice') return [200, invoiceAdmin(tables, body)];
    if (method === 'POST' && path === '/reset-stats') {
      stats = freshStats();
      return [200, stats];
    }
    throw notFound(`no sandbox hook ${method} ${path}`);
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (status === 204 || body === undefined) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    const text = options.hostile ? unquoteRawNumbers(JSON.stringify(body)) : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  };

  /** The trickle mode: the body `bytes` at a time every `everyMs`, until it is sent or the client leaves. */
  const trickle = (res: ServerResponse, status: number, body: unknown, everyMs: number, bytes: number) => {
    const text = Buffer.from(JSON.stringify(body));
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(text.length),
    });
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed || at >= text.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(text.subarray(at, at + bytes));
      at += bytes;
    }, everyMs);
    res.once('close', () => clearInterval(timer));
  };

  const sendError = (res: ServerResponse, err: SimHttpError) =>
    send(
      res,
      err.status,
      { error: { status: err.status, code: err.code, message: err.message } },
      err.headers,
    );

  const readBody = (req: IncomingMessage): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY) reject(new SimHttpError(413, 'PAYLOAD_TOO_LARGE', 'request body over 16 MiB'));
        else chunks.push(c);
      });
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });

  /** Late or slow write fault for this write, drawn from the seed when switched on for its operation. */
  const drawWriteFault = (name: OperationName): 'late' | 'slow' | undefined => {
    const op = name as WriteOperation;
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
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = Date.now();
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://sandbox');
    let path = url.pathname;
    if (options.prefix !== '') {
      if (path !== options.prefix && !path.startsWith(`${options.prefix}/`)) {
        await readBody(req);
        return sendError(res, notFound(`no operation at ${path}`));
      }
      path = path.slice(options.prefix.length);
    }

    if (path.startsWith('/__sim/')) {
      const raw = await readBody(req);
      if (!options.hooks) return sendError(res, notFound(`no operation at ${path}`));
      const [status, body] = hooks(method, path.slice('/__sim'.length), url, parseJsonBody(raw, req, false));
      return send(res, status, body);
    }

    let fault: FaultKind | undefined;
    let status = 500;
    let rateHeaders: Record<string, string> = {};
    /** This request's number among service requests (0: not one, e.g. an unknown path). */
    let seq = 0;
    try {
      const raw = await readBody(req);
      if (options.recordRequests)
        recorded.push({ method, path: `${path}${url.search}`, body: raw.toString('utf8') });
      const candidates = routes.filter((r) => r.pattern.test(path));
      if (candidates.length === 0) throw notFound(`no operation at ${path}`);
      const route = candidates.find((r) => r.op.method === method);
      // A route not deployed (or hidden by a gateway): 404 for every id, like a wrong path.
      if (route !== undefined && options.missingOps.includes(route.name))
        throw notFound(`no operation at ${path}`);
      if (route === undefined) {
        throw new SimHttpError(405, 'METHOD_NOT_ALLOWED', `${method} not allowed on ${path}`, {
          allow: candidates.map((r) => r.op.method).join(', '),
        });
      }
      seq = ++stats.requests;
      bump(stats.byOperation, route.name);
      const second = String(Math.floor(Date.now() / 1000));
      bump(stats.bySecond, second);
      load.add(Date.now());
      const recentRate = load.rate(Date.now());

      const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
      const token = auth?.[1];
      if (token !== options.token && token !== options.readonlyToken) {
        throw new SimHttpError(401, 'UNAUTHORIZED', 'missing or invalid bearer token');
      }
      const writes = route.op.method !== 'GET' && route.op.kind !== 'query';
      if (writes && token !== options.token)
        throw new SimHttpError(403, 'FORBIDDEN', 'this token may only read');
      const allowed = takeToken();
      rateHeaders = rateLimitHeaders(options, tokens, capacity());
      if (!allowed) {
        stats.rateLimited++;
        bump(stats.rateLimitedBySecond, second);
        if (options.overloadStatus === '503')
          throw new SimHttpError(503, 'UNAVAILABLE', 'service unavailable (overloaded)', {
            'retry-after': String(options.retryAfter),
          });
        throw new SimHttpError(429, 'RATE_LIMITED', 'too many requests', {
          'retry-after': String(options.retryAfter),
          ...rateHeaders,
        });
      }
      const held = holdRequest?.({ method, path, operation: route.name });
      if (held !== undefined) await held;
      const delay =
        options.latencyMs +
        (options.latencyJitterMs > 0 ? faultRng.int(0, options.latencyJitterMs) : 0) +
        loadLatency(options, recentRate);
      if (delay > 0) await sleep(delay);

      if (options.faultRate > 0 && faultMayHit(options, route.name) && faultRng.chance(options.faultRate)) {
        fault = faultRng.pick(options.faultKinds);
        stats.faults[fault]++;
      }
      const why = options.hostile ? hugeErrorMessage : '';
      if (fault === '503') {
        const after: Record<string, string> =
          options.faultRetryAfter > 0 ? { 'retry-after': String(options.faultRetryAfter) } : {};
        throw new SimHttpError(503, 'UNAVAILABLE', why || 'service unavailable (injected)', after);
      }
      if (fault === '500') throw new SimHttpError(500, 'INTERNAL', why || 'internal error (injected)');
      if (fault === 'drop') {
        res.socket?.destroy();
        return;
      }
      if (fault === 'hang') {
        await sleep(options.hangMs);
        res.socket?.destroy();
        return;
      }

      const input = parseJsonBody(raw, req, route.op.method !== 'GET');
      if (writes && options.quoteRefusals) throw quotedRefusal(raw, req.headers.authorization);
      if (failRequest?.({ method, path, body: input }) === true)
        throw new SimHttpError(500, 'INTERNAL', 'internal error (failRequest hook)');
      const writeFault = writes ? drawWriteFault(route.name) : undefined;
      if (writeFault === 'late') {
        // The gateway gives up at once; the backend carries the write out a moment later.
        stats.lateWrites++;
        const after = faultRng.int(
          options.lateWriteMinMs,
          Math.max(options.lateWriteMinMs, options.lateWriteMaxMs),
        );
        setTimeout(() => {
          try {
            execute(route, route.pattern.exec(path)?.[1], url, input);
            bump(stats.writesApplied, route.name);
          } catch {
            // A late write the backend refuses changes nothing, as a refused write would.
          }
        }, after).unref();
        throw new SimHttpError(504, 'GATEWAY_TIMEOUT', 'gateway timeout (injected late write)');
      }
      const [okStatus, body] = execute(route, route.pattern.exec(path)?.[1], url, input);
      status = okStatus;
      if (writes) bump(stats.writesApplied, route.name);

      if (writeFault === 'slow') {
        // Carried out; the answer comes after the client has given up waiting.
        stats.slowWrites++;
        await sleep(options.slowWriteMs);
        if (res.socket === null || res.socket.destroyed) return;
      }
      if (fault === 'lostReply') {
        // The write is done; the reply never arrives. A client that resends it writes twice.
        res.socket?.destroy();
        return;
      }
      if (fault === 'truncate' && body !== undefined) {
        const text = Buffer.from(JSON.stringify(body));
        res.writeHead(okStatus, {
          'content-type': 'application/json',
          'content-length': String(text.length),
        });
        res.write(text.subarray(0, Math.floor(text.length / 2)));
        setImmediate(() => res.socket?.destroy());
        return;
      }
      if (fault === 'truncate') {
        res.socket?.destroy();
        return;
      }
      if (options.trickleMs > 0 && body !== undefined)
        trickle(res, okStatus, body, options.trickleMs, options.trickleBytes);
      else send(res, okStatus, body, rateHeaders);
    } catch (err) {
      let e: SimHttpError;
      if (err instanceof SimHttpError) e = err;
      else {
        // The sandbox's own failure: kept (with its stack) for a test to name the cause.
        stats.internalErrors.push(`${method} ${path}: ${err instanceof Error ? err.stack : String(err)}`);
        if (stats.internalErrors.length > 10) stats.internalErrors.shift();
        e = new SimHttpError(500, 'INTERNAL', (err as Error).message ?? 'error');
      }
      status = e.status;
      sendError(res, e);
    } finally {
      bump(
        stats.byStatus,
        fault === undefined || fault === '503' || fault === '500' ? String(status) : fault,
      );
      // Every N-th service request, whatever its outcome (a refused or faulted one counts too).
      if (seq > 0 && options.mutateEveryRequests > 0 && seq % options.mutateEveryRequests === 0) mutate();
      onRequest?.({
        method,
        path,
        status,
        ms: Date.now() - started,
        ...(fault === undefined ? {} : { fault }),
      });
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof SimHttpError ? err : new SimHttpError(500, 'INTERNAL', String(err));
      if (!res.headersSent) sendError(res, e);
      else res.socket?.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${hostPart}:${address.port}${options.prefix}`,
    port: address.port,
    get options() {
      return options;
    },
    tables,
    statuses,
    get stats() {
      return stats;
    },
    truth,
    changes: () => ({ moves: mutator.moves, deleted: mutator.deleted }),
    mutate,
    configure,
    resetStats: () => {
      stats = freshStats();
    },
    close: async () => {
      if (timer !== undefined) clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
