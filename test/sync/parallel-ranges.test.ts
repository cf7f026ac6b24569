import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { MIN_PAGES_PER_RANGE, rangeCount, rangesFrom } from '../../src/sync/ranges.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  rows,
  syncInto,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * A full pass of order items read as several id ranges at once (src/sync/ranges.ts), over real
 * HTTP: every record read exactly once, ranges that cover the id space with no gap and no overlap,
 * a kill in the middle of one range re-reading only that range, and live change (inserts, updates,
 * deletions during the pass) losing nothing, doubling nothing, deleting nothing wrongly.
 * Small pages (25 records) give the small sandbox (1,500 order items) 60 pages or more: 7 ranges or
 * more.
 */
const PAGE = 25;

/** One order item page request of a pass, as the sandbox received it. */
interface PageAsk {
  /** `id greaterThan` (undefined: the range's first page, from the bottom). */
  after: number | undefined;
  /** `id lessThanOrEqualTo`: the range's upper bound (undefined: the open-ended last range). */
  upper: number | undefined;
}

/** A keyset page of a pass: pageSize PAGE, filtered on the id alone (not a sweep, not the re-poll). */
function pageAsk(body: string): PageAsk | undefined {
  const b = JSON.parse(body) as {
    pageSize?: number;
    advancedFilter?: { items: { columnField: string; operatorValue: string; value: string }[] };
  };
  if (b.pageSize !== PAGE) return undefined;
  const items = b.advancedFilter?.items ?? [];
  const keyset = (i: (typeof items)[number]) =>
    i.columnField === 'id' && (i.operatorValue === 'greaterThan' || i.operatorValue === 'lessThanOrEqualTo');
  if (!items.every(keyset)) return undefined;
  const value = (op: string) => {
    const v = items.find((i) => i.operatorValue === op)?.value;
    return v === undefined ? undefined : Number(v);
  };
  return { after: value('greaterThan'), upper: value('lessThanOrEqualTo') };
}

const key = (upper: number | undefined) => (upper === undefined ? 'open' : String(upper));

/** The page requests by range (keyed by upper bound), in the order they came. */
function byRange(asks: readonly PageAsk[]): Map<string, PageAsk[]> {
  const out = new Map<string, PageAsk[]>();
  for (const a of asks) out.set(key(a.upper), [...(out.get(key(a.upper)) ?? []), a]);
  return out;
}

/**
 * The ranges tile the id space: sorted by upper bound, each range's first page starts where the
 * one before ends (the first from the bottom, the last open-ended); within a range no page is
 * asked twice and cursors only move up. Returns the ranges' bounds.
 */
function expectTiling(asks: readonly PageAsk[]): { after: number | undefined; upper: number | undefined }[] {
  const ranges = [...byRange(asks).values()]
    .map((pages) => ({ after: pages[0]?.after, upper: pages[0]?.upper, pages }))
    .sort((a, b) => (a.upper ?? Number.POSITIVE_INFINITY) - (b.upper ?? Number.POSITIVE_INFINITY));
  for (const [i, r] of ranges.entries()) {
    expect(r.after, `range ${i} starts where range ${i - 1} ends`).toBe(ranges[i - 1]?.upper);
    const cursors = r.pages.map((p) => p.after ?? Number.NEGATIVE_INFINITY);
    for (let j = 1; j < cursors.length; j++)
      expect(cursors[j], `range ${i}: page ${j} asked after the one before`).toBeGreaterThan(
        cursors[j - 1] as number,
      );
  }
  expect(ranges.at(-1)?.upper, 'the last range is open-ended').toBeUndefined();
  return ranges.map(({ after, upper }) => ({ after, upper }));
}

describe('the range plan (pure)', () => {
  it('splits a stream of many pages, bounded by sync.partitions and the concurrency; small ones stay whole', () => {
    const limits = { most: 8, concurrency: 8 };
    expect(rangeCount(2 * MIN_PAGES_PER_RANGE - 1, limits)).toBe(1);
    expect(rangeCount(2 * MIN_PAGES_PER_RANGE, limits)).toBe(2);
    expect(rangeCount(60, limits)).toBe(7);
    expect(rangeCount(122, limits)).toBe(8);
    expect(rangeCount(122, { most: 8, concurrency: 3 })).toBe(3);
    expect(rangeCount(122, { most: 1, concurrency: 48 })).toBe(1);
  });

  it('ranges from split points tile the ids: every id in exactly one', () => {
    const ranges = rangesFrom([300, 100, 200, 200]);
    expect(ranges).toEqual([
      { cursor: null, upper: '100' },
      { cursor: '100', upper: '200' },
      { cursor: '200', upper: '300' },
      { cursor: '300', upper: null },
    ]);
    const inRange = (id: number) =>
      ranges.filter(
        (r) => (r.cursor === null || id > Number(r.cursor)) && (r.upper === null || id <= Number(r.upper)),
      ).length;
    for (const id of [-5, 1, 100, 101, 200, 299, 300, 301, 10 ** 9]) expect(inRange(id), `id ${id}`).toBe(1);
  });
});

describe('a full order item pass in parallel id ranges', () => {
  /** The order item page requests of the pass under way (undefined: not watching). */
  let asks: PageAsk[] | undefined;
  /** Set by a test to hold a page request until it has done something. */
  let hold: ((ask: PageAsk) => Promise<void> | undefined) | undefined;
  const sim = withSim({
    scale: 0.05,
    holdRequest: (req) => {
      if (req.operation !== 'queryOrderItem') return undefined;
      const ask = pageAsk(req.body);
      if (ask === undefined) return undefined;
      asks?.push(ask);
      return hold?.(ask);
    },
  });
  const tmp = withTmpDir();
  const orderItems = () => sim().truth().OrderItem;
  const opts = { streams: ['orderitem'], full: true, partitions: 8 };

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('reads every record exactly once, on an empty mirror (probed) and over a known one (its quantiles)', async () => {
      const file = await target();
      /** Records per page of the last full pass: what the plan over a known mirror reads its pages at. */
      let fill = PAGE;
      for (const pass of ['probe', 'mirror'] as const) {
        asks = [];
        const report = await syncInto(sim(), file, opts, { pageSize: PAGE });
        const seen = asks;
        asks = undefined;
        expect(report.outcome, String(report.error)).toBe('ok');
        const truth = orderItems();
        const stream = report.streams.find((s) => s.stream === 'orderitem');
        // Records fetched = records upstream: none read twice (ranges overlapping, a page asked
        // again), and, with the mirror equal to the truth, none missed.
        expect(stream?.stats.records, pass).toBe(truth.length);
        const ranges = expectTiling(seen);
        // Over a known mirror, as many ranges as its rows' pages ask for, at the records per page
        // its last full pass (the probe's) was answered: each range of that pass ends on a short
        // page, so that is below PAGE once it was split. The sandbox is the file's, so the engine
        // tested second starts from the records the first one's live-change test left. A probe
        // reads the id span as dense (at least as many ranges as full pages ask for).
        const planned = rangeCount(Math.ceil(truth.length / (pass === 'mirror' ? fill : PAGE)), {
          most: 8,
          concurrency: 8,
        });
        if (pass === 'mirror') expect(ranges.length).toBe(planned);
        else expect(ranges.length).toBeGreaterThanOrEqual(planned);
        fill = Math.min(PAGE, Math.ceil((stream?.stats.records ?? 0) / (stream?.stats.pages ?? 1)));
        // A page per PAGE records of each range (a short one does not end it), and the empty page
        // that ends it.
        const inRange = (r: (typeof ranges)[number]) =>
          truth.filter(
            (t) =>
              (r.after === undefined || Number(t.id) > r.after) &&
              (r.upper === undefined || Number(t.id) <= r.upper),
          ).length;
        const sizes = ranges.map(inRange);
        expect(seen.length, pass).toBe(sizes.reduce((a, n) => a + Math.ceil(n / PAGE) + 1, 0));
        // Over a known mirror the split points are its ids' quantiles: ranges of equal size.
        if (pass === 'mirror') expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] }));
      }
    });

    it('a kill in the middle of one range: the resume re-reads only that range, from its checkpoint', async () => {
      const file = await target();
      const first = await syncInto(sim(), file, opts, { pageSize: PAGE });
      expect(first.outcome, String(first.error)).toBe('ok');
      const dir = dirname(tmp());
      const config = cliConfig(dir, { pageSize: PAGE });
      const c = JSON.parse(readFileSync(config, 'utf8')) as { sync: Record<string, unknown> };
      c.sync.partitions = 8;
      writeFileSync(config, JSON.stringify(c));

      // The open-ended range's third page is held until every other range is done (their
      // checkpoints say so), then the run is killed: one range in its middle, the rest done.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let lastPages = 0;
      let holding: (() => void) | undefined;
      const reached = new Promise<void>((resolve) => {
        holding = resolve;
      });
      hold = (ask) => {
        if (ask.upper !== undefined || ++lastPages !== 3) return undefined;
        holding?.();
        return held;
      };
      asks = [];
      const child = spawn(
        process.execPath,
        [OHS_BIN, 'sync', 'orderitem', '--full', '--db', file, '--config', config],
        { env: { ...process.env, ...cliEnv(sim()) }, stdio: 'ignore' },
      );
      const exited = once(child, 'exit');
      try {
        await reached;
        const parts = await waitFor(file, async (m) => {
          const p = await rows<{ part: number; cursor: string | null; upper: string | null; done: number }>(
            m,
            sql`SELECT part, cursor, upper, done FROM sync_checkpoint WHERE stream = 'orderitem' ORDER BY part`,
          );
          return p.length > 2 && p.filter((x) => Number(x.done) === 0).length === 1 ? p : undefined;
        });
        expect(parts.filter((p) => Number(p.done) === 0).map((p) => p.upper)).toEqual([null]);
        child.kill('SIGKILL');
        const [, signal] = (await exited) as [number | null, string | null];
        expect(signal).toBe('SIGKILL');
      } finally {
        hold = undefined;
        release();
      }
      const killedAsks = asks;
      // Read once the process is dead: the checkpoint the resume starts from.
      const cursorAtKill = await withMirror(file, async (m) => {
        const open = await rows<{ cursor: string | null }>(
          m,
          sql`SELECT cursor FROM sync_checkpoint WHERE stream = 'orderitem' AND done = 0`,
        );
        expect(open.length).toBe(1);
        return open[0]?.cursor ?? null;
      });
      expect(cursorAtKill, 'the open range had pages checkpointed').not.toBeNull();

      asks = [];
      const r = await runOhs(['sync', 'orderitem', '--full', '--db', file, '--config', config], {
        env: cliEnv(sim()),
        timeoutMs: 60_000,
      });
      const resumed = asks;
      asks = undefined;
      expect(r.code, r.stderr).toBe(0);
      // The killed run had started every range; the resume asked pages of the open range only,
      // starting at its checkpoint (the two pages before the held one are not asked again).
      expect(byRange(killedAsks).size).toBeGreaterThan(2);
      // (The resume's catch-up of a --full run, pages above the highest id held, is open-ended too.)
      expect([...byRange(resumed).keys()]).toEqual(['open']);
      expect(resumed[0]?.after).toBe(Number(cursorAtKill));
      for (const a of resumed) expect(a.after).toBeGreaterThanOrEqual(Number(cursorAtKill));
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] });
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toEqual({ n: 0 });
        const h = (await one(
          m,
          sql`SELECT count(*) AS n, count(DISTINCT orderitem_id) AS items FROM orderitem_status_history`,
        )) as { n: number; items: number };
        expect(Number(h.n)).toBe(Number(h.items));
        expect(await one(m, sql`SELECT count(*) AS n FROM sync_checkpoint`)).toEqual({ n: 0 });
      });
    });

    it('under live change: nothing lost, nothing twice, no false deletion', async () => {
      const file = await target();
      const first = await syncInto(sim(), file, opts, { pageSize: PAGE });
      expect(first.outcome, String(first.error)).toBe('ok');
      const before = new Set(orderItems().map((r) => Number(r.id)));
      const deletedAt = sim().changes().deleted.length;
      // A mutation step (inserts above the top, status moves, deletions anywhere) every 10 requests.
      sim().configure({ mutateEveryRequests: 10 });
      asks = [];
      let report: Awaited<ReturnType<typeof syncInto>>;
      try {
        report = await syncInto(sim(), file, opts, { pageSize: PAGE });
      } finally {
        sim().configure({ mutateEveryRequests: 0 });
      }
      const seen = asks;
      asks = undefined;
      expect(report.outcome, String(report.error)).toBe('ok');
      // Nothing twice: no page asked again, the ranges tiling the ids (no overlap).
      expect(expectTiling(seen).length).toBeGreaterThan(2);
      const deleted = new Set(
        sim()
          .changes()
          .deleted.slice(deletedAt)
          .filter((d) => d.resource === 'OrderItem')
          .map((d) => Number(d.id)),
      );
      expect(deleted.size, 'order items were deleted during the pass').toBeGreaterThan(0);
      const now = new Set(orderItems().map((r) => Number(r.id)));
      await withMirror(file, async (m) => {
        const mirrored = await rows<{ id: number; deleted_at: string | null }>(
          m,
          sql`SELECT id, deleted_at FROM orderitem`,
        );
        const active = new Set(mirrored.filter((r) => r.deleted_at === null).map((r) => Number(r.id)));
        // No false deletion: every row soft-deleted is gone upstream.
        for (const r of mirrored.filter((x) => x.deleted_at !== null))
          expect(now.has(Number(r.id)), `order item ${r.id} soft-deleted but still upstream`).toBe(false);
        // Nothing lost: every record there before the pass and still there after it is mirrored.
        for (const id of before) if (now.has(id)) expect(active.has(id), `order item ${id} lost`).toBe(true);
      });
      // Once the changes stop, one more sync brings the mirror to the truth.
      const last = await syncInto(sim(), file, opts, { pageSize: PAGE });
      expect(last.outcome, String(last.error)).toBe('ok');
      await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] }));
    });
  });
});

/** Polls the mirror until `fn` answers (every 50 ms, up to 30 s). */
async function waitFor<T>(
  file: string,
  fn: (m: Parameters<Parameters<typeof withMirror>[1]>[0]) => Promise<T | undefined>,
): Promise<T> {
  const until = Date.now() + 30_000;
  for (;;) {
    const got = await withMirror(file, fn);
    if (got !== undefined) return got;
    if (Date.now() > until) throw new Error('the mirror never reached the state waited for');
    await new Promise((r) => setTimeout(r, 50));
  }
}
