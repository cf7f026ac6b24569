import { dirname } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ResourceName } from '../../src/schema/index.js';
import { runOhs } from '../helpers/cli.js';
import { cliConfig, cliEnv, expectMirrorEqualsTruth, withMirror, withTmpDir } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The mass-delete guard (sync.massDeleteShare 5%, sync.massDeleteMinRows 10): a pass that would
 * soft-delete more of a table stops with MASS_DELETE and deletes nothing, for each kind of
 * stream (query pass, whole list, id re-read answering 404), unless --allow-mass-delete is
 * given; smaller deletions go through. Every soft-deletion is audited in sync_deletion.
 */
describe('ohs sync: the mass-delete guard and the deletion audit', () => {
  const sim = withSim({ scale: 0.05 });
  const tmp = withTmpDir();
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
    file = tmp();
    const r = await sync();
    expect(r.code, r.stderr).toBe(0);
  });

  it('small deletions (at most 10 rows, or at most 5%) go through, each audited', async () => {
    const tenants = deleteUpstream('Tenant', 4); // 4 of 42: 10%, but under 10 rows
    const users = deleteUpstream('User', 10); // 10 of 125: 8%, but not more than 10 rows
    const items = deleteUpstream('OrderItem', 30); // 30 of 1500: 2%
    const r = await sync();
    expect(r.code, r.stderr).toBe(0);
    await withMirror(file, (m) => {
      expectMirrorEqualsTruth(m, sim().truth());
      const run = m.sqlite.prepare('SELECT max(id) AS id FROM sync_run').get() as { id: number };
      const audit = (table: string) =>
        (
          m.sqlite
            .prepare('SELECT row_id FROM sync_deletion WHERE table_name = ? AND run_id = ? ORDER BY id')
            .all(table, run.id) as { row_id: string }[]
        )
          .map((a) => a.row_id)
          .sort();
      expect(audit('tenant')).toEqual([...tenants].sort());
      expect(audit('user')).toEqual([...users].sort());
      expect(audit('orderitem')).toEqual([...items].sort());
      const stream = m.sqlite
        .prepare(
          'SELECT stream, deleted FROM sync_stream_run WHERE run_id = ? AND deleted > 0 ORDER BY stream',
        )
        .all(run.id);
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
    const before = await withMirror(file, (m) =>
      m.sqlite.prepare('SELECT count(*) AS n FROM sync_deletion').get(),
    );

    const r = await sync('--full');
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^ohs: MASS_DELETE: \w+: this pass would soft-delete \d+ of \d+ rows/);
    expect(r.stderr).toContain('--allow-mass-delete');

    await withMirror(file, (m) => {
      // Nothing was soft-deleted, nothing audited.
      expect(m.sqlite.prepare('SELECT count(*) AS n FROM sync_deletion').get()).toEqual(before);
      for (const [table, ids] of [
        ['tenant', tenants],
        ['user', users],
        ['staff', staff],
      ] as const) {
        const rows = ids.map(
          (id) =>
            m.sqlite.prepare(`SELECT deleted_at FROM "${table}" WHERE id = ?`).get(Number(id)) as {
              deleted_at: string | null;
            },
        );
        expect(
          rows.every((row) => row.deleted_at === null),
          table,
        ).toBe(true);
      }
      const run = m.sqlite.prepare('SELECT * FROM sync_run ORDER BY id DESC LIMIT 1').get() as {
        id: number;
        outcome: string;
        error_code: string;
      };
      expect(run).toMatchObject({ outcome: 'failed', error_code: 'MASS_DELETE' });
      const streams = m.sqlite
        .prepare('SELECT stream, outcome, error FROM sync_stream_run WHERE run_id = ? ORDER BY id')
        .all(run.id) as { stream: string; outcome: string; error: string | null }[];
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
    await withMirror(file, (m) => {
      expectMirrorEqualsTruth(m, sim().truth());
      const run = m.sqlite.prepare('SELECT max(id) AS id FROM sync_run').get() as { id: number };
      for (const [table, ids] of [
        ['tenant', tenants],
        ['user', users],
        ['staff', staff],
      ] as const) {
        const audit = m.sqlite
          .prepare('SELECT row_id, deleted_at FROM sync_deletion WHERE table_name = ? AND run_id = ?')
          .all(table, run.id) as { row_id: string; deleted_at: string }[];
        expect(audit.map((a) => a.row_id).sort(), table).toEqual([...ids].sort());
        for (const a of audit) {
          const row = m.sqlite
            .prepare(`SELECT deleted_at, raw FROM "${table}" WHERE id = ?`)
            .get(Number(a.row_id)) as {
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
