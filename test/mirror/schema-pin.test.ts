import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Mirror, openMirror } from '../../src/mirror/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { rows } from '../helpers/mirror.js';

/**
 * The schema the migrations make, pinned per engine: every table, column, index, view and
 * constraint of a new mirror, as the database itself reports it, against
 * test/mirror/schema/ENGINE.txt. A change to a migration, a view or the schema module that
 * changes the mirror shows here as a diff; when it is meant, rewrite the files with
 * `OHS_UPDATE_SCHEMA=1 npx vitest run test/mirror/schema-pin.test.ts`.
 */
const queries = {
  sqlite: [
    sql`select type, name, tbl_name, sql from sqlite_master where name not like 'sqlite_autoindex%' order by type, name`,
  ],
  postgres: [
    sql`select table_name, column_name, ordinal_position, data_type, is_nullable, column_default
        from information_schema.columns where table_schema = current_schema() order by table_name, ordinal_position`,
    sql`select table_name, table_type from information_schema.tables where table_schema = current_schema() order by 1`,
    sql`select viewname, definition from pg_views where schemaname = current_schema() order by 1`,
    sql`select tablename, indexname, indexdef from pg_indexes where schemaname = current_schema() order by 1, 2`,
    sql`select conrelid::regclass::text as t, conname, pg_get_constraintdef(oid) as def from pg_constraint
        where connamespace = current_schema()::regnamespace order by 1, 2`,
  ],
} as const;

async function schemaOf(m: Mirror, engine: keyof typeof queries): Promise<string> {
  const lines: string[] = [];
  for (const q of queries[engine]) for (const r of await rows(m, q)) lines.push(JSON.stringify(r));
  for (const r of await rows<{ name: string }>(m, sql`select name from kysely_migration order by name`))
    lines.push(`migration ${r.name}`);
  return `${lines.join('\n')}\n`;
}

describe.each(engines)('%s', (engine) => {
  const target = withTargets(engine);
  it('a new mirror has exactly the pinned schema', async () => {
    const m = await openMirror(await target());
    try {
      const got = await schemaOf(m, engine);
      const file = join(import.meta.dirname, 'schema', `${engine}.txt`);
      if (process.env.OHS_UPDATE_SCHEMA === '1' || !existsSync(file)) writeFileSync(file, got);
      expect(got).toBe(readFileSync(file, 'utf8'));
    } finally {
      await m.close();
    }
  });
});
