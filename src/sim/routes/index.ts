import { type OperationDef, type OperationName, operations } from '../../schema/index.js';
import { notFound, SimHttpError } from '../http-error.js';
import type { SimState } from '../state.js';
import { runAction } from './actions.js';
import { runQueryOperation } from './queries.js';
import { runGet, runList } from './reads.js';

/**
 * The service's operations by route family: queries (POST query), reads (list and get by id),
 * actions (create, update, delete); the admin and fault controls under `__sim/` are in admin.ts.
 */
export interface Route {
  name: OperationName;
  op: OperationDef;
  pattern: RegExp;
}

const routes: Route[] = Object.entries(operations).map(([name, op]) => ({
  name: name as OperationName,
  op,
  pattern: new RegExp(`^${op.path.replace('{id}', '([^/]+)')}$`),
}));

/** The route of a request: 404 for no operation at the path (or one not served), 405 for another method. */
export function routeFor(method: string, path: string, missingOps: readonly string[]): Route {
  const candidates = routes.filter((r) => r.pattern.test(path));
  if (candidates.length === 0) throw notFound(`no operation at ${path}`);
  const route = candidates.find((r) => r.op.method === method);
  // A route not deployed (or hidden by a gateway): 404 for every id, like a wrong path.
  if (route !== undefined && missingOps.includes(route.name)) throw notFound(`no operation at ${path}`);
  if (route === undefined) {
    throw new SimHttpError(405, 'METHOD_NOT_ALLOWED', `${method} not allowed on ${path}`, {
      allow: candidates.map((r) => r.op.method).join(', '),
    });
  }
  return route;
}

/** Whether an operation changes the data (queries are POSTs that only read). */
export function isWrite(route: Route): boolean {
  return route.op.method !== 'GET' && route.op.kind !== 'query';
}

/** Runs one service operation; returns [status, body] or throws a SimHttpError. */
export function execute(
  state: SimState,
  route: Route,
  path: string,
  url: URL,
  body: unknown,
): [number, unknown] {
  const id = route.pattern.exec(path)?.[1];
  switch (route.op.kind) {
    case 'query':
      return runQueryOperation(state, route.op.resource, body);
    case 'list':
      return runList(state, route.op.resource, url);
    case 'get':
      return runGet(state, route.op.resource, id, url);
    default:
      return runAction(state, route.name, route.op.kind, id, body);
  }
}

/** The records an answer carries: a query's or list's page (bare or in its envelope), or one. */
export function recordsIn(route: Route, body: unknown, envelopeKey: string): number {
  if (route.op.kind !== 'query' && route.op.kind !== 'list') return 1;
  const list = Array.isArray(body) ? body : (body as Record<string, unknown> | undefined)?.[envelopeKey];
  return Array.isArray(list) ? list.length : 1;
}
