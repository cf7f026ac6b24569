import type { ObjectSpec } from '../schema/index.js';
import { looksSensitive, maskByName, maskValue } from '../util/mask.js';

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
