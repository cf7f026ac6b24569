import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import type { SimRecord } from '../../src/sim/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, one, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * Syncs while the service changes under them (new order items above the highest id, status moves,
 * deletions anywhere in the id range, invoices paid and added, users suspended, added and
 * removed, staff added, OrgMonth picks recorded), then one more incremental sync once the changes
 * stop: it alone must bring the mirror to the truth. That includes order items deleted upstream
 * after they closed (isNotModifiable), which the re-poll of open rows cannot see: the incremental
 * run's ids-only sweep (query-runner sweepDeletions) must soft-delete them. A `--full` pass
 * afterwards then finds nothing left to change.
 */
describe('sync during live mutation, then one more incremental sync', () => {
  // A mutation step (5 of each kind of change) after every 100 service requests.
  const sim = withSim({ scale: 0.1, mutateEveryRequests: 100, mutationSize: 5 });
  // One sandbox for both engines: each test turns the changes on, and counts only its own.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('ends equal to the truth; deleted rows keep their data with deleted_at set', async () => {
      sim().configure({ mutateEveryRequests: 100 });
      const mutationsAtStart = sim().stats.mutations;
      const deletedAtStart = sim().changes().deleted.length;
      const file = await target();
      const first = await syncInto(sim(), file);
      expect(first.outcome, String(first.error)).toBe('ok');
      const second = await syncInto(sim(), file);
      expect(second.outcome, String(second.error)).toBe('ok');
      expect(second.streams.find((s) => s.stream === 'orderitem')?.stats.mode).toBe('incremental');
      expect(sim().stats.mutations - mutationsAtStart).toBeGreaterThan(10);

      // The changes stop; one more incremental sync.
      sim().configure({ mutateEveryRequests: 0 });
      const mutationsBefore = sim().stats.mutations;
      const last = await syncInto(sim(), file);
      expect(last.outcome, String(last.error)).toBe('ok');
      expect(last.streams.find((s) => s.stream === 'orderitem')?.stats.mode).toBe('incremental');
      expect(sim().stats.mutations).toBe(mutationsBefore);

      const truth = sim().truth();
      const deleted = sim().changes().deleted.slice(deletedAtStart);
      const deletedItems = new Set(
        deleted.filter((d) => d.resource === 'OrderItem').map((d) => String(d.id)),
      );
      const deletedUsers = new Set(deleted.filter((d) => d.resource === 'User').map((d) => String(d.id)));
      expect(deletedItems.size).toBeGreaterThan(5);
      expect(deletedUsers.size).toBeGreaterThan(0);

      await withMirror(file, async (m) => {
        expect(m.engine).toBe(engine);
        await expectMirrorEqualsTruth(m, truth);
        const closed = await expectDeletedKept(m, 'orderitem', deletedItems);
        // The case only the sweep catches was met: closed items deleted after the mirror had them.
        expect(closed, 'closed order items deleted upstream after they were mirrored').toBeGreaterThan(0);
        await expectDeletedKept(m, 'user', deletedUsers);
      });

      // Nothing was left for a full pass to reconcile.
      const full = await syncInto(sim(), file, { full: true });
      expect(full.outcome, String(full.error)).toBe('ok');
      for (const s of full.streams) {
        expect(s.stats, s.stream).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
      }
      await withMirror(file, (m) => expectMirrorEqualsTruth(m, truth));
    });
  });
});

/**
 * Rows deleted upstream that the mirror had seen are still there, with their data, `deleted_at`
 * set and one audit row in sync_deletion. Returns how many of them were closed order items.
 */
async function expectDeletedKept(m: Mirror, table: string, ids: ReadonlySet<string>): Promise<number> {
  let seen = 0;
  let closed = 0;
  for (const id of ids) {
    const row = (await one(m, sql`SELECT * FROM ${sql.table(table)} WHERE id = ${Number(id)}`)) as
      | (SimRecord & { raw: string; deleted_at: string | null })
      | undefined;
    if (row === undefined) continue; // deleted before any sync saw it
    seen++;
    expect(JSON.parse(row.raw).id, `${table} ${id}: data kept`).toBe(Number(id));
    if (row.isNotModifiable === 1) closed++;
    expect(row.deleted_at, `${table} ${id}: deleted_at`).not.toBeNull();
    const audit = (await one(
      m,
      sql`SELECT count(*) AS n FROM sync_deletion WHERE table_name = ${table} AND row_id = ${id}`,
    )) as { n: number };
    expect(audit.n, `${table} ${id}: one audit row`).toBe(1);
  }
  expect(seen, `${table}: some deleted rows had been mirrored`).toBeGreaterThan(0);
  return closed;
}
