import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { migrate } from '../../src/mirror/migrations/index.js';
import { connectPostgres, createPool, pgError } from '../../src/mirror/postgres/connect.js';
import { postgresDdl } from '../../src/mirror/postgres/ddl.js';
import { PgMirrorError } from '../../src/mirror/postgres/errors.js';
import { takeAdvisoryLock } from '../../src/mirror/postgres/locks.js';
import { isPostgresUrl, pgTarget, redactUrl } from '../../src/mirror/postgres/url.js';
import { LockedError } from '../../src/sync/types.js';
import { engines, pgAdminUrl, withTargets } from '../helpers/engines.js';

/**
 * Connecting to a PostgreSQL mirror: errors that name host and database with a stable code and
 * never the password; connection strings shown without it; named locks held across connections
 * and processes, released when the holder dies.
 */
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
const SECRET = 'pw-Zq81x-secret';
const withPassword = (url: string) => url.replace('postgres://ohs@', `postgres://ohs:${SECRET}@`);

beforeAll(async () => {});

async function closedPort(): Promise<number> {
  return await new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr !== null ? addr.port : 1));
    });
  });
}

async function failure(p: Promise<unknown>): Promise<PgMirrorError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PgMirrorError);
  const e = err as PgMirrorError;
  expect(e.message).not.toContain(SECRET);
  return e;
}

describe.skipIf(noPg)('connection strings', () => {
  test('are told from file paths and shown without their password', () => {
    expect(isPostgresUrl('postgres://u@h/db')).toBe(true);
    expect(isPostgresUrl('postgresql://u@h/db')).toBe(true);
    expect(isPostgresUrl('./mirror.db')).toBe(false);
    expect(redactUrl(`postgres://ohs:${SECRET}@db.example:5433/mirror?sslmode=require`)).toBe(
      'postgres://ohs@db.example:5433/mirror?sslmode=require',
    );
    expect(redactUrl(`postgres://ohs@db.example/mirror?password=${SECRET}&sslmode=require`)).toBe(
      'postgres://ohs@db.example/mirror?sslmode=require',
    );
    expect(redactUrl(`postgres://ohs:${SECRET}@[::1`)).not.toContain(SECRET);
    expect(pgTarget('postgres://ohs@db.example:5433/mirror')).toMatchObject({
      host: 'db.example',
      port: 5433,
      database: 'mirror',
      user: 'ohs',
    });
  });
});

describe.skipIf(noPg)('connection failures', () => {
  test('no server at host:port: PG_UNREACHABLE naming host, port and database', async () => {
    const port = await closedPort();
    const e = await failure(connectPostgres(`postgres://ohs:${SECRET}@127.0.0.1:${port}/mirror`));
    expect(e.code).toBe('PG_UNREACHABLE');
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(e.message).toContain('mirror');
  });

  test('no such database: PG_NO_DATABASE', async () => {
    const url = withPassword(await pgAdminUrl()).replace(/\/postgres$/, '/no_such_db');
    const e = await failure(connectPostgres(url));
    expect(e.code).toBe('PG_NO_DATABASE');
    expect(e.message).toContain('no_such_db');
    expect(e.message).toContain(`127.0.0.1:${new URL(await pgAdminUrl()).port}`);
  });

  test('an unknown role: PG_AUTH_FAILED', async () => {
    const url = (await pgAdminUrl()).replace('postgres://ohs@', `postgres://nobody:${SECRET}@`);
    const e = await failure(connectPostgres(url));
    expect(e.code).toBe('PG_AUTH_FAILED');
    expect(e.message).toContain('nobody');
  });

  test('a role without the right to create the tables: PG_PERMISSION_DENIED', async () => {
    const url = await newDatabase();
    const admin = await connectPostgres(url);
    await admin.pool.query('CREATE ROLE weak LOGIN');
    await admin.db.destroy();
    const weakUrl = url.replace('postgres://ohs@', `postgres://weak:${SECRET}@`);
    const weak = await connectPostgres(weakUrl);
    try {
      const e = await failure(
        migrate(weak.db, postgresDdl).catch((err: unknown) =>
          Promise.reject(pgError(err, weakUrl, 'create the mirror tables')),
        ),
      );
      expect(e.code).toBe('PG_PERMISSION_DENIED');
      expect(e.message).toContain('role weak');
      expect(e.message).toContain('denied');
    } finally {
      await weak.db.destroy();
    }
  });
});

describe.skipIf(noPg)('locks across connections and processes', () => {
  let url: string;
  let a: pg.Pool;
  let b: pg.Pool;
  beforeAll(async () => {
    url = await newDatabase();
    const m = await connectPostgres(url);
    await migrate(m.db, postgresDdl);
    await m.db.destroy();
    a = createPool(url);
    b = createPool(url);
  });
  afterAll(async () => {
    await a.end();
    await b.end();
  });
  const locked = (m: string) => new LockedError(m);

  test('a lock held by one is refused to another, naming the holder, until released', async () => {
    const held = await takeAdvisoryLock(a, 'sync', 'the mirror', locked);
    const err = await takeAdvisoryLock(b, 'sync', 'the mirror', locked).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockedError);
    expect((err as LockedError).code).toBe('LOCKED');
    expect((err as LockedError).message).toMatch(
      new RegExp(
        `^another sync is running on the mirror \\(pid ${process.pid} on .+, since \\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\\); wait for it to finish$`,
      ),
    );
    // The holder is noted in sync_lock too (what ohs status reads), until released.
    expect((await b.query('SELECT name, pid FROM sync_lock')).rows).toEqual([
      { name: 'sync', pid: process.pid },
    ]);
    // Another name is another lock.
    const apply = await takeAdvisoryLock(b, 'apply', 'the mirror', locked);
    await apply.release();
    await held.release();
    expect((await b.query('SELECT name FROM sync_lock')).rows).toEqual([]);
    const next = await takeAdvisoryLock(b, 'sync', 'the mirror', locked);
    await next.release();
  });

  test('a lock taken and released again and again on one connection leaves no listener on it', async () => {
    const one = createPool(url, { max: 1 });
    try {
      for (let i = 0; i < 12; i++)
        await (await takeAdvisoryLock(one, 'sync', 'the mirror', locked)).release();
      const client = await one.connect();
      // pg's own listener aside (it has none on a pooled client), the locks left nothing.
      expect(client.listenerCount('error')).toBe(0);
      client.release();
    } finally {
      await one.end();
    }
  });

  test('a lock whose process is killed (SIGKILL) is free at once', async () => {
    const lockModule = fileURLToPath(new URL('../../dist/src/mirror/postgres/locks.js', import.meta.url));
    const connectModule = fileURLToPath(
      new URL('../../dist/src/mirror/postgres/connect.js', import.meta.url),
    );
    const script = `
      const { takeAdvisoryLock } = await import(${JSON.stringify(lockModule)});
      const { createPool } = await import(${JSON.stringify(connectModule)});
      await takeAdvisoryLock(createPool(${JSON.stringify(url)}), 'sync', 'm', (m) => new Error(m));
      process.stdout.write('held\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => d.toString().includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const err = await takeAdvisoryLock(b, 'sync', 'the mirror', locked).catch((e: unknown) => e);
    expect((err as Error).message).toContain(`pid ${child.pid} on`);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // The server sees the connection close; poll briefly for the backend to end.
    let taken: Awaited<ReturnType<typeof takeAdvisoryLock>> | undefined;
    for (let i = 0; i < 100 && taken === undefined; i++) {
      taken = await takeAdvisoryLock(b, 'sync', 'the mirror', locked).catch(() => undefined);
      if (taken === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    expect(taken).toBeDefined();
    await taken?.release();
  });
});
