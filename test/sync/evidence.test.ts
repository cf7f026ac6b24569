import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  rows,
  streamTables,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The mirror marks a record deleted only on evidence that the service no longer has
 * it: never because the service was addressed wrongly, or a route answered nothing. A record seen
 * again is restored, and the restoration recorded.
 */
describeEngines('deletions only on evidence (%s)', {}, (engine) => {
  // Scale 0.02: 19 tenants, so that the 14 made to vanish are over both mass-delete bounds.
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir();
  const target = withTargets(engine);
  let config = '';
  let file = '';
  const sync = (url: string, ...args: string[]) =>
    runOhs(['sync', '--db', file, '--config', config, ...args], {
      env: { ...cliEnv(sim()), OHS_BASE_URL: url },
      timeoutMs: 120_000,
    });

  /** Rows of every stream table ever marked deleted, and the audit rows. */
  const deletedEver = () =>
    withMirror(file, async (m) => {
      let marked = 0;
      for (const { table } of streamTables)
        marked += Number(
          (
            (await one(
              m,
              sql`SELECT count(*) AS n FROM ${sql.table(table)} WHERE deleted_at IS NOT NULL`,
            )) as {
              n: number;
            }
          ).n,
        );
      const audit = Number(((await one(m, sql`SELECT count(*) AS n FROM sync_deletion`)) as { n: number }).n);
      return { marked, audit };
    });

  beforeAll(async () => {
    config = cliConfig(dirname(tmp()));
    file = await target();
    const r = await sync(sim().url);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a wrong base URL, incremental then --full, then the right URL, incremental then --full: nothing ever deleted, equal to the truth', async () => {
    const wrong = `${sim().url}/wrong`;
    for (const args of [[], ['--full']]) {
      const r = await sync(wrong, ...args);
      expect(r.code).toBe(2);
      // One error, naming the URL tried; no stream ran, so none failed on its own.
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('ohs: '));
      expect(errors).toEqual([
        `ohs: SERVICE_NOT_FOUND: no service at ${wrong}: POST /v2/query/core/role answered 404 (check baseUrl / OHS_BASE_URL: the URL before /v2/...); nothing was read or deleted`,
      ]);
      expect(r.stderr).not.toContain('stream failed');
      expect(await deletedEver()).toEqual({ marked: 0, audit: 0 });
    }
    for (const args of [[], ['--full']]) {
      const r = await sync(sim().url, ...args);
      expect(r.code, r.stderr).toBe(0);
      expect(await deletedEver()).toEqual({ marked: 0, audit: 0 });
    }
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth());
      const runs = await rows(m, sql`SELECT outcome, error_code FROM sync_run ORDER BY id`);
      expect(runs.slice(-4)).toEqual([
        { outcome: 'failed', error_code: 'SERVICE_NOT_FOUND' },
        { outcome: 'failed', error_code: 'SERVICE_NOT_FOUND' },
        { outcome: 'ok', error_code: null },
        { outcome: 'ok', error_code: null },
      ]);
    });
  });

  it('an id route answering 404 for every id: no evidence, nothing deleted, a warning; once back, equal to the truth', async () => {
    sim().configure({ missingOps: ['getStaff'] });
    try {
      const r = await sync(sim().url, '--full');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('no evidence they are gone');
      expect(await deletedEver()).toEqual({ marked: 0, audit: 0 });
    } finally {
      sim().configure({ missingOps: [] });
    }
    const r = await sync(sim().url, '--full');
    expect(r.code, r.stderr).toBe(0);
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
    expect(await deletedEver()).toEqual({ marked: 0, audit: 0 });
  });

  it('rows wrongly marked deleted come back on the next pass that sees them, incremental or --full, each restoration recorded', async () => {
    const marked: Record<string, string[]> = {};
    await withMirror(file, async (m) => {
      const pick = async (table: string, where = sql`1 = 1`) =>
        (
          (await rows(m, sql`SELECT id FROM ${sql.table(table)} WHERE ${where} ORDER BY id LIMIT 3`)) as {
            id: number | string;
          }[]
        ).map((r) => String(r.id));
      marked.tenant = await pick('tenant');
      marked.orderitem = await pick('orderitem', sql`${sql.ref('isNotModifiable')} = 0`);
      marked.staff = await pick('staff');
      const now = new Date().toISOString();
      for (const [table, ids] of Object.entries(marked)) {
        for (const id of ids) {
          const key = table === 'invoice' ? id : Number(id);
          await sql`UPDATE ${sql.table(table)} SET deleted_at = ${now} WHERE id = ${key}`.execute(m.db);
          await sql`INSERT INTO sync_deletion (run_id, stream, table_name, row_id, deleted_at)
                    VALUES (1, ${table}, ${table}, ${id}, ${now})`.execute(m.db);
        }
      }
    });
    const restored = (table: string) =>
      withMirror(file, async (m) =>
        (
          (await rows(
            m,
            sql`SELECT row_id FROM sync_deletion WHERE table_name = ${table} AND restored_at IS NOT NULL AND restored_run_id IS NOT NULL ORDER BY row_id`,
          )) as { row_id: string }[]
        ).map((r) => r.row_id),
      );
    // Incremental: tenants (a full pass every run) and open order items (re-polled) are seen again.
    const inc = await sync(sim().url);
    expect(inc.code, inc.stderr).toBe(0);
    expect(await restored('tenant')).toEqual([...(marked.tenant ?? [])].sort());
    expect(await restored('orderitem')).toEqual([...(marked.orderitem ?? [])].sort());
    // --full: staff (an id stream asks its deleted ids too).
    const full = await sync(sim().url, '--full');
    expect(full.code, full.stderr).toBe(0);
    expect(await restored('staff')).toEqual([...(marked.staff ?? [])].sort());
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
    expect((await deletedEver()).marked).toBe(0);
  });

  it('MASS_DELETE says what to check first and how to re-read; once the service shows the rows again, the next runs delete nothing', async () => {
    // 14 of the tenants vanish from the service's answers for a while (a token's rights cut back).
    const before = await deletedEver();
    expect(before.marked).toBe(0);
    const tenants = sim().tables.Tenant.all().slice(0, 14);
    for (const t of tenants) sim().tables.Tenant.delete(t.id);
    try {
      const r = await sync(sim().url);
      expect(r.code).toBe(1);
      const line = r.stderr.split('\n').find((l) => l.startsWith('ohs: MASS_DELETE: tenant: '));
      expect(line, r.stderr).toBeDefined();
      expect(line).toContain(
        `check first: the base URL (this run read ${sim().url}), a recent failed run (ohs status), the token's rights`,
      );
      expect(line).toContain('to re-read instead of deleting: ohs sync --full --restart-passes');
    } finally {
      for (const t of tenants) sim().tables.Tenant.insert(t);
    }
    // The failed run left no pass that turns this one into MASS_DELETE.
    const again = await sync(sim().url);
    expect(again.code, again.stderr).toBe(0);
    const safe = await sync(sim().url, '--full', '--restart-passes');
    expect(safe.code, safe.stderr).toBe(0);
    expect(await deletedEver()).toEqual(before);
    await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });

  it('no sync.idStart against ids starting at 240001, 6001, 9001: each id stream warns, finds them, and the mirror equals the truth', async () => {
    const bare = join(dirname(tmp()), `bare-${engine}.json`);
    writeFileSync(
      bare,
      JSON.stringify({
        logLevel: 'warn',
        api: { requestsPerSecond: 5000, retryBaseMs: 5, retryMaxMs: 200, timeoutMs: 5000 },
      }),
    );
    const fresh = await target();
    const r = await runOhs(['sync', '--db', fresh, '--config', bare], {
      env: cliEnv(sim()),
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    for (const stream of ['invoice', 'staff', 'applicant']) {
      const line = r.stderr.split('\n').find((l) => l.includes(`sync.idStart.${stream}`));
      expect(line, r.stderr).toBeDefined();
      expect(line).toContain('ohs probe');
    }
    expect(r.stderr).toContain('found one at 240001');
    await withMirror(fresh, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });
});
