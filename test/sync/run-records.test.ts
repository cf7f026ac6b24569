import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { SyncRunTable, SyncStreamRunTable } from '../../src/mirror/index.js';
import type { RequestInfo } from '../../src/sim/server.js';
import { streamNames } from '../../src/sync/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, one, rows, streamTables, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

type RunRow = Selectable<SyncRunTable>;
type StreamRunRow = Omit<Selectable<SyncStreamRunTable>, 'id' | 'started_at' | 'ended_at'>;

let onRequest: ((info: RequestInfo) => void) | undefined;

/**
 * Every run is recorded (docs/sync.md): sync_run per run and sync_stream_run per stream, with
 * pages, rows, requests and retries that match what the service saw and what the mirror holds.
 */
describe('sync_run and sync_stream_run', () => {
  // One sandbox for both engines: nothing here changes its data.
  const sim = withSim({ scale: 0.05, onRequest: (info) => onRequest?.(info) });

  const runs = (file: string) =>
    withMirror(file, async (m) => ({
      runs: (await rows(m, sql`SELECT * FROM sync_run ORDER BY id`)) as RunRow[],
      streams: (await rows(m, sql`SELECT * FROM sync_stream_run ORDER BY id`)) as StreamRunRow[],
    }));

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('a first sync: one run, one row per stream, counts equal to the service and the truth', async () => {
      const file = await target();
      const before = sim().stats.requests;
      const t0 = new Date().toISOString();
      const report = await syncInto(sim(), file);
      const asked = sim().stats.requests - before;
      expect(report.outcome).toBe('ok');
      const {
        runs: [run, ...others],
        streams,
      } = await runs(file);
      expect(others).toEqual([]);
      expect(run).toMatchObject({
        id: report.runId,
        kind: 'sync',
        // An empty mirror: every stream made a full pass, so the run is recorded full.
        mode: 'full',
        streams: streamNames.join(','),
        outcome: 'ok',
        error_code: null,
        error: null,
        pid: process.pid,
        requests: asked,
        retries: 0,
      });
      expect(run!.started_at >= t0 && run!.ended_at! >= run!.started_at).toBe(true);
      expect(streams.map((s) => s.stream)).toEqual(streamNames);
      const truth = sim().truth();
      for (const s of streams) {
        const resource = streamTables.find((t) => t.table === s.stream)!.resource;
        // An empty mirror makes every stream's first run a full pass.
        expect(s, s.stream).toMatchObject({
          run_id: run!.id,
          mode: 'full',
          outcome: 'ok',
          inserted: truth[resource].length,
          updated: 0,
          unchanged: 0,
          deleted: 0,
          retries: 0,
          error: null,
        });
        expect(s.pages, s.stream).toBeGreaterThan(0);
        // A list (orgmonth, user) is one answer parsed into pages of 500; every other page is a request.
        if (s.stream !== 'orgmonth' && s.stream !== 'user')
          expect(s.requests, s.stream).toBeGreaterThanOrEqual(s.pages);
      }
      expect(streams.reduce((n, s) => n + s.requests, 0)).toBe(asked);
      // Each stream's state names this run; no pass is left open.
      await withMirror(file, async (m) => {
        const state = await rows(
          m,
          sql`SELECT stream, last_run_id, pass_id FROM sync_stream_state ORDER BY stream`,
        );
        expect(state).toEqual(
          [...streamNames].sort().map((stream) => ({ stream, last_run_id: run!.id, pass_id: null })),
        );
      });
    });

    it('through faults: retries counted per stream and per run, requests equal to what the service saw', async () => {
      sim().configure({ faultRate: 0.2, faultKinds: ['503', '500', 'drop', 'truncate'] });
      try {
        const file = await target();
        const before = sim().stats.requests;
        const report = await syncInto(sim(), file, { full: true }, { maxRetries: 12 });
        expect(report.outcome).toBe('ok');
        const asked = sim().stats.requests - before;
        const {
          runs: [run],
          streams,
        } = await runs(file);
        expect(run).toMatchObject({ mode: 'full', outcome: 'ok', requests: asked });
        expect(run!.retries).toBeGreaterThan(asked * 0.1);
        expect(streams.reduce((n, s) => n + s.retries, 0)).toBe(run!.retries);
        expect(streams.reduce((n, s) => n + s.requests, 0)).toBe(asked);
        await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
      } finally {
        sim().configure({ faultRate: 0 });
      }
    });

    it('a second, incremental run counts rows unchanged, and only the streams named', async () => {
      const file = await target();
      await syncInto(sim(), file);
      // The rotating re-read made one id long here (rereadRuns), so the counts stay exact.
      const report = await syncInto(sim(), file, {
        streams: ['user', 'role', 'invoice'],
        rereadRuns: 1_000_000,
      });
      expect(report.outcome).toBe('ok');
      const { runs: all, streams } = await runs(file);
      expect(all[1]).toMatchObject({ streams: 'user,role,invoice', outcome: 'ok', mode: 'incremental' });
      const second = streams.filter((s) => s.run_id === all[1]!.id);
      // Streams run in declaration order.
      expect(second.map((s) => s.stream)).toEqual(['role', 'user', 'invoice']);
      const truth = sim().truth();
      // Unpaid invoices, plus the lowest id when paid (the rotating re-read's one id).
      const lowest = [...truth.Invoice].sort((a, b) => Number(a.id) - Number(b.id))[0]!;
      const open = truth.Invoice.filter((i) => i.balance !== 0).length + (lowest.balance === 0 ? 1 : 0);
      expect(second.map((s) => [s.stream, s.mode, s.inserted, s.updated, s.unchanged, s.deleted])).toEqual([
        ['role', 'full', 0, 0, truth.Role.length, 0],
        ['user', 'full', 0, 0, truth.User.length, 0],
        // Incremental: unpaid invoices and the rotation's share are re-read, then new ids probed for.
        ['invoice', 'incremental', 0, 0, open, 0],
      ]);
    });

    it('an interrupted run (SIGINT/SIGTERM: the signal aborted) is recorded, and the next run resumes it', async () => {
      const file = await target();
      const abort = new AbortController();
      const start = sim().stats.requests;
      onRequest = () => {
        if (sim().stats.requests - start >= 150) abort.abort();
      };
      let report: Awaited<ReturnType<typeof syncInto>>;
      try {
        report = await syncInto(sim(), file, { signal: abort.signal });
      } finally {
        onRequest = undefined;
      }
      expect(report.outcome).toBe('interrupted');
      expect(report.error).toBeUndefined();
      const first = await runs(file);
      expect(first.runs[0]).toMatchObject({ outcome: 'interrupted', error_code: null });
      const interrupted = first.streams.filter((s) => s.outcome === 'interrupted').map((s) => s.stream);
      expect(interrupted.length).toBeGreaterThan(0);
      expect(first.streams.every((s) => s.outcome === 'ok' || s.outcome === 'interrupted')).toBe(true);
      // The interrupted streams left a pass for the next run.
      await withMirror(file, async (m) => {
        const open = (await rows(
          m,
          sql`SELECT stream FROM sync_stream_state WHERE pass_id IS NOT NULL ORDER BY stream`,
        )) as { stream: string }[];
        expect(open.map((o) => o.stream)).toEqual([...interrupted].sort());
      });

      const next = await syncInto(sim(), file);
      expect(next.outcome).toBe('ok');
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth());
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toEqual({ n: 0 });
      });
    });
  });
});
