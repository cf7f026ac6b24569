import { dirname } from 'node:path';
import { type RawBuilder, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/index.js';
import type { RequestInfo } from '../../src/sim/server.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  rows,
  syncInto,
  value,
  values,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

let onRequest: ((info: RequestInfo) => void) | undefined;
let failRequest: ((req: { method: string; path: string; body: unknown }) => boolean) | undefined;

const count = async (m: Mirror, query: RawBuilder<unknown>) => ((await one(m, query)) as { n: number }).n;

/** The id a GET of an id stream asked for, if `path` is one. */
function idAsked(path: string, stream: string): string | undefined {
  return new RegExp(`/action/core/${stream}/([^/?]+)`).exec(path)?.[1];
}

/**
 * Failure paths of the sync, each against the
 * sandbox over real HTTP into a real mirror of each engine, each checked against the sandbox's own
 * truth. A sandbox per engine: some tests change its data for the ones after them.
 */
describe.each(engines)('sync failure paths (%s)', (engine) => {
  const sim = withSim({
    scale: 0.05,
    pageCap: 37,
    onRequest: (info) => onRequest?.(info),
    failRequest: (req) => failRequest?.(req) === true,
  });
  const target = withTargets(engine);
  // The CLI's config folder: beside a SQLite file, but a PostgreSQL target is a URL, not a path.
  const configDir = withTmpDir('ohs-spf-');

  /** Paths of the service requests made while `fn` runs. */
  async function watched<T>(fn: () => Promise<T>): Promise<{ result: T; paths: string[] }> {
    const paths: string[] = [];
    onRequest = (info) => paths.push(info.path);
    try {
      return { result: await fn(), paths };
    } finally {
      onRequest = undefined;
    }
  }

  it('--full after an interrupted incremental id pass reads every known id', async () => {
    const file = await target();
    expect((await syncInto(sim(), file)).outcome).toBe('ok');
    // An incremental invoice run stopped (SIGINT) in its re-read.
    const abort = new AbortController();
    let gets = 0;
    onRequest = (info) => {
      if (info.path.includes('/core/invoice/') && ++gets >= 20) abort.abort();
    };
    try {
      const stopped = await syncInto(sim(), file, { streams: ['invoice'], signal: abort.signal });
      expect(stopped.outcome).toBe('interrupted');
    } finally {
      onRequest = undefined;
    }
    // A paid invoice changes upstream: only a full re-read sees it.
    const paid = sim()
      .tables.Invoice.all()
      .find((r) => r.balance === 0)!;
    sim().tables.Invoice.update(paid.id, { lateFee: 12.5 });
    const known = await withMirror(file, (m) =>
      count(m, sql`SELECT count(*) AS n FROM invoice WHERE deleted_at IS NULL`),
    );
    const { result, paths } = await watched(() =>
      syncInto(sim(), file, { streams: ['invoice'], full: true }),
    );
    expect(result.outcome, String(result.error)).toBe('ok');
    const asked = new Set(paths.map((p) => idAsked(p, 'invoice')).filter((id) => id !== undefined));
    expect(asked.size).toBeGreaterThanOrEqual(known);
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['invoice'] });
      const state = (await one(
        m,
        sql`SELECT last_full_at FROM sync_stream_state WHERE stream = 'invoice'`,
      )) as {
        last_full_at: string | null;
      };
      expect(state.last_full_at).not.toBeNull();
    });
  });

  it('a SIGKILL right after an id pass starts leaves a whole pass that the next run completes', async () => {
    const file = await target();
    const config = cliConfig(dirname(configDir()));
    const env = cliEnv(sim());
    const first = await runOhs(['sync', 'invoice', '--db', file, '--config', config], {
      env,
      timeoutMs: 60_000,
    });
    expect(first.code, first.stderr).toBe(0);
    const paid = sim()
      .tables.Invoice.all()
      .find((r) => r.balance === 0 && r.lateFee !== 3.25)!;
    sim().tables.Invoice.update(paid.id, { lateFee: 3.25 });
    const killed = await runOhs(['sync', 'invoice', '--full', '--db', file, '--config', config], {
      env: { ...env, OHS_TEST_CRASH_AT: 'id-pass-started' },
      timeoutMs: 60_000,
    });
    expect(killed.code).not.toBe(0);
    await withMirror(file, async (m) => {
      // The pass is there, with its ids to read: nothing half-started.
      const todo = await count(
        m,
        sql`SELECT count(*) AS n FROM sync_pass_seen WHERE stream = 'invoice' AND state = 3`,
      );
      const known = await count(m, sql`SELECT count(*) AS n FROM invoice WHERE deleted_at IS NULL`);
      expect(todo).toBeGreaterThanOrEqual(known);
    });
    const next = await runOhs(['sync', 'invoice', '--db', file, '--config', config], {
      env,
      timeoutMs: 60_000,
    });
    expect(next.code, next.stderr).toBe(0);
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['invoice'] }));
  });

  it('a stream with 150,000 known ids still syncs (no spread into Math.max)', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['staff'] })).outcome).toBe('ok');
    await withMirror(file, async (m) => {
      await m.db.transaction().execute(async (trx) => {
        for (let i = 0; i < 150_000; i += 5_000) {
          const ids = Array.from({ length: 5_000 }, (_, k) => 2_000_000 + i + k);
          await sql`INSERT INTO staff (id, raw, synced_at) VALUES ${sql.join(
            ids.map((id) => sql`(${id}, ${JSON.stringify({ id })}, ${'2026-01-01T00:00:00.000Z'})`),
          )}`.execute(trx);
        }
      });
    });
    // The rotating re-read is made tiny here: the point is the size of the id set.
    const report = await syncInto(sim(), file, { streams: ['staff'], rereadRuns: 100_000 });
    expect(report.outcome, String(report.error)).toBe('ok');
    await withMirror(file, async (m) =>
      expect(await count(m, sql`SELECT count(*) AS n FROM staff`)).toBeGreaterThan(150_000),
    );
  });

  it('a failing order item range stops its siblings: no page is written after the failure is recorded', async () => {
    const file = await target();
    expect((await syncInto(sim(), file)).outcome).toBe('ok');
    const ids = sim()
      .tables.OrderItem.all()
      .map((r) => Number(r.id));
    const min = ids[0]!;
    const max = ids.at(-1)!;
    // Four ranges (41 pages of 37 at concurrency 4: src/sync/ranges.ts), split at the mirror's id
    // quantiles: the first ends at the id a quarter of the way.
    const firstUpper = ids[Math.floor(ids.length / 4) - 1]!;
    // The first range fails once past a tenth of the id span; the others would go on for long.
    const threshold = min + Math.floor((max - min) / 10);
    failRequest = (req) => {
      if (!req.path.endsWith('/query/core/orderitem')) return false;
      const items = (req.body as { advancedFilter?: { items?: { operatorValue: string; value: string }[] } })
        .advancedFilter?.items;
      const after = Number(items?.find((i) => i.operatorValue === 'greaterThan')?.value ?? Number.NaN);
      const upper = Number(items?.find((i) => i.operatorValue === 'lessThanOrEqualTo')?.value ?? Number.NaN);
      return after >= threshold && upper === firstUpper;
    };
    let afterEnd = 0;
    let ended = false;
    onRequest = (info) => {
      if (ended && info.path.endsWith('/query/core/orderitem')) afterEnd++;
    };
    try {
      const report = await syncInto(
        sim(),
        file,
        { full: true, streams: ['orderitem', 'invoice', 'staff', 'applicant'] },
        { maxRetries: 1, concurrency: 4 },
      );
      ended = true;
      expect(report.streams.find((s) => s.stream === 'orderitem')?.outcome).toBe('failed');
    } finally {
      failRequest = undefined;
    }
    // No sleep: syncInto closed its client when the run ended, so a sibling still going could only
    // reach the sandbox until then; counted from the end until the mirror's evidence is read.
    await withMirror(file, async (m) => {
      const run = (await one(
        m,
        sql`SELECT ended_at FROM sync_stream_run WHERE stream = 'orderitem' ORDER BY id DESC LIMIT 1`,
      )) as { ended_at: string };
      const last = (await one(
        m,
        sql`SELECT max(updated_at) AS at FROM sync_checkpoint WHERE stream = 'orderitem'`,
      )) as { at: string };
      expect(last.at <= run.ended_at, `${last.at} after ${run.ended_at}`).toBe(true);
    });
    onRequest = undefined;
    expect(afterEnd).toBe(0);
    // The next run resumes and ends equal to the truth.
    const next = await syncInto(sim(), file, { full: true, streams: ['orderitem'] });
    expect(next.outcome, String(next.error)).toBe('ok');
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] }));
  });

  it('a service reading listContains otherwise deletes nothing on its evidence', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['orderitem'] })).outcome).toBe('ok');
    sim().configure({ listContains: 'whole' });
    try {
      // Open items close upstream: they leave the re-poll and are looked up by id.
      const closed = sim().statuses.find((s) => s.code === 'CMP')!;
      const open = sim()
        .tables.OrderItem.all()
        .filter((r) => r.isNotModifiable === false)
        .slice(0, 8);
      for (const r of open) {
        sim().tables.OrderItem.update(r.id, {
          CurrentStatusId: closed.id,
          c_currentStatusCodeId: closed.code,
          c_currentStatusCodeName: closed.name,
          isNotModifiable: true,
        });
      }
      const report = await syncInto(sim(), file, { streams: ['orderitem'] });
      expect(report.outcome, String(report.error)).toBe('ok');
      await withMirror(file, async (m) => {
        await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['orderitem'] });
        expect(
          await count(m, sql`SELECT count(*) AS n FROM sync_deletion WHERE table_name = 'orderitem'`),
        ).toBe(0);
      });
      const probe = await runOhs(['probe', '--json'], { env: cliEnv(sim()), timeoutMs: 30_000 });
      expect(probe.code, probe.stderr).toBe(0);
      expect(JSON.parse(probe.stdout).listContains).toBe('other');
    } finally {
      sim().configure({ listContains: 'any' });
    }
    const probe = await runOhs(['probe', '--json'], { env: cliEnv(sim()), timeoutMs: 30_000 });
    expect(JSON.parse(probe.stdout).listContains).toBe('any-of');
  });

  it('incremental runs re-read every known id (and the holes below the top) within rereadRuns runs', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['staff', 'applicant', 'invoice'] })).outcome).toBe('ok');
    const runs = 4;
    const asked = new Map<string, Set<string>>();
    for (let i = 0; i < runs; i++) {
      const { result, paths } = await watched(() =>
        syncInto(sim(), file, { streams: ['staff', 'applicant', 'invoice'], rereadRuns: runs }),
      );
      expect(result.outcome, String(result.error)).toBe('ok');
      for (const p of paths) {
        for (const stream of ['staff', 'applicant', 'invoice']) {
          const id = idAsked(p, stream);
          if (id === undefined) continue;
          const set = asked.get(stream) ?? new Set<string>();
          set.add(id);
          asked.set(stream, set);
        }
      }
    }
    await withMirror(file, async (m) => {
      for (const stream of ['staff', 'applicant', 'invoice']) {
        const ids = (
          (await rows(m, sql`SELECT id FROM ${sql.table(stream)}`)) as { id: number | string }[]
        ).map((r) => Number(r.id));
        const low = ids.reduce((a, b) => Math.min(a, b));
        const top = ids.reduce((a, b) => Math.max(a, b));
        const seen = asked.get(stream) ?? new Set();
        const missed: number[] = [];
        for (let id = low; id <= top; id++) if (!seen.has(String(id))) missed.push(id);
        expect(missed, stream).toEqual([]);
        const state = (await one(
          m,
          sql`SELECT reread_round_at FROM sync_stream_state WHERE stream = ${stream}`,
        )) as { reread_round_at: string | null };
        expect(state.reread_round_at, stream).not.toBeNull();
      }
    });
  });

  it('a tripped guard writes nothing, names the service that filled the mirror, and guards small tables', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['tenant', 'role'] })).outcome).toBe('ok');
    const tenants = [...sim().tables.Tenant.all()];
    const changed = tenants[0]!;
    const before = await withMirror(file, (m) =>
      value(m, sql`SELECT raw FROM tenant WHERE id = ${changed.id}`),
    );
    sim().tables.Tenant.update(changed.id, { name: 'Renamed upstream' });
    const removed = tenants.slice(1, 15);
    for (const t of removed) sim().tables.Tenant.delete(t.id);
    // Every role gone (a table under massDeleteMinRows rows).
    const roles = [...sim().tables.Role.all()];
    for (const r of roles) sim().tables.Role.delete(r.id);
    try {
      // The mirror says another service filled it.
      await withMirror(file, (m) =>
        sql`UPDATE mirror_meta SET value = 'http://other.example' WHERE key = 'source.base_url'`.execute(
          m.db,
        ),
      );
      const report = await syncInto(sim(), file, { streams: ['tenant', 'role'] });
      const tenant = report.streams.find((s) => s.stream === 'tenant')!;
      const role = report.streams.find((s) => s.stream === 'role')!;
      expect(tenant.outcome).toBe('failed');
      expect(role.outcome).toBe('failed');
      expect(String(tenant.error?.message)).toMatch(
        /filled from http:\/\/other\.example but this run reads http:\/\/127\.0\.0\.1/,
      );
      expect(String(role.error?.message)).toMatch(/every row of the table/);
      await withMirror(file, async (m) => {
        expect(await value(m, sql`SELECT raw FROM tenant WHERE id = ${changed.id}`)).toBe(before);
        expect(await count(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toBe(0);
        expect(await count(m, sql`SELECT count(*) AS n FROM role WHERE deleted_at IS NULL`)).toBe(
          roles.length,
        );
      });
      const allowed = await syncInto(sim(), file, { streams: ['tenant', 'role'], allowMassDelete: true });
      expect(allowed.outcome, String(allowed.error)).toBe('ok');
      await withMirror(file, (m) =>
        expectMirrorEqualsTruth(m, sim().truth(), { tables: ['tenant', 'role'] }),
      );
    } finally {
      for (const r of roles) sim().tables.Role.insert(r);
      for (const t of removed) sim().tables.Tenant.insert(t);
    }
  });

  it('an incremental run whose id sweep trips the guard writes no new row either', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['orderitem'] })).outcome).toBe('ok');
    const items = sim().tables.OrderItem;
    const closed = items.all().filter((r) => r.isNotModifiable === true);
    const removed = closed.filter((_, i) => i % 5 === 0).slice(0, Math.ceil(items.size * 0.08));
    for (const r of removed) items.delete(r.id);
    const last = items.all().at(-1)!;
    const added = { ...last, id: Number(last.id) + 7 };
    items.insert(added);
    try {
      const report = await syncInto(sim(), file, { streams: ['orderitem'] });
      const stream = report.streams[0]!;
      expect(stream.outcome).toBe('failed');
      expect(String(stream.error?.message)).toMatch(
        /^orderitem: this pass would soft-delete \d+ of \d+ rows/,
      );
      await withMirror(file, async (m) => {
        expect(await one(m, sql`SELECT count(*) AS n FROM orderitem WHERE id = ${added.id}`)).toEqual({
          n: 0,
        });
        expect(await count(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toBe(0);
      });
    } finally {
      items.delete(added.id);
      for (const r of removed) items.insert(r);
    }
  });

  it('one record that cannot be read does not fail the stream; it is read next run, and nothing is deleted meanwhile', async () => {
    const file = await target();
    expect((await syncInto(sim(), file, { streams: ['invoice'] })).outcome).toBe('ok');
    const all = sim().tables.Invoice.all();
    const record = all[Math.floor(all.length / 2)]!;
    const unlucky = String(record.id);
    const gone = all[3]!;
    sim().tables.Invoice.delete(gone.id);
    sim().tables.Invoice.update(record.id, { lateFee: 7.75 });
    failRequest = (req) => idAsked(req.path, 'invoice') === unlucky;
    try {
      const report = await syncInto(sim(), file, { streams: ['invoice'], full: true }, { maxRetries: 2 });
      expect(report.outcome, String(report.error)).toBe('ok');
      await withMirror(file, async (m) => {
        expect(await values(m, sql`SELECT id FROM sync_failed_id WHERE stream = 'invoice'`)).toEqual([
          unlucky,
        ]);
        // The pass was not complete: no deletion rests on it, and it is no full pass.
        expect(await value(m, sql`SELECT deleted_at FROM invoice WHERE id = ${gone.id}`)).toBeNull();
      });
    } finally {
      failRequest = undefined;
    }
    const next = await syncInto(sim(), file, { streams: ['invoice'], full: true });
    expect(next.outcome, String(next.error)).toBe('ok');
    await withMirror(file, async (m) => {
      expect(await count(m, sql`SELECT count(*) AS n FROM sync_failed_id`)).toBe(0);
      await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['invoice'] });
    });
  });
});
