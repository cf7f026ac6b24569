import { type ObjectSpec, records, requests } from '../schema/index.js';
import { looksSensitive, maskValue } from '../util/mask.js';

/**
 * Personal data in the outbox: every field the schema marks sensitive (SSN, birth dates, licence
 * and ID numbers), in requests and in records, nested arrays included, by name. The outbox keeps
 * a body whole only while it may still be sent (queued, sending, unknown, failed); answers are
 * masked before they are stored, and nothing printed shows such a value.
 */
function collect(spec: ObjectSpec, into: Set<string>): void {
  for (const [name, f] of Object.entries(spec.fields)) if (f.sensitive === true) into.add(name);
  for (const child of Object.values(spec.arrays ?? {})) collect(child, into);
}

const sensitive = new Set<string>();
for (const spec of [...Object.values(requests), ...Object.values(records)])
  if (typeof spec === 'object' && spec !== null && 'fields' in spec) collect(spec as ObjectSpec, sensitive);

/** A field masked in the outbox: marked sensitive in the schema, or named like personal data. */
const isSensitive = (k: string): boolean => sensitive.has(k) || looksSensitive(k);

/** A deep copy of a JSON value with every sensitive field masked, whatever its JSON type. */
export function maskDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskDeep);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSensitive(k) ? maskValue(k, v) : maskDeep(v);
  return out;
}

/**
 * The change that leaves an item's stored body without personal values (a terminal item: applied,
 * failed, held, abandoned): every sensitive field masked as the mirror masks it (`***6789`,
 * `1961-**-**`), the fields' names and everything else kept, and `redacted_at` set when anything
 * was masked (such an item cannot be sent again as it is: it is planned again from its file).
 */
export function redaction(body: string, at: string): { body: string; redacted_at?: string } {
  const masked = JSON.stringify(maskDeep(JSON.parse(body)));
  return masked === JSON.stringify(JSON.parse(body)) ? { body } : { body: masked, redacted_at: at };
}

/** Whether a JSON value holds a sensitive field anywhere. */
export function holdsSensitive(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSensitive);
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(
    ([k, v]) => (isSensitive(k) && v !== null && v !== undefined) || holdsSensitive(v),
  );
}

export { printable } from '../util/printable.js';
