/**
 * Connection strings of a PostgreSQL mirror (`postgres://user:password@host:port/db?...`): how
 * to tell one from a file path, what to show of it (never the password), and where it points
 * (for error messages naming host and database).
 */
const schemes = ['postgres:', 'postgresql:'];

/** True when `target` (a --db value, OHS_DB, config `db`) names a PostgreSQL mirror. */
export function isPostgresUrl(target: string): boolean {
  return /^postgres(ql)?:\/\//i.test(target.trim());
}

function parse(url: string): URL | undefined {
  try {
    const u = new URL(url.trim());
    return schemes.includes(u.protocol.toLowerCase()) ? u : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The connection string as it may be shown (status, logs, errors): the password (in the
 * authority or as a `password=` parameter) removed. Anything that does not parse is shown as
 * `postgres://(unparsable)`: its text might hold a password in a place we cannot see.
 */
export function redactUrl(url: string): string {
  const u = parse(url);
  if (u === undefined) return 'postgres://(unparsable connection string)';
  u.password = '';
  for (const key of [...u.searchParams.keys()])
    if (key.toLowerCase() === 'password') u.searchParams.delete(key);
  return u.toString();
}

export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string | undefined;
  /** Where it points, for messages: `host:port/database`. */
  where: string;
}

/** Host, port, database and user of a connection string (libpq's defaults where absent). */
export function pgTarget(url: string): PgTarget {
  const u = parse(url);
  const param = (k: string) => u?.searchParams.get(k) ?? undefined;
  const host = decodeURIComponent(u?.hostname ?? '') || param('host') || process.env.PGHOST || 'localhost';
  const port = Number(u?.port || param('port') || process.env.PGPORT || 5432);
  const user = decodeURIComponent(u?.username ?? '') || param('user') || process.env.PGUSER || undefined;
  const database =
    decodeURIComponent((u?.pathname ?? '').replace(/^\//, '')) ||
    param('dbname') ||
    process.env.PGDATABASE ||
    user ||
    'postgres';
  return { host, port, database, user, where: `${host}:${port}/${database}` };
}

/** The password a connection string carries, if any (to scrub it from a driver's messages). */
export function passwordOf(url: string): string | undefined {
  const u = parse(url);
  if (u === undefined) return undefined;
  const fromParam = [...u.searchParams.entries()].find(([k]) => k.toLowerCase() === 'password')?.[1];
  const p = u.password === '' ? fromParam : decodeURIComponent(u.password);
  return p === undefined || p === '' ? undefined : p;
}
