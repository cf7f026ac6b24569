import { type ObjectSpec, type ResourceName, resources } from '../../schema/index.js';
import { parseQuery, runQuery } from '../query.js';
import { listBody } from '../respond.js';
import type { SimState } from '../state.js';

/** A query operation (POST): filter, order and page one resource (an empty body: all defaults). */
export function runQueryOperation(state: SimState, resource: ResourceName, body: unknown): [number, unknown] {
  const spec: ObjectSpec = resources[resource].spec;
  const q = parseQuery(spec, body === undefined ? {} : body);
  const result = runQuery(state.tables[resource], q, state.options);
  return [200, listBody(state.options, result.records, result.total)];
}
