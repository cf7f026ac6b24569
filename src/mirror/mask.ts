import type { ObjectSpec } from '../schema/index.js';

/**
 * Masking of sensitive fields (SSN, birth dates, licence and ID numbers: `sensitive: true` in
 * the schema module) before a record reaches the mirror, in its columns and in `raw` alike, so
 * the file never holds them unless the configuration opts in (`mirror.storeSensitive`).
 * Dates keep their year; other values keep their last four characters.
 */
export function maskValue(field: string, value: unknown): unknown {
  if (typeof value !== 'string' || value === '') return value;
  if (/date|birth/i.test(field)) {
    const year = /^(\d{4})/.exec(value)?.[1] ?? /(\d{4})$/.exec(value)?.[1];
    return year === undefined ? '****' : `${year}-**-**`;
  }
  const tail = value.replace(/[^A-Za-z0-9]/g, '').slice(-4);
  return `***${tail}`;
}

const sensitiveFields = new WeakMap<ObjectSpec, string[]>();

/** A copy of a record with every sensitive field of its spec (nested arrays too) masked. */
export function maskRecord(spec: ObjectSpec, record: Record<string, unknown>): Record<string, unknown> {
  let fields = sensitiveFields.get(spec);
  if (fields === undefined) {
    fields = Object.entries(spec.fields)
      .filter(([, f]) => f.sensitive === true)
      .map(([name]) => name);
    sensitiveFields.set(spec, fields);
  }
  let out: Record<string, unknown> | undefined;
  for (const field of fields) {
    if (!(field in record)) continue;
    out ??= { ...record };
    out[field] = maskValue(field, record[field]);
  }
  for (const [field, child] of Object.entries(spec.arrays ?? {})) {
    const items = record[field];
    if (!Array.isArray(items)) continue;
    out ??= { ...record };
    out[field] = items.map((item: unknown) =>
      typeof item === 'object' && item !== null ? maskRecord(child, item as Record<string, unknown>) : item,
    );
  }
  return out ?? record;
}

/** Whether an ObjectSpec (or one nested in it) has sensitive fields at all. */
export function hasSensitive(spec: ObjectSpec): boolean {
  return (
    Object.values(spec.fields).some((f) => f.sensitive === true) ||
    Object.values(spec.arrays ?? {}).some((child) => hasSensitive(child))
  );
}
