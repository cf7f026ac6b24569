import { hostname } from 'node:os';
import type pg from 'pg';
import { HEARTBEAT_MS } from '../store.js';
import { applicationName } from './connect.js';

/**
 * Named locks of a PostgreSQL mirror (one sync, one apply at a time, across hosts): a
 * session-level advisory lock held on a connection of its own until released. PostgreSQL
 * releases it when that connection ends, however its process died (kill -9, power loss, a host
 * gone: the server notices the dead TCP connection), so no lock is ever stale. The key is the
 * mirror's schema and the lock's name, so two mirrors in one database do not block each other.
 * While held, the connection's application_name says who holds it (`ohs <name> <pid>@<host>`),
 * which is what the refusal of the next one shows.
 */
export interface HeldLock {
  release(): Promise<void>;
}

/**
 * The lock's key: `schema`, the mirror's schema and the lock's name (one sync, one apply per
 * mirror); `database`, the name alone, shared by every mirror of the database whatever its schema
 * (the write-back's lock of a service, `apply <base URL>`).
 */
export type LockScope = 'schema' | 'database';
const keyOf = {
  schema: { cls: `hashtext('ohs')`, obj: `hashtext(current_schema() || '.' || $1)` },
  database: { cls: `hashtext('ohs.database')`, obj: 'hashtext($1)' },
} as const;

/** The holder as the refusal names it: `pid 123 on host, since ISO`, or what is known. */
async function holderOf(pool: pg.Pool, name: string, scope: LockScope): Promise<string> {
  const { cls, obj } = keyOf[scope];
  try {
    const r = await pool.query<{ application_name: string; since: string | null; addr: string | null }>(
      `SELECT a.application_name, to_char(a.state_change AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since,
              host(a.client_addr) AS addr
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::int = ${cls} AND l.objid::int = ${obj} AND l.objsubid = 2
       LIMIT 1`,
      [name],
    );
    const row = r.rows[0];
    if (row === undefined) return 'holder not visible to this role';
    const m = /^ohs \S+ (\d+)@(.+)$/.exec(row.application_name);
    const who =
      m === null
        ? `${row.application_name || 'a session'}${row.addr ? ` from ${row.addr}` : ''}`
        : `pid ${m[1]} on ${m[2]}`;
    return row.since === null ? who : `${who}, since ${row.since}`;
  } catch {
    return 'holder unknown';
  }
}

/**
 * Takes the lock or throws what `locked(message)` makes (the engine-neutral LockedError), with
 * the message the SQLite engine gives: `another sync is running on LOCATION (pid P on H, since
 * T); wait for it to finish`.
 */
export async function takeAdvisoryLock(
  pool: pg.Pool,
  name: string,
  location: string,
  locked: (message: string) => Error,
  scope: LockScope = 'schema',
  /** The refusal's words around its holder; default `another NAME is running on LOCATION (...)`. */
  refusal: (holder: string) => string = (holder) =>
    `another ${name} is running on ${location} (${holder}); wait for it to finish`,
): Promise<HeldLock> {
  const key = `${keyOf[scope].cls}, ${keyOf[scope].obj}`;
  const client = await pool.connect();
  let ok = false;
  try {
    await client.query(`SELECT set_config('application_name', $1, false)`, [
      // The name's first word (a service's lock: `apply <URL>`): what holderOf reads back.
      `ohs ${name.split(' ')[0]} ${process.pid}@${hostname()}`.slice(0, 63),
    ]);
    const r = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${key}) AS ok`, [name]);
    ok = r.rows[0]?.ok === true;
  } catch (err) {
    client.release(true);
    throw err;
  }
  if (!ok) {
    client.release(true);
    throw locked(refusal(await holderOf(pool, name, scope)));
  }
  // A connection that breaks while held has lost the lock with it: nothing more to release.
  // Taken off again on release: the pool hands the same connection to the next lock, and a
  // listener left per lock piles up on it (a cron worker takes one a run).
  let broken = false;
  const onError = () => {
    broken = true;
  };
  client.on('error', onError);
  // The holder also in sync_lock, with a heartbeat, as on SQLite: what `ohs status` reads to
  // tell a run still going from one whose process died. Informational only: the advisory lock
  // is what excludes.
  const host = hostname();
  const at = new Date().toISOString();
  const noted = await client
    .query(
      `INSERT INTO sync_lock (name, pid, host, acquired_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)
       ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, host = excluded.host,
         acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`,
      [name, process.pid, host, at],
    )
    .then(
      () => true,
      () => false, // a role that may not write sync_lock still holds the lock
    );
  const timer = noted
    ? setInterval(() => {
        client
          .query('UPDATE sync_lock SET heartbeat_at = $1 WHERE name = $2 AND pid = $3 AND host = $4', [
            new Date().toISOString(),
            name,
            process.pid,
            host,
          ])
          .catch(() => undefined);
      }, HEARTBEAT_MS)
    : undefined;
  timer?.unref();
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      if (timer !== undefined) clearInterval(timer);
      client.off('error', onError);
      if (broken) {
        client.release(true);
        return;
      }
      try {
        if (noted)
          await client.query('DELETE FROM sync_lock WHERE name = $1 AND pid = $2 AND host = $3', [
            name,
            process.pid,
            host,
          ]);
        await client.query(`SELECT pg_advisory_unlock(${key}), set_config('application_name', $2, false)`, [
          name,
          applicationName(),
        ]);
        client.release();
      } catch {
        client.release(true); // destroyed: the server drops the lock with the connection
      }
    },
  };
}
