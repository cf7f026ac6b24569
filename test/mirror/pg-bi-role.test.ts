import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { migrate } from '../../src/mirror/migrations/index.js';
import { connectPostgres, createPool } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import { engines, withTargets } from '../helpers/engines.js';

/**
 * The read-only BI role of docs/postgres.md, run as written there: its members read the views
 * and the data dictionary, and neither `raw`, the outbox nor the run records.
 */
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
beforeAll(async () => {});

function docSql(): string {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/postgres.md', import.meta.url)), 'utf8');
  const block = /<!-- bi-role-sql -->\s*```sql\n([\s\S]*?)```\s*<!-- \/bi-role-sql -->/.exec(doc);
  if (block?.[1] === undefined) throw new Error('docs/postgres.md has no bi-role-sql block');
  return block[1];
}

test.skipIf(noPg)(
  'a BI login reads the views and the dictionary, not raw, the outbox or run records',
  async () => {
    const url = await newDatabase();
    const owner = await connectPostgres(url);
    await migrate(owner.db, postgresDdl);
    await owner.pool.query(
      `INSERT INTO orderitem (id, "OrgId", c_org, "isNotModifiable", raw, synced_at) VALUES (1, 5, 'Acme', 0, '{"id":1}', 'now')`,
    );
    await owner.pool.query(
      `INSERT INTO h_orderitem (id, "OrgId", c_org, "isNotModifiable", raw, valid_from) VALUES (1, 5, 'Acme', 0, '{"id":1}', 'now')`,
    );
    await owner.pool.query(docSql());
    await owner.db.destroy();

    const bi = createPool(url.replace('postgres://ohs@', 'postgres://metabase:x@'));
    try {
      const ok = await bi.query('SELECT order_item_id, org FROM v_orderitem');
      expect(ok.rows).toEqual([{ order_item_id: 1, org: 'Acme' }]);
      const dict = await bi.query(
        `SELECT count(*)::int AS n FROM data_dictionary WHERE table_name = 'orderitem'`,
      );
      expect(dict.rows[0]?.n).toBeGreaterThan(0);
      // The history views: every version, typed columns only.
      const versions = await bi.query(
        'SELECT id, "OrgId", valid_from, valid_to, is_current FROM orderitem_history',
      );
      expect(versions.rows).toEqual([{ id: 1, OrgId: 5, valid_from: 'now', valid_to: null, is_current: 1 }]);
      const views = await bi.query(
        `SELECT count(*)::int AS n FROM data_dictionary WHERE table_name LIKE '%\\_history' AND column_name = 'valid_from'`,
      );
      expect(views.rows[0]?.n).toBe(12);
      for (const denied of [
        'SELECT raw FROM orderitem',
        'SELECT * FROM outbox',
        'SELECT * FROM sync_run',
        'SELECT * FROM sync_pass_stage',
        'SELECT raw FROM applicant',
        'SELECT raw FROM h_orderitem',
        'CREATE TABLE mine (x int)',
      ]) {
        const err = await bi.query(denied).catch((e: unknown) => e);
        expect((err as { code?: string }).code, denied).toBe('42501');
      }
    } finally {
      await bi.end();
    }
  },
);
