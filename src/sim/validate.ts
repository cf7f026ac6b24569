import { isIdField, type ObjectSpec } from '../schema/index.js';
import { badRequest } from './http-error.js';

/**
 * Validates an action body (payment, person, applicant, org) against its ObjectSpec: types of
 * every field, nested arrays, stated minimum lengths, and (when strict) no unknown fields. All
 * problems are collected; the 400 lists them, separated by "; ".
 */
export function validateBody(
  spec: ObjectSpec,
  body: unknown,
  strict: boolean,
  required: readonly string[] = [],
): Record<string, unknown> {
  const problems: string[] = [];
  check(spec, body, '', strict, problems);
  if (problems.length === 0 && typeof body === 'object' && body !== null) {
    for (const f of required) {
      const v = (body as Record<string, unknown>)[f];
      if (v === undefined || v === null) problems.push(`${f}: required`);
    }
  }
  if (problems.length > 0) throw badRequest(problems.slice(0, 20).join('; '));
  return body as Record<string, unknown>;
}

function check(spec: ObjectSpec, value: unknown, path: string, strict: boolean, problems: string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push(`${path || 'body'}: expected an object`);
    return;
  }
  for (const [key, v] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    // Own properties only: a 'constructor' or 'toString' key is an unknown field.
    const field = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    const nested =
      spec.arrays !== undefined && Object.hasOwn(spec.arrays, key) ? spec.arrays[key] : undefined;
    if (field !== undefined) {
      if (v === null) continue;
      if (field.type === 'number') {
        if (typeof v !== 'number' || !Number.isFinite(v)) problems.push(`${at}: expected a number`);
        else if (isIdField(key) && !Number.isInteger(v)) problems.push(`${at}: expected a whole number`);
      } else if (typeof v !== field.type) {
        problems.push(`${at}: expected a ${field.type}`);
      } else if (field.minLength !== undefined && typeof v === 'string' && v.length < field.minLength) {
        problems.push(`${at}: must be at least ${field.minLength} character(s)`);
      }
    } else if (nested !== undefined) {
      if (!Array.isArray(v)) {
        problems.push(`${at}: expected an array`);
        continue;
      }
      v.forEach((item, i) => {
        check(nested, item, `${at}[${i}]`, strict, problems);
      });
    } else if (strict) {
      problems.push(`${at}: unknown field`);
    }
  }
}
