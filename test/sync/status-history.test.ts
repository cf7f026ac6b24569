import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, one, rows, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * orderitem_status_history holds every status an order item was seen in, one row per change:
 * with an incremental sync after each mutation step (each step moves every chosen open item
 * once), every move the sandbox made is there, and each item's history is exactly the sequence
 * of statuses the syncs saw.
 */
describe('order item status history across incremental syncs', () => {
  const sim = withSim({ scale: 0.1 });
  // One sandbox for both engines: each test counts the moves made during it only.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('records every move made between syncs, in order, without repeats', async () => {
      const file = await target();
      /** Per item, the status at each sync (in sync order), from the truth. */
      const seen = new Map<number, number[]>();
      const note = () => {
        for (const r of sim().tables.OrderItem.all()) {
          const list = seen.get(r.id as number) ?? [];
          list.push(r.CurrentStatusId as number);
          seen.set(r.id as number, list);
        }
      };
      note();
      expect((await syncInto(sim(), file)).outcome).toBe('ok');

      const movesAtStart = sim().changes().moves.length;
      let movesBefore = movesAtStart;
      const steps = 5;
      for (let step = 0; step < steps; step++) {
        const summary = sim().mutate(12);
        expect(summary.moved).toBe(12);
        const moves = sim().changes().moves.slice(movesBefore);
        movesBefore += moves.length;
        // Each item moved at most once per step.
        expect(new Set(moves.map((m) => m.orderItemId)).size).toBe(moves.length);
        note();
        const report = await syncInto(sim(), file);
        expect(report.outcome, String(report.error)).toBe('ok');
        expect(report.streams.find((s) => s.stream === 'orderitem')?.stats.mode).toBe('incremental');

        await withMirror(file, async (m) => {
          const latest = (id: number) =>
            one(
              m,
              sql`SELECT status_id, status_code, status_name FROM orderitem_status_history WHERE orderitem_id = ${id} ORDER BY id DESC LIMIT 1`,
            );
          let checked = 0;
          for (const move of moves) {
            const item = sim().tables.OrderItem.get(move.orderItemId);
            if (item === undefined) continue; // deleted later in the same step
            const row = (await latest(move.orderItemId)) as
              | { status_id: number; status_code: string; status_name: string }
              | undefined;
            expect(row, `item ${move.orderItemId}: history`).toEqual({
              status_id: move.toStatusId,
              status_code: item.c_currentStatusCodeId,
              status_name: item.c_currentStatusCodeName,
            });
            checked++;
          }
          expect(checked).toBeGreaterThan(moves.length / 2);
        });
      }
      expect(movesBefore - movesAtStart).toBe(steps * 12);

      await withMirror(file, async (m) => {
        expect(m.engine).toBe(engine);
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] });
        const historyRows = (await rows(
          m,
          sql`SELECT orderitem_id, status_id, first_seen_at, last_seen_at FROM orderitem_status_history ORDER BY id`,
        )) as { orderitem_id: number; status_id: number; first_seen_at: string; last_seen_at: string }[];
        const history = new Map<number, number[]>();
        for (const r of historyRows) {
          expect(r.first_seen_at <= r.last_seen_at).toBe(true);
          const list = history.get(r.orderitem_id) ?? [];
          list.push(r.status_id);
          history.set(r.orderitem_id, list);
        }
        // Each item still upstream: its history is the statuses the syncs saw, a row per change.
        const { moves } = sim().changes();
        const moved = new Set(moves.map((mv) => mv.orderItemId));
        let movedItems = 0;
        for (const item of sim().tables.OrderItem.all()) {
          const id = item.id as number;
          const expected = (seen.get(id) ?? []).filter((s, i, all) => i === 0 || s !== all[i - 1]);
          expect(history.get(id), `item ${id}`).toEqual(expected);
          if (moved.has(id) && expected.length > 1) movedItems++;
        }
        expect(movedItems).toBeGreaterThan(steps * 6);
      });
    });
  });
});
