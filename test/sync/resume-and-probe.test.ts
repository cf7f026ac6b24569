import { type RawBuilder, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/sim/server.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, one, rows, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

let onRequest: ((info: RequestInfo) => void) | undefined;
let holdRequest: ((req: { operation: string }) => Promise<void> | undefined) | undefined;

/**
 * Two ways a sync could leave the mirror behind the service for good, found by syncs interrupted
 * while the service changed:
 * - an incremental run that first resumes a pass a killed run left must still catch up with what
 *   changed, since the killed run, in the rows that pass had already read;
 * - probing upward for new ids must not skip a record created just after its id answered 404.
 */
describe('resumed passes catch up; probing does not skip late records', () => {
  describe.each(engines)('%s', (engine) => {
    // A sandbox per engine: the first test pays the lowest unpaid invoices, which the same test
    // on the next engine needs unpaid. Small pages, so the order item pass stops in the middle.
    const sim = withSim({
      scale: 0.05,
      pageCap: 37,
      onRequest: (info) => onRequest?.(info),
      holdRequest: (req) => holdRequest?.(req),
    });
    const target = withTargets(engine);

    it('an incremental run resuming a stopped --full pass also picks up later changes to rows it had read', async () => {
      const file = await target();
      expect((await syncInto(sim(), file)).outcome).toBe('ok');

      // A --full run stopped (SIGINT) with the order item and invoice passes half done.
      const abort = new AbortController();
      const ops = sim().stats.byOperation;
      const q0 = ops.queryOrderItem ?? 0;
      const g0 = ops.getInvoice ?? 0;
      // The order item pass is held at its mark until the stop, and the invoice pass, once past
      // its own, slowed while the order item pass has not reached its mark: neither can finish
      // before the stop, however the machine paces them. (Invoice gets are only slowed, not
      // held: held, they would fill every request slot and stall the order item pass.)
      const stopped$ = new Promise<void>((resolve) =>
        abort.signal.addEventListener('abort', () => resolve()),
      );
      const itemMark = q0 + 12;
      const invoiceMark = g0 + 40;
      holdRequest = (req) => {
        if (req.operation === 'queryOrderItem' && (ops.queryOrderItem ?? 0) > itemMark) return stopped$;
        if (
          req.operation === 'getInvoice' &&
          (ops.getInvoice ?? 0) > invoiceMark &&
          (ops.queryOrderItem ?? 0) < itemMark
        )
          return new Promise((resolve) => setTimeout(resolve, 100));
        return undefined;
      };
      onRequest = () => {
        if ((ops.queryOrderItem ?? 0) >= itemMark && (ops.getInvoice ?? 0) >= invoiceMark) abort.abort();
      };
      try {
        const stopped = await syncInto(sim(), file, { full: true, signal: abort.signal });
        expect(stopped.outcome).toBe('interrupted');
      } finally {
        onRequest = undefined;
        holdRequest = undefined;
      }

      // Rows those passes had already read change upstream.
      const read = await withMirror(file, async (m) => {
        const pass = async (stream: string) =>
          (
            (await one(m, sql`SELECT pass_id FROM sync_stream_state WHERE stream = ${stream}`)) as {
              pass_id: string | null;
            }
          ).pass_id;
        expect(await pass('orderitem'), 'order item pass left open').not.toBeNull();
        expect(await pass('invoice'), 'invoice pass left open').not.toBeNull();
        // Rows the open passes have read (sync_pass_seen state 1).
        const ids = async (table: string, where: RawBuilder<unknown>) =>
          (
            await rows<{ id: number | string }>(
              m,
              sql`SELECT t.id FROM ${sql.table(table)} t JOIN sync_pass_seen s ON s.stream = ${table} AND s.state = 1 AND s.id = CAST(t.id AS TEXT) WHERE ${where} LIMIT 3`,
            )
          ).map((r) => r.id);
        return {
          closed: await ids('orderitem', sql`${sql.ref('t.isNotModifiable')} = 1`),
          open: await ids('orderitem', sql`${sql.ref('t.isNotModifiable')} = 0`),
          unpaid: await ids('invoice', sql`t.balance > 0`),
        };
      });
      expect(read.closed).toHaveLength(3);
      expect(read.open.length).toBeGreaterThan(0);
      expect(read.unpaid).toHaveLength(3);
      const t = sim().tables;
      for (const id of read.closed) t.OrderItem.delete(id);
      const cancelled = sim().statuses.find((s) => s.code === 'CAN')!;
      for (const id of read.open) {
        t.OrderItem.update(id, {
          CurrentStatusId: cancelled.id,
          c_currentStatusCodeId: cancelled.code,
          c_currentStatusCodeName: cancelled.name,
          isNotModifiable: true,
        });
      }
      for (const id of read.unpaid) t.Invoice.update(id, { balance: 0 });

      // One incremental run: it finishes the stopped passes, and catches up.
      const next = await syncInto(sim(), file);
      expect(next.outcome, String(next.error)).toBe('ok');
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth());
        for (const id of read.open)
          expect(
            await one(
              m,
              sql`SELECT status_id FROM orderitem_status_history WHERE orderitem_id = ${id} ORDER BY id DESC LIMIT 1`,
            ),
          ).toEqual({ status_id: cancelled.id });
      });
    });

    it('a record created just after its id answered 404, below one found later, is mirrored', async () => {
      const file = await target();
      const staff = sim().tables.Staff;
      const template = staff.all()[0]!;
      const first = Number(staff.maxId()) + 1;
      // When the first id above the last record answers 404, two records appear: that very id, and
      // one 20 ids up (beyond the batch being asked), as a busy service would give them.
      onRequest = (info) => {
        if (info.path.endsWith(`/staff/${first}`) && info.status === 404 && staff.get(first) === undefined) {
          staff.insert({ ...template, id: first });
          staff.insert({ ...template, id: first + 20 });
        }
      };
      try {
        const report = await syncInto(sim(), file, { streams: ['staff'] });
        expect(report.outcome, String(report.error)).toBe('ok');
      } finally {
        onRequest = undefined;
      }
      expect(staff.get(first)).toBeDefined();
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['staff'] });
      });
    });

    it('a --full re-sync probes above the highest known id beside the known ids, and finds what is there', async () => {
      const file = await target();
      const staff = sim().tables.Staff;
      expect((await syncInto(sim(), file, { streams: ['staff'] })).outcome).toBe('ok');
      const top = Number(staff.maxId());
      const known = staff.all().length;
      expect(known).toBeGreaterThan(48);
      // New upstream since: two records above the top, one of them past a gap.
      const template = staff.all()[0]!;
      staff.insert({ ...template, id: top + 1 });
      staff.insert({ ...template, id: top + 3 });
      const asked: number[] = [];
      onRequest = (info) => {
        const m = /\/staff\/(\d+)$/.exec(info.path);
        if (m !== null && info.method === 'GET') asked.push(Number(m[1]));
      };
      try {
        expect((await syncInto(sim(), file, { streams: ['staff'], full: true })).outcome).toBe('ok');
      } finally {
        onRequest = undefined;
      }
      // The first id above the top was asked before the last known one: not after all of them.
      const firstProbe = asked.findIndex((id) => id > top);
      const lastKnown = asked.findLastIndex((id) => id <= top);
      expect(firstProbe).toBeGreaterThanOrEqual(0);
      expect(firstProbe).toBeLessThan(lastKnown);
      // Each id asked once, apart from the 404s near what was found, asked again.
      const twice = asked.filter((id, i) => asked.indexOf(id) !== i);
      for (const id of twice) expect(id).toBeGreaterThan(top);
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['staff'] });
      });
    });

    it('a run stopped after probing past such a record: the run that resumes it asks the 404 again', async () => {
      const file = await target();
      const staff = sim().tables.Staff;
      const template = staff.all()[0]!;
      expect((await syncInto(sim(), file, { streams: ['staff'] })).outcome).toBe('ok');
      const first = Number(staff.maxId()) + 1;
      const abort = new AbortController();
      // As above, and the run is stopped once the higher record is read: before it asks the 404s
      // below what it found again.
      onRequest = (info) => {
        if (info.path.endsWith(`/staff/${first}`) && info.status === 404 && staff.get(first) === undefined) {
          staff.insert({ ...template, id: first });
          staff.insert({ ...template, id: first + 20 });
        }
        if (info.path.endsWith(`/staff/${first + 20}`) && info.status === 200) abort.abort();
      };
      try {
        const stopped = await syncInto(sim(), file, { streams: ['staff'], signal: abort.signal });
        expect(stopped.outcome).toBe('interrupted');
      } finally {
        onRequest = undefined;
      }
      const resumed = await syncInto(sim(), file, { streams: ['staff'] });
      expect(resumed.outcome, String(resumed.error)).toBe('ok');
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['staff'] });
      });
    });
  });
});
