import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors.js';
import type { ResourceName } from '../schema/index.js';
import { notFound, parseJsonBody, SimHttpError } from './http-error.js';
import type { MutationSummary, Mutator } from './mutate.js';
import { type SimOptions, type SimOptionsInput, simOptionsSchema } from './options.js';
import { readBody, send, sendError } from './respond.js';
import { adminHook } from './routes/admin.js';
import { serveOperation } from './service.js';
import { type LiveOptions, type SimRequestHooks, SimState } from './state.js';
import type { SimStats } from './stats.js';
import type { SimRecord, SimStatus, SimTables } from './store.js';

export type { RequestInfo, SimStats } from './stats.js';

export interface StartSimOptions extends SimOptionsInput, SimRequestHooks {
  /** TCP port; 0 picks a free one. Default 0. */
  port?: number;
  /** Interface to listen on. Default 127.0.0.1. */
  host?: string;
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
  configure(patch: LiveOptions): SimOptions;
  resetStats(): void;
  close(): Promise<void>;
}

/** Whether a listening host is a loopback address (the hooks may only listen there). */
function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The sandbox's switches from `startSim`'s options; one line naming the first bad one. */
function parseOptions(rest: SimOptionsInput, host: string): SimOptions {
  const parsed = simOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(
      `sandbox option ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  if (parsed.data.hooks && !isLoopbackHost(host))
    throw new UsageError(
      `sandbox: --hooks with --host ${host}: the hooks are unauthenticated test endpoints (they hand out the write token and SSNs); use a loopback host`,
    );
  return parsed.data;
}

/** Any request: outside the prefix (404), a hook under `__sim/`, or a service operation. */
async function handle(state: SimState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options } = state;
  const url = new URL(req.url ?? '/', 'http://sandbox');
  let path = url.pathname;
  if (options.prefix !== '') {
    if (path !== options.prefix && !path.startsWith(`${options.prefix}/`)) {
      await readBody(req);
      return sendError(res, options, notFound(`no operation at ${path}`));
    }
    path = path.slice(options.prefix.length);
  }
  if (path.startsWith('/__sim/')) {
    const raw = await readBody(req);
    if (!options.hooks) return sendError(res, options, notFound(`no operation at ${path}`));
    const method = req.method ?? 'GET';
    const [status, body] = adminHook(
      state,
      method,
      path.slice('/__sim'.length),
      url,
      parseJsonBody(raw, req, false),
    );
    return send(res, state.options, status, body);
  }
  await serveOperation(state, req, res, path, url);
}

/** Starts the sandbox of the service on an HTTP port. */
export async function startSim(input: StartSimOptions = {}): Promise<RunningSim> {
  const { port = 0, host = '127.0.0.1', onRequest, failRequest, holdRequest, ...rest } = input;
  const state = new SimState(parseOptions(rest, host), { onRequest, failRequest, holdRequest });
  const server: Server = createServer((req, res) => {
    handle(state, req, res).catch((err: unknown) => {
      const e = err instanceof SimHttpError ? err : new SimHttpError(500, 'INTERNAL', String(err));
      if (!res.headersSent) sendError(res, state.options, e);
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
    url: `http://${hostPart}:${address.port}${state.options.prefix}`,
    port: address.port,
    get options() {
      return state.options;
    },
    tables: state.tables,
    statuses: state.statuses,
    get stats() {
      return state.stats;
    },
    truth: () => state.truth(),
    changes: () => state.changes(),
    mutate: (size) => state.mutate(size),
    configure: (patch) => state.configure(patch),
    resetStats: () => {
      state.resetStats();
    },
    close: async () => {
      state.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
