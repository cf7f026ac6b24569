import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createTarget, engines, enginesFromEnv, withTargets } from './helpers/engines.js';

/**
 * The engine-loop harness itself (test/helpers/engines.ts): the engines under test, and per
 * engine fresh, empty, isolated mirror targets; for PostgreSQL, on the one server the run's
 * global setup started. Each mirror test loops over `engines` the same way.
 */
const psql = (url: string, sql: string): string =>
  execFileSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], { encoding: 'utf8' }).trim();

describe('OHS_TEST_ENGINES', () => {
  it('names the engines under test: all by default, one or both when set', () => {
    expect(enginesFromEnv(undefined)).toEqual(['sqlite', 'postgres']);
    expect(enginesFromEnv('')).toEqual(['sqlite', 'postgres']);
    expect(enginesFromEnv('sqlite')).toEqual(['sqlite']);
    expect(enginesFromEnv(' Postgres ')).toEqual(['postgres']);
    expect(enginesFromEnv('postgres,sqlite')).toEqual(['sqlite', 'postgres']);
    expect(() => enginesFromEnv('sqlite,mysql')).toThrow(/unknown engine 'mysql'/);
    expect(engines).toEqual(enginesFromEnv(process.env.OHS_TEST_ENGINES));
  });

  it('starts a PostgreSQL server for the run exactly when PostgreSQL is under test', () => {
    expect(inject('ohsPg') !== null).toBe(engines.includes('postgres'));
  });
});

describe.each(engines)('%s targets', (engine) => {
  const target = withTargets(engine);

  it('are new and distinct on every call', async () => {
    const a = await target();
    const b = await target();
    expect(a).not.toBe(b);
    if (engine === 'sqlite') {
      expect(a).toMatch(/\.sqlite$/);
      expect(existsSync(a)).toBe(false); // a path for the mirror to create
    } else {
      expect(a).toMatch(/^postgres:\/\/ohs@127\.0\.0\.1:\d+\/t_\w+$/);
    }
  });

  if (engine === 'postgres') {
    it('are empty databases that serve, isolated from each other', async () => {
      const a = await target();
      const b = await target();
      expect(psql(a, 'select 1+1')).toBe('2');
      expect(psql(a, "select count(*) from information_schema.tables where table_schema = 'public'")).toBe(
        '0',
      );
      psql(a, 'create table probe (x int); insert into probe values (42)');
      expect(psql(a, 'select x from probe')).toBe('42');
      // The other database does not see it.
      expect(psql(b, "select count(*) from information_schema.tables where table_schema = 'public'")).toBe(
        '0',
      );
      expect(psql(b, 'select current_database()')).toBe(new URL(b).pathname.slice(1));
    });
  }

  if (engine === 'sqlite') {
    it('are removed with their folder', async () => {
      const t = await createTarget(engine);
      writeFileSync(t.target, 'a mirror');
      await t.remove();
      expect(existsSync(t.target)).toBe(false);
      expect(existsSync(dirname(t.target))).toBe(false);
    });
  }

  if (engine === 'postgres') {
    it('are dropped when removed', async () => {
      const t = await createTarget(engine);
      const name = new URL(t.target).pathname.slice(1);
      const admin = new URL(t.target);
      admin.pathname = '/postgres';
      expect(psql(admin.toString(), `select count(*) from pg_database where datname = '${name}'`)).toBe('1');
      await t.remove();
      expect(psql(admin.toString(), `select count(*) from pg_database where datname = '${name}'`)).toBe('0');
    });
  }
});

/** Whether a target still exists: its SQLite folder, or its PostgreSQL database. */
function exists(target: string): boolean {
  if (!target.startsWith('postgres://')) return existsSync(dirname(target));
  const admin = new URL(target);
  admin.pathname = '/postgres';
  const name = new URL(target).pathname.slice(1);
  return psql(admin.toString(), `select count(*) from pg_database where datname = '${name}'`) === '1';
}

describe.each(engines)('%s targets of a block that has finished', (engine) => {
  const made: string[] = [];
  describe('the block', () => {
    const target = withTargets(engine);
    it('makes targets', async () => {
      made.push(await target(), await target());
      if (engine === 'sqlite') for (const t of made) writeFileSync(t, 'a mirror');
      expect(made.map(exists)).toEqual([true, true]);
    });
  });

  it('are removed after it', () => {
    expect(made).toHaveLength(2);
    expect(made.map(exists)).toEqual([false, false]);
  });
});
