/**
 * RateLimit headers, in the forms services send them:
 * - IETF draft (draft-ietf-httpapi-ratelimit-headers, -00 to -06): `RateLimit-Limit: 100`,
 *   `RateLimit-Remaining: 42`, `RateLimit-Reset: 7` (seconds), `RateLimit-Policy: 100;w=60`;
 * - the draft's combined forms: `RateLimit: limit=100, remaining=42, reset=7` (-01 to -06) and,
 *   from -07 on, `RateLimit: "default";r=42;t=7` with `RateLimit-Policy: "default";q=100;w=60`;
 * - the common `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (seconds, or an
 *   epoch time in seconds when larger than 10⁹, as GitHub sends it).
 */
export type HeaderValue = string | string[] | undefined;
export type Headers = Record<string, HeaderValue>;

export interface RateLimitInfo {
  /** Requests allowed per window (the quota). */
  limit?: number;
  /** Requests left in the current window. */
  remaining?: number;
  /** Milliseconds until the quota resets. */
  resetMs?: number;
  /** Length of the window, milliseconds, when the service states it (policy `w=`). */
  windowMs?: number;
}

const first = (v: HeaderValue): string | undefined => (Array.isArray(v) ? v.join(', ') : v);

function num(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v.trim().replace(/^"|"$/g, ''));
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** `a=1, b=2` or `"name";q=1;w=2`: the parameters of the first list member, by name. */
function params(v: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (v === undefined) return out;
  const member = v.includes(';') ? (v.split(',')[0] ?? '') : v;
  for (const part of member.split(/[;,]/)) {
    const eq = part.indexOf('=');
    if (eq > 0) out.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return out;
}

function resetMs(v: number | undefined, now: number): number | undefined {
  if (v === undefined) return undefined;
  // An epoch time in seconds (X-RateLimit-Reset as GitHub sends it), else a delay in seconds.
  return v > 1e9 ? Math.max(0, v * 1000 - now) : v * 1000;
}

/** Every header parseRateLimit reads. */
const RATE_HEADERS = [
  'ratelimit',
  'ratelimit-policy',
  'x-ratelimit-policy',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/** What the response's headers say of the rate limit; undefined when they say nothing. */
export function parseRateLimit(headers: Headers, now = Date.now()): RateLimitInfo | undefined {
  // Most services send none of them: one look per name, not the parse below, on every answer.
  if (!RATE_HEADERS.some((name) => headers[name] !== undefined)) return undefined;
  const h = (name: string) => first(headers[name]);
  const combined = params(h('ratelimit'));
  const policy = params(h('ratelimit-policy') ?? h('x-ratelimit-policy'));
  const policyQuota = num(h('ratelimit-policy')?.split(/[;,]/)[0]);
  const info: RateLimitInfo = {};
  const limit =
    num(h('ratelimit-limit')) ??
    num(combined.get('limit')) ??
    num(policy.get('q')) ??
    policyQuota ??
    num(h('x-ratelimit-limit'));
  const remaining =
    num(h('ratelimit-remaining')) ??
    num(combined.get('remaining')) ??
    num(combined.get('r')) ??
    num(h('x-ratelimit-remaining'));
  const reset = resetMs(
    num(h('ratelimit-reset')) ??
      num(combined.get('reset')) ??
      num(combined.get('t')) ??
      num(h('x-ratelimit-reset')),
    now,
  );
  const window = num(policy.get('w'));
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (reset !== undefined) info.resetMs = reset;
  if (window !== undefined && window > 0) info.windowMs = window * 1000;
  return Object.keys(info).length === 0 ? undefined : info;
}

/**
 * The steady rate (requests per second) the headers allow: the quota over the window when the
 * policy states the window; else the quota over the longest reset seen (`longestResetMs`, the
 * window's length as far as the client can tell; at least a second). Undefined without a quota.
 */
export function plannedRate(info: RateLimitInfo, longestResetMs: number): number | undefined {
  if (info.limit === undefined || info.limit <= 0) return undefined;
  const windowMs = info.windowMs ?? Math.max(1000, longestResetMs, info.resetMs ?? 0);
  return (info.limit * 1000) / windowMs;
}
