import { describe, expect, it, vi } from 'vitest';
import type { RunningSim, SimRecord } from '../../src/sim/index.js';
import { call, withSim } from '../helpers/sim.js';
import { asObj, idsOf, num, pathOf, query, sleep, sortedIds } from '../helpers/sim-data.js';

/**
 * Checks one or more mutation steps against the truth taken before them: order items inserted
 * above the old highest id, status moves recorded with the right from/to, deletions gone.
 */
async function checkMutation(
  sim: RunningSim,
  before: readonly SimRecord[],
  movesBefore: number,
  deletedBefore: number,
) {
  const after = sim.truth().OrderItem;
  const beforeById = new Map(before.map((r) => [Number(r.id), r]));
  const afterById = new Map(after.map((r) => [Number(r.id), r]));
  const maxBefore = Math.max(...beforeById.keys());
  const { moves, deleted } = sim.changes();
  const newMoves = moves.slice(movesBefore);
  const newDeleted = deleted.slice(deletedBefore).filter((d) => d.resource === 'OrderItem');

  // Inserts: every new id is above the highest id before.
  const inserted = after.filter((r) => !beforeById.has(Number(r.id)));
  expect(inserted.length).toBeGreaterThan(0);
  for (const r of inserted) {
    expect(Number(r.id)).toBeGreaterThan(maxBefore);
    expect(r.CreationTimestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  }

  // Deletions: recorded, and gone.
  expect(newDeleted.length).toBeGreaterThan(0);
  for (const d of newDeleted) expect(afterById.has(Number(d.id))).toBe(false);
  const vanished = before.filter((r) => !afterById.has(Number(r.id))).map((r) => Number(r.id));
  expect(vanished.every((id) => newDeleted.some((d) => Number(d.id) === id))).toBe(true);

  // Moves: from the status the item had, to the status it has now (last move per item wins).
  expect(newMoves.length).toBeGreaterThan(0);
  const lastMove = new Map<number, (typeof newMoves)[number]>();
  const firstMove = new Map<number, (typeof newMoves)[number]>();
  for (const m of newMoves) {
    lastMove.set(m.orderItemId, m);
    if (!firstMove.has(m.orderItemId)) firstMove.set(m.orderItemId, m);
    expect(m.toStatusId).not.toBe(m.fromStatusId);
  }
  for (const [id, m] of firstMove) {
    const was = beforeById.get(id);
    if (was !== undefined) {
      expect(m.fromStatusId).toBe(was.CurrentStatusId);
      expect(was.isNotModifiable).toBe(false);
    }
  }
  for (const [id, m] of lastMove) {
    const now = afterById.get(id);
    if (now === undefined) continue; // moved, then deleted
    const status = sim.statuses.find((s) => s.id === m.toStatusId);
    expect(status).toBeDefined();
    expect(now).toMatchObject({
      CurrentStatusId: m.toStatusId,
      c_currentStatusCodeId: status?.code,
      c_currentStatusCodeName: status?.name,
      isNotModifiable: status?.terminal,
    });
  }
  return { inserted, newMoves, newDeleted, lastMove };
}

describe('live mutation every N requests', () => {
  const sim = withSim({ scale: 0.1, mutateEveryRequests: 3, mutationSize: 5 });

  it('mutates after every third request, visibly through the queries', async () => {
    const s = sim();
    const before = s.truth().OrderItem;
    const roles = s.truth().Role;
    for (let i = 0; i < 2; i++) {
      expect(await query(s, 'queryRole', { sortBy: 'id', sortDirection: 'asc' })).toEqual(roles);
    }
    expect(s.stats.mutations).toBe(0);
    expect(s.truth().OrderItem).toEqual(before);
    await query(s, 'queryRole', {});
    expect(s.stats.mutations).toBe(1);

    const { inserted, lastMove } = await checkMutation(s, before, 0, 0);
    expect(inserted.length).toBeLessThanOrEqual(5);
    // The new items are at the top of an id-descending query.
    const top = await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 10 });
    expect(top).toEqual(s.truth().OrderItem.slice(-10).reverse());
    const topIds = idsOf(top).map(Number);
    for (const r of inserted) expect(topIds).toContain(Number(r.id));
    // The moved items answer their new status.
    const moved = [...lastMove.keys()].filter((id) => s.tables.OrderItem.get(id) !== undefined);
    const got = await query(s, 'queryOrderItem', {
      advancedFilter: {
        linkOperator: 'AND',
        items: [{ columnField: 'id', operatorValue: 'listContains', value: moved.join(',') }],
      },
    });
    expect(sortedIds(got)).toEqual([...moved].sort((a, b) => a - b));
    for (const r of got) expect(r.CurrentStatusId).toBe(lastMove.get(Number(r.id))?.toStatusId);
    // That query was request 5; the 6th makes the second mutation.
    expect(s.stats.mutations).toBe(1);
    await query(s, 'queryRole', {});
    expect(s.stats.mutations).toBe(2);
  });

  it('counts every service request, refused ones included', async () => {
    const s = sim();
    expect(s.stats.requests % 3).toBe(0);
    const before = s.stats.mutations;
    const items = s.tables.OrderItem.size;
    expect((await call(s, 'POST', pathOf('queryRole'), { nope: 'x' })).status).toBe(400);
    expect((await call(s, 'GET', pathOf('getStaff', 1))).status).toBe(404);
    expect(s.stats.mutations).toBe(before);
    expect((await call(s, 'POST', pathOf('queryRole'), {}, null)).status).toBe(401);
    expect(s.stats.requests % 3).toBe(0);
    expect(s.stats.mutations).toBe(before + 1);
    expect(s.tables.OrderItem.size).toBe(items + 5 - 1);
  });
});

describe('paging while the data changes (a mutation after every request)', () => {
  const sim = withSim({ scale: 0.1, mutateEveryRequests: 1, mutationSize: 5 });

  it('keyset paging by id sees every surviving item exactly once', async () => {
    const s = sim();
    const start = new Set(s.tables.OrderItem.all().map((r) => Number(r.id)));
    const seen: number[] = [];
    let last = 0;
    for (let page = 0; page < 100; page++) {
      const got = await query(s, 'queryOrderItem', {
        advancedFilter: {
          linkOperator: 'AND',
          items: [{ columnField: 'id', operatorValue: 'greaterThan', value: String(last) }],
        },
        sortBy: 'id',
        sortDirection: 'asc',
        pageSize: 250,
      });
      seen.push(...idsOf(got).map(Number));
      if (got.length < 250) break;
      last = Number(got.at(-1)?.id);
    }
    expect(s.stats.mutations).toBeGreaterThan(10);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const end = new Set(s.tables.OrderItem.all().map((r) => Number(r.id)));
    const deleted = new Set(
      s
        .changes()
        .deleted.filter((d) => d.resource === 'OrderItem')
        .map((d) => Number(d.id)),
    );
    const seenSet = new Set(seen);
    for (const id of start) if (end.has(id)) expect(seenSet.has(id)).toBe(true);
    for (const id of seen) expect(start.has(id) || end.has(id) || deleted.has(id)).toBe(true);
    // Items inserted while paging were seen too: they all went above the ids already read.
    const inserted = seen.filter((id) => !start.has(id));
    expect(inserted.length).toBeGreaterThan(0);
  });
});

describe('the mutate hook and sim.mutate()', () => {
  const sim = withSim({ scale: 0.1 });

  it('POST __sim/mutate makes one step of the given size', async () => {
    const s = sim();
    const truth = s.truth();
    const movesBefore = s.changes().moves.length;
    const deletedBefore = s.changes().deleted.length;
    const res = await fetch(`${s.url}/__sim/mutate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ size: 10 }),
    });
    expect(res.status).toBe(200);
    const summary = asObj(await res.json());
    expect(summary).toMatchObject({ inserted: 10, moved: 10, deleted: 2, paid: 5 });
    expect(s.stats.mutations).toBe(1);
    const after = s.truth();
    expect(after.OrderItem.length).toBe(truth.OrderItem.length + 10 - 2);
    const { newMoves, newDeleted } = await checkMutation(s, truth.OrderItem, movesBefore, deletedBefore);
    expect(newMoves).toHaveLength(10);
    expect(newDeleted).toHaveLength(2);
    // Five invoices were paid in full, visible through GET invoice.
    const paid = truth.Invoice.filter(
      (inv) => num(inv.balance) > 0 && s.tables.Invoice.get(inv.id)?.balance === 0,
    );
    expect(paid).toHaveLength(5);
    for (const inv of paid) {
      const got = await call(s, 'GET', pathOf('getInvoice', inv.id));
      expect(asObj(got.body)).toEqual({ ...inv, balance: 0 });
    }
  });

  it('?size= works too, and sim.mutate() is the same step in-process', async () => {
    const s = sim();
    const before = s.truth().OrderItem;
    const moves = s.changes().moves.length;
    const deleted = s.changes().deleted.length;
    const res = await fetch(`${s.url}/__sim/mutate?size=5`, { method: 'POST' });
    expect(asObj(await res.json())).toMatchObject({ inserted: 5, moved: 5, deleted: 1 });
    expect(s.mutate(3)).toMatchObject({ inserted: 3, moved: 3, deleted: 1 });
    await checkMutation(s, before, moves, deleted);
    expect(s.truth().OrderItem.length).toBe(before.length + 5 - 1 + 3 - 1);
  });
});

describe('mutation keeps the data consistent', () => {
  const sim = withSim({ scale: 0.1 });

  it('inserts above the highest id ever held, even when the top item was deleted', () => {
    const s = sim();
    const top = s.tables.OrderItem.all().at(-1);
    if (top === undefined) throw new Error('no order items');
    // What a deletion step does when it picks the last item.
    s.tables.OrderItem.delete(top.id);
    const before = new Set(s.tables.OrderItem.all().map((r) => r.id));
    expect(s.mutate(5).inserted).toBe(5);
    const inserted = s.truth().OrderItem.filter((r) => !before.has(r.id));
    expect(inserted.length).toBeGreaterThanOrEqual(4);
    for (const r of inserted) expect(Number(r.id)).toBeGreaterThan(Number(top.id));
    expect(s.tables.OrderItem.get(top.id)).toBeUndefined();
  });

  it('user status, isInvited and isSuspended agree after many steps', () => {
    const s = sim();
    for (let i = 0; i < 30; i++) s.mutate(5);
    const users = s.truth().User;
    const added = users.filter((u) => String(u.email).startsWith('new.user.'));
    expect(added.length).toBeGreaterThan(0);
    const wrong = users.filter(
      (u) =>
        (u.status === 'suspended') !== (u.isSuspended === true) ||
        (u.status === 'invited' && u.isInvited !== true) ||
        (u.status === 'active' && (u.isInvited === true || u.isSuspended === true)),
    );
    expect(wrong).toEqual([]);
  });
});

describe('live mutation every N milliseconds', () => {
  const sim = withSim({ scale: 0.1, mutateEveryMs: 40, mutationSize: 2 });
  it('changes the data while the sandbox runs', async () => {
    const s = sim();
    const before = s.truth().OrderItem;
    const count = s.stats.mutations;
    // At least three ticks of the 40 ms timer, however long a loaded machine takes to give them.
    await vi.waitFor(() => expect(s.stats.mutations).toBeGreaterThanOrEqual(count + 3), {
      timeout: 20_000,
      interval: 50,
    });
    const top = await query(s, 'queryOrderItem', { sortBy: 'id', pageSize: 3 });
    expect(Number(top[0]?.id)).toBeGreaterThan(Number(before.at(-1)?.id));
    // Switched off while running: nothing changes any more.
    s.configure({ mutateEveryMs: 0 });
    const frozen = s.stats.mutations;
    await sleep(120);
    expect(s.stats.mutations).toBe(frozen);
  });
});
