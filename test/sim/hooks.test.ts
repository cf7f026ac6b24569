import { describe, expect, it } from 'vitest';
import { type RunningSim, startSim } from '../../src/sim/index.js';
import { call, TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { asList, asObj, errorOf, num, pathOf, query } from '../helpers/sim-data.js';

/** A hook call (no token: hooks are for tests, not part of the interface). */
async function hook(sim: RunningSim, method: string, path: string, body?: unknown) {
  const res = await fetch(`${sim.url}/__sim${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

describe('hooks off', () => {
  const sim = withSim({ scale: 0.1, hooks: false });

  it('is the default of startSim', async () => {
    const s = await startSim({ scale: 0.1, anchorDate: TEST_ANCHOR });
    try {
      expect(s.options.hooks).toBe(false);
      const res = await hook(s, 'GET', '/truth');
      expect(res.status).toBe(404);
      expect(errorOf(res.body).message).toContain('/__sim/truth');
    } finally {
      await s.close();
    }
  });

  it('answers 404 on every hook, and nothing changes', async () => {
    const s = sim();
    expect(s.options.hooks).toBe(false);
    const truth = s.truth();
    await query(s, 'queryRole', {});
    for (const [method, path, body] of [
      ['GET', '/truth', undefined],
      ['GET', '/truth/Role', undefined],
      ['GET', '/stats', undefined],
      ['GET', '/changes', undefined],
      ['POST', '/mutate', { size: 5 }],
      ['POST', '/config', { pageCap: 1 }],
      ['POST', '/reset-stats', undefined],
    ] as const) {
      const res = await hook(s, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(errorOf(res.body).code).toBe('NOT_FOUND');
    }
    expect(s.truth()).toEqual(truth);
    expect(s.stats.mutations).toBe(0);
    expect(s.stats.requests).toBe(1);
    expect(s.options.pageCap).toBe(250);
    expect(await query(s, 'queryRole', { sortBy: 'id', sortDirection: 'asc' })).toEqual(truth.Role);
  });
});

describe('hooks on', () => {
  const sim = withSim({ scale: 0.1 });

  it('GET truth: every resource, the statuses, moves and deletions', async () => {
    const s = sim();
    const res = await hook(s, 'GET', '/truth');
    expect(res.status).toBe(200);
    const body = asObj(res.body);
    expect(body.resources).toEqual(s.truth());
    expect(body.statuses).toEqual(s.statuses);
    expect(asList(body.statuses)).toHaveLength(8);
    expect(body.moves).toEqual([]);
    expect(body.deleted).toEqual([]);
    const staff = await hook(s, 'GET', '/truth/Staff');
    expect(staff.body).toEqual(s.truth().Staff);
    expect((await hook(s, 'GET', '/truth/Nope')).status).toBe(404);
    for (const name of ['constructor', 'toString', 'hasOwnProperty']) {
      const res = await hook(s, 'GET', `/truth/${name}`);
      expect(res.status, name).toBe(404);
      expect(errorOf(res.body).message).toBe(`no resource ${name}`);
    }
    expect((await hook(s, 'GET', '/nope')).status).toBe(404);
  });

  it('GET stats counts service requests by operation and status, not hooks; reset-stats zeroes it', async () => {
    const s = sim();
    expect((await hook(s, 'POST', '/reset-stats')).body).toMatchObject({
      requests: 0,
      byOperation: {},
      mutations: 0,
    });
    const staff = s.truth().Staff[0];
    await call(s, 'GET', pathOf('getStaff', staff?.id));
    await call(s, 'GET', pathOf('getStaff', 1));
    await query(s, 'queryRole', {});
    await call(s, 'POST', pathOf('queryRole'), {}, null);
    const stats = asObj((await hook(s, 'GET', '/stats')).body);
    expect(stats).toMatchObject({
      requests: 4,
      byOperation: { getStaff: 2, queryRole: 2 },
      byStatus: { '200': 2, '404': 1, '401': 1 },
      writesApplied: {},
      rateLimited: 0,
    });
    expect(stats).toEqual(JSON.parse(JSON.stringify(s.stats)));
    const reset = await hook(s, 'POST', '/reset-stats');
    expect(reset.status).toBe(200);
    expect(asObj(reset.body)).toMatchObject({
      requests: 0,
      byOperation: {},
      byStatus: {},
      writesApplied: {},
    });
    expect(s.stats.requests).toBe(0);
  });

  it('POST mutate changes the truth; GET changes reports the moves and deletions', async () => {
    const s = sim();
    const before = s.truth().OrderItem.length;
    const summary = asObj((await hook(s, 'POST', '/mutate', { size: 4 })).body);
    expect(summary).toMatchObject({ inserted: 4, moved: 4, deleted: 1 });
    expect(s.truth().OrderItem.length).toBe(before + 4 - 1);
    const changes = asObj((await hook(s, 'GET', '/changes')).body);
    expect(changes).toEqual(JSON.parse(JSON.stringify(s.changes())));
    expect(asList(changes.moves)).toHaveLength(4);
    const gone = asList(changes.deleted).filter((d) => d.resource === 'OrderItem');
    expect(gone).toHaveLength(1);
    expect(s.tables.OrderItem.get(num(gone[0]?.id))).toBeUndefined();
    expect(s.stats.mutations).toBeGreaterThanOrEqual(1);
  });

  it('POST config changes the live switches, and refuses the others', async () => {
    const s = sim();
    const res = await hook(s, 'POST', '/config', { pageCap: 10, envelope: 'object', totalKey: 'n' });
    expect(res.status).toBe(200);
    expect(asObj(res.body)).toMatchObject({ pageCap: 10, envelope: 'object', totalKey: 'n', scale: 0.1 });
    const page = asObj(
      (await call(s, 'POST', pathOf('queryOrderItem'), { sortBy: 'id', pageSize: 100 })).body,
    );
    expect(page.n).toBe(s.truth().OrderItem.length);
    expect(page.data).toEqual(s.truth().OrderItem.slice(-10).reverse());
    for (const [patch, fragment] of [
      [{ seed: 2 }, "'seed' cannot change while running"],
      [{ prefix: '/x' }, "'prefix' cannot change while running"],
      [{ colour: 'red' }, "'colour' cannot change"],
      [{ pageCap: -1 }, 'pageCap'],
      [{ envelope: 'xml' }, 'envelope'],
    ] as const) {
      const bad = await hook(s, 'POST', '/config', patch);
      expect(bad.status, JSON.stringify(patch)).toBe(400);
      expect(errorOf(bad.body).message).toContain(fragment);
    }
    expect(s.options).toMatchObject({ pageCap: 10, envelope: 'object', seed: 1 });
    await hook(s, 'POST', '/config', { pageCap: 250, envelope: 'array', totalKey: 'total' });
    expect(await query(s, 'queryRole', { sortBy: 'id', sortDirection: 'asc' })).toEqual(s.truth().Role);
  });
});
