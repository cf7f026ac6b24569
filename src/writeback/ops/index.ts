import { applicantUpdate } from './applicant-update.js';
import { orgCreate } from './org-create.js';
import { payment } from './payment.js';
import { personCreate } from './person-create.js';
import { personDelete } from './person-delete.js';
import { personUpdate } from './person-update.js';
import type { OpDeclaration } from './types.js';

export * from './types.js';

/** The write-back operations, one declaration module each (see types.ts). */
export const opNames = [
  'payment',
  'person.create',
  'person.update',
  'person.delete',
  'applicant.update',
  'org.create',
] as const;
export type OpName = (typeof opNames)[number];

export const ops: Record<OpName, OpDeclaration> = {
  payment,
  'person.create': personCreate,
  'person.update': personUpdate,
  'person.delete': personDelete,
  'applicant.update': applicantUpdate,
  'org.create': orgCreate,
};

export function isOpName(value: unknown): value is OpName {
  return typeof value === 'string' && (opNames as readonly string[]).includes(value);
}

/** The columns a row of this op may fill: the body's fields and arrays, plus `op` and `id`. */
export function columnsOf(op: OpName): Set<string> {
  const spec = ops[op].spec;
  return new Set(['op', 'id', ...Object.keys(spec.fields), ...Object.keys(spec.arrays ?? {})]);
}
