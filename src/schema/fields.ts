/**
 * Building blocks of the schema module: field specs, object specs (records with nested arrays),
 * and the TypeScript types derived from them. Everything that needs a field list (the API
 * client's types, the sandbox's validation, the mirror's columns, the data dictionary) reads it
 * from the declarations built with these helpers, never from a list of its own.
 */

export type FieldType = 'string' | 'number' | 'boolean';

export interface FieldSpec {
  readonly type: FieldType;
  /** What the field means, from docs/service.md where it says so. */
  readonly doc?: string;
  /** The interface says the field may be null (it says so only for User.PersonId). */
  readonly nullable?: boolean;
  /** Personal data (SSN, birth date, licence or ID number): masked in the mirror, never logged. */
  readonly sensitive?: boolean;
  /** Minimum string length stated by the interface. */
  readonly minLength?: number;
  /** Required in a response, as the interface states (HsVendor only). */
  readonly required?: boolean;
  /** An amount of money (cents matter): `numeric(14,2)` on PostgreSQL. */
  readonly money?: boolean;
}

export type FieldMap = { readonly [name: string]: FieldSpec };

/** A record shape: scalar fields plus nested arrays of sub-records. */
export interface ObjectSpec {
  readonly fields: FieldMap;
  readonly arrays?: { readonly [name: string]: ObjectSpec };
}

export type ValueOf<S extends FieldSpec> = S['type'] extends 'string'
  ? string
  : S['type'] extends 'number'
    ? number
    : boolean;

type ScalarsOf<M extends FieldMap> = { -readonly [K in keyof M]?: ValueOf<M[K]> | null };
type ArraysOf<A> = A extends { readonly [name: string]: ObjectSpec }
  ? { -readonly [K in keyof A]?: ShapeOf<A[K]>[] }
  : unknown;

/**
 * The TypeScript type of a record of an ObjectSpec. Every field is optional (the interface says
 * so of responses) and fields the interface does not name may be present too.
 */
export type ShapeOf<O extends ObjectSpec> = ScalarsOf<O['fields']> &
  ArraysOf<O['arrays']> & { [extra: string]: unknown };

/** Field names of an ObjectSpec, as a union of string literals. */
export type FieldName<O extends ObjectSpec> = Extract<keyof O['fields'], string>;

/** Fields of one type, declared from a list of names: `ofType('string', ['a', 'b'])`. */
export function ofType<const T extends FieldType, const N extends readonly string[]>(
  type: T,
  names: N,
  extra: Omit<FieldSpec, 'type'> = {},
): { readonly [K in N[number]]: { readonly type: T } & Omit<FieldSpec, 'type'> } {
  const out: Record<string, FieldSpec> = {};
  for (const name of names) out[name] = { type, ...extra };
  return out as { readonly [K in N[number]]: { readonly type: T } & Omit<FieldSpec, 'type'> };
}

export const str = <const D extends string>(doc?: D, more: Omit<FieldSpec, 'type' | 'doc'> = {}) =>
  ({ type: 'string', ...(doc === undefined ? {} : { doc }), ...more }) as const satisfies FieldSpec;
export const num = <const D extends string>(doc?: D, more: Omit<FieldSpec, 'type' | 'doc'> = {}) =>
  ({ type: 'number', ...(doc === undefined ? {} : { doc }), ...more }) as const satisfies FieldSpec;
export const bool = <const D extends string>(doc?: D, more: Omit<FieldSpec, 'type' | 'doc'> = {}) =>
  ({ type: 'boolean', ...(doc === undefined ? {} : { doc }), ...more }) as const satisfies FieldSpec;

/**
 * Identifier fields (`id` and every `...Id` link) hold whole numbers; every other number may
 * carry a fraction (money, coordinates), since the interface's "integer-valued unless noted" is
 * contradicted by balances and salaries in cents.
 */
export function isIdField(name: string): boolean {
  return name === 'id' || /Id$/.test(name);
}

/** Mirror column name of a field: characters outside [A-Za-z0-9_] become `_`. */
export function columnName(field: string): string {
  return field.replace(/[^A-Za-z0-9_]/g, '_');
}
