import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { engineOf, type Mirror, openMirror, redactTarget } from '../../src/mirror/index.js';
import { count, values, withMirror, withTmpDir } from '../helpers/mirror.js';

const NOW = '2026-01-01T00:00:00.000Z';
const tenant = (id: number) => ({ id, name: `Tenant ${id}` });
const tenantIds = (m: Mirror) => values<number>(m, sql`SELECT id FROM tenant ORDER BY id`);

/**
 * The mirror seam (src/mirror/store.ts) on SQLite: write transactions are async but never
 * interleave, neither with each other nor with Kysely queries on the same connection, and a
 * write that throws leaves nothing behind.
 */
describe('Mirror.write on SQLite', () => {
  const tmp = withTmpDir('ohs-seam-');

  it('two writes at once run one after the other; a query issued meanwhile sees all of a write or none', async () => {
    await withMirror(tmp(), async (m) => {
      const events: string[] = [];
      const write = (name: string, ids: number[]) =>
        m.write(async (w) => {
          for (const id of ids) {
            events.push(`${name}${id}`);
            await w.upsert('Tenant', [tenant(id)], { now: NOW });
            await sleep(15); // other work is scheduled here, and must wait
          }
          return name;
        });
      const a = write('a', [1, 2, 3]);
      const b = write('b', [4, 5, 6]);
      // Issued while `a` is under way: it waits for the connection, so sees a's rows all at once.
      const seenDuringA = tenantIds(m);
      const counted = count(m, 'tenant');
      expect(await Promise.all([a, b])).toEqual(['a', 'b']);
      const seen = await seenDuringA;
      expect([
        [1, 2, 3],
        [1, 2, 3, 4, 5, 6],
      ]).toContainEqual(seen);
      expect([3, 6]).toContain(await counted);
      // No statement of one write ran between two of the other's.
      expect(events.join(' ')).toMatch(/^(a1 a2 a3 b4 b5 b6|b4 b5 b6 a1 a2 a3)$/);
      expect(await tenantIds(m)).toEqual([1, 2, 3, 4, 5, 6]);
    });
  });

  it('a write that throws is rolled back whole, and the writes around it are kept', async () => {
    await withMirror(tmp(), async (m) => {
      const before = m.write((w) => w.upsert('Tenant', [tenant(1)], { now: NOW }));
      let written: () => void = () => undefined;
      const halfway = new Promise<void>((resolve) => {
        written = resolve;
      });
      const failing = m.write(async (w) => {
        await w.upsert('Tenant', [tenant(2), tenant(3)], { now: NOW });
        await w.saveCheckpoint(
          { stream: 'tenant', part: 0, pass_id: 'p', mode: 'full', cursor: '3', upper: null, done: 0 },
          NOW,
        );
        written();
        await sleep(20);
        throw new Error('page failed');
      });
      const after = m.write((w) => w.upsert('Tenant', [tenant(4)], { now: NOW }));
      // A query issued while the failing write is under way waits for its end: it never sees 2 and 3.
      await halfway;
      const queued = tenantIds(m);
      await expect(failing).rejects.toThrow('page failed');
      await before;
      await after;
      expect(await queued).not.toContain(2);
      expect(await queued).not.toContain(3);
      expect(await tenantIds(m)).toEqual([1, 4]);
      expect(await count(m, 'sync_checkpoint')).toBe(0);
      // The connection is usable afterwards, in and out of transactions.
      await m.write((w) => w.upsert('Tenant', [tenant(5)], { now: NOW }));
      expect(await tenantIds(m)).toEqual([1, 4, 5]);
    });
  });

  it('the writer db is the transaction: its queries are rolled back with it', async () => {
    await withMirror(tmp(), async (m) => {
      await expect(
        m.write(async (w) => {
          await w.db
            .insertInto('mirror_meta')
            .values({ key: 'seam.test', value: 'x', updated_at: NOW })
            .execute();
          const inside = await sql<{
            value: string;
          }>`SELECT value FROM mirror_meta WHERE key = 'seam.test'`.execute(w.db);
          expect(inside.rows).toEqual([{ value: 'x' }]);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await count(m, 'mirror_meta', sql`key = 'seam.test'`)).toBe(0);
    });
  });

  it('the mirror used inside its own write (another write, mirror.db) is refused: it would wait for itself', async () => {
    await withMirror(tmp(), async (m) => {
      await expect(m.write(() => m.write(async () => 1))).rejects.toMatchObject({
        code: 'MIRROR_NESTED_WRITE',
      });
      await expect(m.write(() => tenantIds(m))).rejects.toMatchObject({ code: 'MIRROR_NESTED_WRITE' });
      await expect(m.write(() => m.seenIds('tenant', 1))).rejects.toMatchObject({
        code: 'MIRROR_NESTED_WRITE',
      });
      // Outside a write, and in the next one, all is as before.
      expect(await tenantIds(m)).toEqual([]);
      expect(await m.write(async () => 2)).toBe(2);
    });
  });
});

describe('openMirror picks the engine from the target', () => {
  it('a postgres:// URL is PostgreSQL; its password never shows', async () => {
    expect(engineOf('postgres://u@h/db')).toBe('postgres');
    expect(engineOf('postgresql://u@h/db')).toBe('postgres');
    expect(engineOf('./mirror.sqlite')).toBe('sqlite');
    expect(redactTarget('postgres://ohs:s3cret@db.example:5432/mirror')).not.toContain('s3cret');
    // No server there: the error names host and database, never the password.
    const err = await openMirror('postgres://ohs:s3cret@127.0.0.1:1/mirror').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'PG_UNREACHABLE' });
    expect(String((err as Error).message)).toContain('127.0.0.1:1 (database mirror)');
    expect(String((err as Error).message)).not.toContain('s3cret');
  });
});
