/**
 * Narrowing of mirror values. Resource tables are typed loosely (their columns are derived from
 * the schema module), so a report reads `unknown` and narrows it here, once.
 */

/** A finite number, or a numeric string; anything else is null. */
export function asNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** A whole number (an id), or null. */
export function asInteger(value: unknown): number | null {
  const n = asNumber(value);
  return n !== null && Number.isInteger(n) ? n : null;
}

/**
 * A string as stored (never trimmed or altered: names flow through untouched, the renderer
 * neutralises formula-like cells); numbers are written out; empty strings and the rest are null.
 */
export function asText(value: unknown): string | null {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return null;
}

/** SQLite booleans are 0/1, PostgreSQL ones true/false. */
export function asBoolean(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === '1' || value === 'true';
}

/**
 * Dollars (a REAL of the service) to integer cents, rounding half away from zero so that
 * 0.005 is a cent and -0.005 minus one; sums of cents are exact.
 */
export function toCents(value: unknown): number | null {
  const n = asNumber(value);
  if (n === null) return null;
  return Math.sign(n) * Math.round(Math.abs(n) * 100 + 1e-9);
}

/** Lists at most `limit` items, then how many more there are. */
export function listSome(items: readonly string[], limit = 20): string {
  if (items.length <= limit) return items.join(', ');
  return `${items.slice(0, limit).join(', ')} and ${items.length - limit} more`;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

/** Org order of every report: by name (case-insensitive, unnamed last), then by id. */
export function compareOrgs(
  a: { org: string | null; orgId: number | null },
  b: { org: string | null; orgId: number | null },
): number {
  if (a.org !== b.org) {
    if (a.org === null) return 1;
    if (b.org === null) return -1;
    const byName = collator.compare(a.org, b.org);
    if (byName !== 0) return byName;
  }
  return (a.orgId ?? Number.MAX_SAFE_INTEGER) - (b.orgId ?? Number.MAX_SAFE_INTEGER);
}
