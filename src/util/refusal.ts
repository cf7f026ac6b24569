/**
 * What is kept of a service's error answer: its status, its error code when it is shaped as one,
 * and the names of the request's fields its text mentions. Never the text itself: a service may
 * quote what it refused (a birth date, an SSN, a name) in any spelling, so the text is withheld
 * from every line printed, logged or stored; `ohs apply --show-service-text` shows it (masked) on
 * a terminal only. An allow-list: each part kept is shaped so that it cannot carry a value.
 */
export interface Refusal {
  status: number;
  /** The service's error code (`INVALID_REQUEST`, `E_VALIDATION`), when shaped as a code. */
  code?: string;
  /** The request's field names the text mentions, in the request's order. */
  fields: string[];
}

/**
 * A code: a letter, then letters, digits, `_`, `.`, `:` or `-`, at most 64 characters and at
 * most 3 digits (a code such as `E404` is one; an id or a licence number such as `D1234567` is not).
 */
function codeShaped(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    /^[A-Za-z][A-Za-z0-9_.:-]{0,63}$/.test(value) &&
    value.replace(/\D/g, '').length <= 3
  );
}

/** The code of an error body: `{"error":{"code"}}`, `{"code"}`, or `{"error":"CODE"}`. */
function codeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { code?: unknown; error?: unknown };
  const inner =
    typeof b.error === 'object' && b.error !== null ? (b.error as { code?: unknown }).code : b.error;
  for (const c of [inner, b.code]) if (codeShaped(c)) return c;
  return undefined;
}

/**
 * The query keys whose values are field names (a filter's field, a sort's, `return`'s): named
 * like the body's keys when the text mentions them (`unknown field 'nope'`).
 */
const NAMING_KEYS = new Set(['columnField', 'sortBy', 'return']);

/** The field names of a request body, at any depth, in order: its keys and the names its query keys hold. */
function namesOf(value: unknown, into: Set<string>, key = ''): Set<string> {
  if (into.size >= 200) return into;
  if (typeof value === 'string') {
    if (NAMING_KEYS.has(key) && /^[A-Za-z_][A-Za-z0-9_.~]*$/.test(value)) into.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) namesOf(v, into, key);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (/^[A-Za-z_][A-Za-z0-9_.~]*$/.test(k)) into.add(k);
      namesOf(v, into, k);
    }
  }
  return into;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** What is kept of the answer (`parsed`: its JSON body, when it had one) to a request carrying `body`. */
export function refusalOf(status: number, text: string, parsed: unknown, body: unknown): Refusal {
  const code = codeOf(parsed);
  const fields = [...namesOf(body, new Set())].filter((name) =>
    new RegExp(`(?<![A-Za-z0-9_])${escaped(name)}(?![A-Za-z0-9_])`, 'i').test(text),
  );
  return { status, ...(code === undefined ? {} : { code }), fields };
}

/** One line of it: `status 400, service code INVALID_REQUEST, names ssn, dateOfBirth`. */
export function describeRefusal(r: Refusal): string {
  const parts = [`status ${r.status}`];
  if (r.code !== undefined) parts.push(`service code ${r.code}`);
  parts.push(r.fields.length === 0 ? 'names no field of the request' : `names ${r.fields.join(', ')}`);
  return `${parts.join(', ')}; its text withheld`;
}
