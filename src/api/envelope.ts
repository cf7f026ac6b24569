/**
 * List responses: the interface does not say whether a list is a bare array or an object that
 * wraps it (and perhaps a total). We accept a bare array, or an object holding one array of
 * records under any key, with a total under any common key. A probe (`ohs probe`) can pin the
 * keys; then only those are read.
 */
export const totalKeys = [
  'total',
  'totalCount',
  'total_count',
  'count',
  'rowCount',
  'totalRows',
  'totalItems',
  'totalRecords',
];
export const preferredListKeys = ['data', 'items', 'results', 'records', 'rows', 'list', 'value'];

export interface ListEnvelope {
  /** Key of the records in an object envelope; undefined: find it. */
  key?: string | undefined;
  /** Key of the total; undefined: look for a common one. */
  totalKey?: string | undefined;
}

export interface Unwrapped {
  records: Record<string, unknown>[];
  total: number | undefined;
  /** How the list came: 'array', or the key that held it. */
  shape: string;
  totalKey: string | undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asRecords(list: unknown[]): Record<string, unknown>[] | undefined {
  return list.every(isRecord) ? (list as Record<string, unknown>[]) : undefined;
}

/**
 * `{"rows": [], "error": ...}` is a failure dressed as an empty page: read as a page, it would
 * say every record is gone. Says so, or undefined when the object carries no error member.
 */
export function errorMember(body: Record<string, unknown>): string | undefined {
  const error = body.error ?? body.errors;
  if (error === undefined || error === null || error === false) return undefined;
  if (Array.isArray(error) && error.length === 0) return undefined;
  return `the service answered with an error member (${JSON.stringify(error).slice(0, 200)})`;
}

/** Returns the records and total of a list response, or a string saying why it is not one. */
export function unwrapList(body: unknown, pinned: ListEnvelope = {}): Unwrapped | string {
  if (Array.isArray(body)) {
    const records = asRecords(body);
    return records === undefined
      ? 'list holds something other than records'
      : { records, total: undefined, shape: 'array', totalKey: undefined };
  }
  if (!isRecord(body)) return 'expected a JSON array or object';
  const error = errorMember(body);
  if (error !== undefined) return error;
  let key = pinned.key;
  if (key === undefined || !Array.isArray(body[key])) {
    const arrays = Object.keys(body).filter((k) => Array.isArray(body[k]));
    key = arrays.length === 1 ? arrays[0] : arrays.find((k) => preferredListKeys.includes(k));
  }
  if (key === undefined) return `no array of records among keys ${Object.keys(body).join(', ') || '(none)'}`;
  const records = asRecords(body[key] as unknown[]);
  if (records === undefined) return `'${key}' holds something other than records`;
  const candidates = pinned.totalKey !== undefined ? [pinned.totalKey, ...totalKeys] : totalKeys;
  const totalKey = candidates.find((k) => typeof body[k] === 'number' && Number.isFinite(body[k]));
  return {
    records,
    total: totalKey === undefined ? undefined : (body[totalKey] as number),
    shape: key,
    totalKey,
  };
}
