import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/app/status.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { activeCounts, cliConfig, cliEnv, streamTables, withMirror, withTmpDir } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * `ohs status --json`: the last runs, and per stream its rows, deletions and freshness, from
 * the mirror alone (read-only).
 */
describe.each(engines)('ohs status --json (%s)', (engine) => {
  // A sandbox per engine: the tests delete upstream (a role; 12 of the 20 vendors).
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir();
  const target = withTargets(engine);
  let config = '';
  const sync = (file: string, ...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], { env: cliEnv(sim()), timeoutMs: 120_000 });
  const status = (file: string) =>
    runOhs(['status', '--json', '--db', file, '--config', config], { env: cliEnv(sim()) });

  beforeAll(() => {
    config = cliConfig(dirname(tmp()));
  });

  it('ohs status --json: the runs, and per stream its rows, deletions and freshness', async () => {
    const file = await target();
    const t0 = new Date().toISOString();
    expect((await sync(file)).code).toBe(0);
    sim().tables.Role.delete(sim().tables.Role.all()[0]!.id);
    expect((await sync(file, 'role', 'tenant', '--full')).code).toBe(0);
    const t1 = new Date().toISOString();

    const r = await status(file);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as StatusReport;
    expect(report.db).toBe(file);
    expect(report.runs.map((x) => ({ kind: x.kind, mode: x.mode, outcome: x.outcome }))).toEqual([
      { kind: 'sync', mode: 'full', outcome: 'ok' },
      // The first run, on an empty mirror, read everything: a full run.
      { kind: 'sync', mode: 'full', outcome: 'ok' },
    ]);
    for (const run of report.runs) {
      expect(run.started_at >= t0 && run.ended_at !== null && run.ended_at <= t1).toBe(true);
      expect(run.requests).toBeGreaterThan(0);
      expect(run.error_code).toBeNull();
    }

    const truth = sim().truth();
    const counts = await withMirror(file, (m) => activeCounts(m));
    expect(report.streams.map((s) => s.stream)).toEqual(streamTables.map((t) => t.table));
    for (const s of report.streams) {
      const resource = streamTables.find((t) => t.table === s.stream)!.resource;
      expect(s.rows, s.stream).toBe(truth[resource].length);
      expect(s.rows, s.stream).toBe(counts[s.stream]);
      expect(s.deleted, s.stream).toBe(s.stream === 'role' ? 1 : 0);
      expect(s.last_outcome, s.stream).toBe('ok');
      expect(s.pass_in_progress, s.stream).toBe(false);
      expect(s.last_success_at, s.stream).not.toBeNull();
      // Every stream's first sync (empty mirror) was a full pass.
      expect(s.last_full_at, s.stream).not.toBeNull();
    }
    const role = report.streams.find((s) => s.stream === 'role')!;
    const orderitem = report.streams.find((s) => s.stream === 'orderitem')!;
    expect(role.last_full_at! > orderitem.last_full_at!).toBe(true);
  });

  it('ohs status --json after a failed run: its error code; the guarded query pass dropped, so the next run reads again', async () => {
    const file = await target();
    expect((await sync(file)).code).toBe(0);
    // 12 of the 20 vendors gone: over the mass-delete guard.
    const vendors = sim().tables.HsVendor;
    for (const v of vendors
      .all()
      .slice(0, 12)
      .map((x) => x.id))
      vendors.delete(v);
    const failed = await sync(file);
    expect(failed.code).toBe(1);

    const report = JSON.parse((await status(file)).stdout) as StatusReport;
    expect(report.runs[0]).toMatchObject({ outcome: 'failed', error_code: 'MASS_DELETE' });
    expect(report.runs[0]!.error).toMatch(/^hsvendor: this pass would soft-delete 12 of \d+ rows/);
    const hsvendor = report.streams.find((s) => s.stream === 'hsvendor')!;
    expect(hsvendor).toMatchObject({ last_outcome: 'failed', pass_in_progress: false, deleted: 0 });
    expect(hsvendor.rows).toBe(vendors.size + 12);
    expect(report.streams.filter((s) => s.last_outcome === 'ok')).toHaveLength(8);

    expect((await sync(file, '--allow-mass-delete')).code).toBe(0);
    const after = JSON.parse((await status(file)).stdout) as StatusReport;
    expect(after.streams.find((s) => s.stream === 'hsvendor')).toMatchObject({
      rows: vendors.size,
      deleted: 12,
      pass_in_progress: false,
      last_outcome: 'ok',
    });
  });
});
