import { dirname } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceName } from '../../src/schema/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  rows,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The mass-delete guard (sync.massDeleteShare 5%, sync.massDeleteMinRows 10): a pass that would
 * soft-delete more of a table stops with MASS_DELETE and deletes nothing, for each kind of
 * stream (query pass, whole list, id re-read answering 404), unless --allow-mass-delete is
 * given; smaller deletions go through. Every soft-deletion is audited in sync_deletion.
 */
describe.each(engines)('ohs sync: the mass-delete guard and the deletion audit (%s)', (engine) => {
  // A sandbox per engine: the tests delete upstream, and the shares above are of a whole one.
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir();
  const target = withTargets(engine);
  let config = '';
  let file = '';
  const sync = (...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], { env: cliEnv(sim()), timeoutMs: 120_000 });

  /** Deletes `n` records of a resource on the sandbox, spread over its id range; returns their ids. */
  function deleteUpstream(resource: ResourceName, n: number): string[] {
    const table = sim().tables[resource];
    const all = table.all();
    const step = Math.floor(all.length / n);
    const ids = Array.from({ length: n }, (_, i) => all[i * step]!.id);
    for (const id of ids) expect(table.delete(id)).toBeDefined();
    return ids.map(String);
  }

  beforeAll(async () => {
    config = cliConfig(dirname(tmp()));
    file = await target();
    const r = await sync();
    expect(r.code, r.stderr).toBe(0);
  });

  it('small deletions (at most 10 rows, or at most 5%) go through, each audited', async () => {
    const tenants = deleteUpstream('Tenant', 4); // 4 of 42: 10%, but under 10 rows
    const users = deleteUpstream('User', 10); // 10 of 125: 8%, but not more than 10 rows
    const items = deleteUpstream('OrderItem', 30); // 30 of 1500: 2%
    const r = await sync();
    expect(r.code, r.stderr).toBe(0);
    await withMirror(file, async (m) => {
      expect(m.engine).toBe(engine);
      await expectMirrorEqualsTruth(m, sim().truth());
      const run = (await one(m, sql`SELECT max(id) AS id FROM sync_run`)) as { id: number };
      const audit = async (table: string) =>
        (
          (await rows(
            m,
            sql`SELECT row_id FROM sync_deletion WHERE table_name = ${table} AND run_id = ${run.id} ORDER BY id`,
          )) as { row_id: string }[]
        )
          .map((a) => a.row_id)
          .sort();
      expect(await audit('tenant')).toEqual([...tenants].sort());
      expect(await audit('user')).toEqual([...users].sort());
      expect(await audit('orderitem')).toEqual([...items].sort());
      const stream = await rows(
        m,
        sql`SELECT stream, deleted FROM sync_stream_run WHERE run_id = ${run.id} AND deleted > 0 ORDER BY stream`,
      );
      expect(stream).toEqual([
        { stream: 'orderitem', deleted: 30 },
        { stream: 'tenant', deleted: 4 },
        { stream: 'user', deleted: 10 },
      ]);
    });
  });

  it('a pass that would delete more than 5% stops with MASS_DELETE and deletes nothing', async () => {
    const tenants = deleteUpstream('Tenant', 11); // 11 of 38: 29%
    const users = deleteUpstream('User', 20); // 20 of 115: 17%
    const staff = deleteUpstream('Staff', 12); // 12 of 150: 8%, seen as 404s by a full re-read
    const before = await withMirror(file, (m) => one(m, sql`SELECT count(*) AS n FROM sync_deletion`));

    const r = await sync('--full');
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^ohs: MASS_DELETE: \w+: this pass would soft-delete \d+ of \d+ rows/);
    expect(r.stderr).toContain('--allow-mass-delete');

    await withMirror(file, async (m) => {
      // Nothing was soft-deleted, nothing audited.
      expect(await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)).toEqual(before);
      for (const [table, ids] of [
        ['tenant', tenants],
        ['user', users],
        ['staff', staff],
      ] as const) {
        const found: { deleted_at: string | null }[] = [];
        for (const id of ids)
          found.push(
            (await one(m, sql`SELECT deleted_at FROM ${sql.table(table)} WHERE id = ${Number(id)}`)) as {
              deleted_at: string | null;
            },
          );
        expect(
          found.every((row) => row.deleted_at === null),
          table,
        ).toBe(true);
      }
      const run = (await one(m, sql`SELECT * FROM sync_run ORDER BY id DESC LIMIT 1`)) as {
        id: number;
        outcome: string;
        error_code: string;
      };
      expect(run).toMatchObject({ outcome: 'failed', error_code: 'MASS_DELETE' });
      const streams = (await rows(
        m,
        sql`SELECT stream, outcome, error FROM sync_stream_run WHERE run_id = ${run.id} ORDER BY id`,
      )) as { stream: string; outcome: string; error: string | null }[];
      const failed = streams.filter((s) => s.outcome === 'failed');
      expect(failed.map((s) => s.stream).sort()).toEqual(['staff', 'tenant', 'user']);
      for (const s of failed) expect(s.error).toMatch(new RegExp(`^MASS_DELETE: ${s.stream}: `));
      expect(streams.filter((s) => s.outcome === 'ok')).toHaveLength(6);
    });

    // Without the flag the next run stops again (the pass waits for a decision).
    const again = await sync();
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('MASS_DELETE');

    // With it, the deletions go through, audited, and the mirror equals the truth.
    const allowed = await sync('--allow-mass-delete');
    expect(allowed.code, allowed.stderr).toBe(0);
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth());
      const run = (await one(m, sql`SELECT max(id) AS id FROM sync_run`)) as { id: number };
      for (const [table, ids] of [
        ['tenant', tenants],
        ['user', users],
        ['staff', staff],
      ] as const) {
        const audit = (await rows(
          m,
          sql`SELECT row_id, deleted_at FROM sync_deletion WHERE table_name = ${table} AND run_id = ${run.id}`,
        )) as { row_id: string; deleted_at: string }[];
        expect(audit.map((a) => a.row_id).sort(), table).toEqual([...ids].sort());
        for (const a of audit) {
          const row = (await one(
            m,
            sql`SELECT deleted_at, raw FROM ${sql.table(table)} WHERE id = ${Number(a.row_id)}`,
          )) as {
            deleted_at: string;
            raw: string;
          };
          expect(row.deleted_at).toBe(a.deleted_at);
          expect(String(JSON.parse(row.raw).id)).toBe(a.row_id);
        }
      }
    });
  });
});
