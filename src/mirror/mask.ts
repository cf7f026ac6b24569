import type { ObjectSpec } from '../schema/index.js';

/**
 * Masking of personal data (SSN, birth dates, licence and ID numbers) before a record reaches the
 * mirror, in its columns and in `raw` alike, so the file never holds them unless the
 * configuration opts in (`mirror.storeSensitive`). It fails closed:
 * - every value of a field the schema marks `sensitive: true` is masked whatever its JSON type
 *   (a number, an object or an array is turned into its JSON text first, then masked);
 * - a field the schema does not name, at any depth, is masked when its name looks like personal
 *   data (`looksSensitive`: ssn, socialSecurity, dob, birth, licence/license, passport, ...).
 * Dates keep their year; other values keep their last four letters or digits. `null` stays null.
 */
export function maskValue(field: string, value: unknown): unknown {
  if (value === null || value === undefined || value === '') return value;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/date|birth|dob/i.test(field)) {
    const year = /^(\d{4})/.exec(text)?.[1] ?? /(\d{4})$/.exec(text)?.[1];
    return year === undefined ? '****' : `${year}-**-**`;
  }
  const tail = text.replace(/[^A-Za-z0-9]/g, '').slice(-4);
  return `***${tail}`;
}

/**
 * Whether a field name looks like personal data: matched on its words (camelCase, `_`, `-`, `~`
 * and `.` split), so `ssn`, `o_ssn`, `socialSecurityNumber`, `dob`, `id_birthdate`, `birthDate`,
 * `driverLicenseNo`, `licenceNumber`, `passportNo`, `nationalId`, `taxId` match and `adobe` does not.
 */
export function looksSensitive(field: string): boolean {
  let known = verdicts.get(field);
  if (known === undefined) {
    known = judge(field);
    // Field names repeat in every record: judged once each (bounded: names, not values).
    if (verdicts.size < 10_000) verdicts.set(field, known);
  }
  return known;
}
const verdicts = new Map<string, boolean>();

function judge(field: string): boolean {
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
  const joined = words.join('');
  return (
    words.some((w) => SENSITIVE_WORDS.has(w) || /^(birth|licen[cs]e|passport)/.test(w)) ||
    /socialsecurity|dateofbirth|nationalid|taxid|birthdate/.test(joined)
  );
}
const SENSITIVE_WORDS = new Set(['ssn', 'ssns', 'sin', 'dob', 'tin', 'itin', 'nin']);

/**
 * A JSON value with every field whose name looks sensitive masked, at any depth: a copy where
 * something was masked, the value itself where nothing was.
 */
export function maskByName(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const masked = maskByName(value[i]);
      if (masked === value[i]) continue;
      items ??= [...value];
      items[i] = masked;
    }
    return items ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    const masked = looksSensitive(k) ? maskValue(k, v) : maskByName(v);
    if (masked === v) continue;
    out ??= { ...(value as Record<string, unknown>) };
    out[k] = masked;
  }
  return out ?? value;
}

interface MaskPlan {
  sensitive: Set<string>;
  named: Set<string>;
}
const plans = new WeakMap<ObjectSpec, MaskPlan>();

function planOf(spec: ObjectSpec): MaskPlan {
  let plan = plans.get(spec);
  if (plan === undefined) {
    plan = {
      sensitive: new Set(
        Object.entries(spec.fields)
          .filter(([, f]) => f.sensitive === true)
          .map(([name]) => name),
      ),
      named: new Set([...Object.keys(spec.fields), ...Object.keys(spec.arrays ?? {})]),
    };
    plans.set(spec, plan);
  }
  return plan;
}

/**
 * A copy of a record with every sensitive field of its spec (nested arrays too) masked, and
 * every field the spec does not name masked when its name looks sensitive (at any depth).
 */
export function maskRecord(spec: ObjectSpec, record: Record<string, unknown>): Record<string, unknown> {
  const { sensitive, named } = planOf(spec);
  let out: Record<string, unknown> | undefined;
  for (const field in record) {
    const value = record[field];
    let masked: unknown;
    if (sensitive.has(field)) masked = maskValue(field, value);
    else if (typeof value === 'object' && value !== null) {
      const child = spec.arrays?.[field];
      masked =
        child !== undefined && Array.isArray(value)
          ? maskItems(child, value)
          : !named.has(field) && looksSensitive(field)
            ? maskValue(field, value)
            : maskByName(value);
    } else if (!named.has(field) && looksSensitive(field)) masked = maskValue(field, value);
    else continue;
    if (masked === value) continue;
    out ??= { ...record };
    out[field] = masked;
  }
  return out ?? record;
}

/** The items of a nested array masked by their spec: the same array when nothing changed. */
function maskItems(child: ObjectSpec, items: unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const masked =
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? maskRecord(child, item as Record<string, unknown>)
        : maskByName(item);
    if (masked === item) continue;
    out ??= [...items];
    out[i] = masked;
  }
  return out ?? items;
}

/** Whether an ObjectSpec (or one nested in it) has sensitive fields at all. */
export function hasSensitive(spec: ObjectSpec): boolean {
  return (
    Object.values(spec.fields).some((f) => f.sensitive === true) ||
    Object.values(spec.arrays ?? {}).some((child) => hasSensitive(child))
  );
}
