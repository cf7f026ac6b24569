import { type FieldSpec, isIdField, type ObjectSpec } from '../schema/index.js';
import { printable } from '../util/printable.js';

/**
 * Records checked against the schema module on their way in. A record of a list or a query is
 * kept as the service sent it (the mirror's `raw` holds it whole) even when a field has the
 * wrong type: dropping it would lose a record, and its wrong field is counted and reported
 * instead. A record read by id must be one of its resource (foreignProblem): the fields its
 * resource declares and nothing else, each of its declared type; anything else is no record of
 * it, and nothing of it is stored. An id is another matter everywhere: a record whose id is
 * missing or not an id cannot be placed, so it is a protocol error, never a row (a phantom row,
 * or a real row deleted because its id came back null).
 */
export type Expected = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';

export interface TypeIssue {
  /** Field, with the path of nested arrays: `info[].infoItem[].value`. */
  field: string;
  expected: Expected;
}

/** Type issues per field, of every record a scoped client checked (OhsClient.scoped). */
export interface TypeIssueTally {
  byField: Map<string, { expected: Expected; count: number; exampleId: string }>;
}

export const newTypeIssueTally = (): TypeIssueTally => ({ byField: new Map() });

function expectedOf(name: string, spec: FieldSpec): Expected {
  return spec.type === 'number' && isIdField(name) ? 'integer' : spec.type;
}

function fits(expected: Expected, value: unknown): boolean {
  switch (expected) {
    case 'integer':
      return Number.isSafeInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

interface Plan {
  fields: [name: string, expected: Expected][];
  expected: Map<string, Expected>;
  arrays: [name: string, spec: ObjectSpec][];
}
/** What to check of each spec, worked out once: this runs for every record read. */
const plans = new WeakMap<ObjectSpec, Plan>();

function planOf(spec: ObjectSpec): Plan {
  let plan = plans.get(spec);
  if (plan === undefined) {
    const fields = Object.entries(spec.fields).map(([name, f]): [string, Expected] => [
      name,
      expectedOf(name, f),
    ]);
    plan = {
      fields,
      expected: new Map(fields),
      arrays: Object.entries(spec.arrays ?? {}),
    };
    plans.set(spec, plan);
  }
  return plan;
}

/** Fields of `record` whose value has another type than the schema's; null and absent are fine. */
export function typeIssues(spec: ObjectSpec, record: Record<string, unknown>, prefix = ''): TypeIssue[] {
  const out: TypeIssue[] = [];
  collectTypeIssues(spec, record, prefix, out);
  return out;
}

/** typeIssues into one array for the whole record (no array per nested item: this runs per record read). */
function collectTypeIssues(
  spec: ObjectSpec,
  record: Record<string, unknown>,
  prefix: string,
  out: TypeIssue[],
): void {
  const plan = planOf(spec);
  for (const [name, expected] of plan.fields) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    if (!fits(expected, value)) out.push({ field: `${prefix}${name}`, expected });
  }
  for (const [name, sub] of plan.arrays) {
    const value = record[name];
    if (value === undefined || value === null) continue;
    if (!Array.isArray(value)) {
      out.push({ field: `${prefix}${name}`, expected: 'array' });
      continue;
    }
    const inner = `${prefix}${name}[].`;
    for (const item of value) {
      if (fits('object', item)) collectTypeIssues(sub, item as Record<string, unknown>, inner, out);
      else out.push({ field: `${prefix}${name}[]`, expected: 'object' });
    }
  }
}

/**
 * A JSON number a double cannot hold, as json-numbers.ts keeps it: its text (`1e309`). A number
 * in the JSON, so of a number field's declared type; its value is unreadable (the reports say so).
 */
const HUGE_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const hugeNumberText = (value: unknown): boolean =>
  typeof value === 'string' && HUGE_NUMBER.test(value) && !Number.isFinite(Number(value));

/**
 * Why a record read by id is not one of its resource, or undefined when it is: the allow-list of
 * the resource's declaration. Every member must be a field or array the resource declares, each
 * field null or of its declared type (ids whole numbers), each array item an object that is
 * itself one of its declared item (recursively). Anything else (a field the resource does not
 * declare, a declared field of another type) is refused, naming the first member found and
 * never its value. Null and absent are fine: the interface makes every response field optional.
 */
export function foreignProblem(
  spec: ObjectSpec,
  record: Record<string, unknown>,
  prefix = '',
): string | undefined {
  const plan = planOf(spec);
  for (const key of Object.keys(record)) {
    const value = record[key];
    const name = `${prefix}${printable(key, 40)}`;
    const field = spec.fields[key];
    if (field !== undefined && Object.hasOwn(spec.fields, key)) {
      const expected = plan.expected.get(key) ?? field.type;
      if (value !== null && !fits(expected, value) && !(expected === 'number' && hugeNumberText(value)))
        return `a record whose ${name} is not of its declared type (${expected})`;
      continue;
    }
    const sub = spec.arrays?.[key];
    if (sub === undefined || !Object.hasOwn(spec.arrays ?? {}, key))
      return `a record carrying ${name}, a field its resource does not declare`;
    if (value === null) continue;
    if (!Array.isArray(value)) return `a record whose ${name} is not of its declared type (array)`;
    for (const item of value) {
      if (!fits('object', item)) return `a record whose ${name}[] is not of its declared type (object)`;
      const inner = foreignProblem(sub, item as Record<string, unknown>, `${name}[].`);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/**
 * Why the record's `id` cannot identify it (missing, null, the wrong type, not a safe integer),
 * or undefined when it can.
 */
export function idProblem(spec: ObjectSpec, record: Record<string, unknown>): string | undefined {
  const id = record.id;
  const expected = spec.fields.id === undefined ? 'integer' : expectedOf('id', spec.fields.id);
  if (id === undefined) return 'a record without an id';
  if (id === null) return 'a record whose id is null';
  if (expected === 'string') {
    return typeof id === 'string' && id !== ''
      ? undefined
      : `an id that is not a string (${JSON.stringify(id)})`;
  }
  return Number.isSafeInteger(id) ? undefined : `an id that is not a whole number (${JSON.stringify(id)})`;
}

/** Counts the record's type issues in `tally` (nothing to do without one). */
export function tallyTypeIssues(
  spec: ObjectSpec,
  record: Record<string, unknown>,
  tally: TypeIssueTally | undefined,
): void {
  if (tally === undefined) return;
  for (const i of typeIssues(spec, record)) {
    const seen = tally.byField.get(i.field);
    if (seen === undefined)
      tally.byField.set(i.field, { expected: i.expected, count: 1, exampleId: String(record.id) });
    else seen.count++;
  }
}

/**
 * Whether a parsed JSON value holds a number that was an integer literal of 2^53 or more:
 * JSON.parse rounded it silently (an id 9007199254740993 becomes ...992, another record's id).
 * A walk of the parsed value, cheaper than scanning the text of every response; the text is
 * scanned (`unsafeInteger`) only to name the literal once one is found.
 */
export function hasUnsafeInteger(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (hasUnsafeInteger(v)) return true;
    return false;
  }
  for (const k in value) if (hasUnsafeInteger((value as Record<string, unknown>)[k])) return true;
  return false;
}

/** What is wrong with a body holding `literal`, an integer beyond 2^53 (one wording everywhere). */
export function unsafeIntegerProblem(literal: string): string {
  return `an integer beyond 2^53 (${literal.slice(0, 30)}) that JSON would round`;
}

/** The first integer literal beyond 2^53 in a JSON text, outside strings. */
export function unsafeInteger(text: string): string | undefined {
  if (!/\d{16}/.test(text)) return undefined; // no literal long enough
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j] as string)) j++;
      const literal = text.slice(i, j);
      i = j - 1;
      if (/^-?\d{16,}$/.test(literal)) {
        const big = BigInt(literal);
        const max = BigInt(Number.MAX_SAFE_INTEGER);
        if (big > max || big < -max) return literal;
      }
    }
  }
  return undefined;
}
