import type { ResourceName } from '../../schema/index.js';
import { notFound } from '../http-error.js';
import type { SimOptions } from '../options.js';
import type { SimState } from '../state.js';
import { invoiceAdmin } from './invoice-admin.js';

/**
 * The admin and fault controls under `{prefix}/__sim/` (`hooks`): the truth, the stats, recorded
 * requests, live mutation, hand-made invoice changes (invoice-admin.ts) and the switches that may change while running. `path` is the part
 * after `/__sim`.
 */
export function adminHook(
  state: SimState,
  method: string,
  path: string,
  url: URL,
  body: unknown,
): [number, unknown] {
  if (method === 'GET') return adminRead(state, path);
  if (method === 'POST' && path === '/mutate') {
    const size = Number(
      url.searchParams.get('size') ??
        (body as { size?: number } | undefined)?.size ??
        state.options.mutationSize,
    );
    return [200, state.mutate(size)];
  }
  if (method === 'POST' && path === '/config')
    return [200, state.configure((body ?? {}) as Partial<SimOptions>)];
  if (method === 'POST' && path === '/invoice') return [200, invoiceAdmin(state.tables, body)];
  if (method === 'POST' && path === '/reset-stats') return [200, state.resetStats()];
  throw notFound(`no sandbox hook ${method} ${path}`);
}

function adminRead(state: SimState, path: string): [number, unknown] {
  if (path === '/truth') {
    const { moves, deleted } = state.changes();
    return [200, { resources: state.truth(), statuses: state.statuses, moves, deleted }];
  }
  const one = /^\/truth\/([A-Za-z]+)$/.exec(path);
  if (one !== null) {
    const name = one[1] as ResourceName;
    if (!Object.hasOwn(state.tables, name)) throw notFound(`no resource ${name}`);
    return [200, structuredClone([...state.tables[name].all()])];
  }
  if (path === '/stats') return [200, state.stats];
  if (path === '/requests') {
    const out = state.recorded;
    state.recorded = [];
    return [200, out];
  }
  if (path === '/changes') return [200, state.changes()];
  throw notFound(`no sandbox hook GET ${path}`);
}
