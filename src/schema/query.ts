import type { FieldName, ObjectSpec } from './fields.js';
import { type ResourceName, resources } from './operations.js';

/** The 14 filter operators of the common query body (docs/service.md). */
export const operators = [
  'contains',
  'endsWith',
  'equals',
  'greaterThan',
  'greaterThanOrEqualTo',
  'isEmpty',
  'isFalse',
  'isNotEmpty',
  'isTrue',
  'lessThan',
  'lessThanOrEqualTo',
  'listContains',
  'notEquals',
  'startsWith',
] as const;
export type Operator = (typeof operators)[number];

/** The resources served by the query operations (1 to 4). */
export type QueryResource = 'HsVendor' | 'OrderItem' | 'Tenant' | 'Role';

/** Field names of a resource, checked at compile time. */
export type FieldOf<R extends ResourceName> = FieldName<(typeof resources)[R]['spec']>;

/** One `advancedFilter` item; `columnField` must be a field of the resource. */
export interface FilterItem<F extends string = string> {
  columnField: F;
  operatorValue: Operator;
  value: string;
}

export interface AdvancedFilter<F extends string = string> {
  linkOperator: 'AND' | 'OR';
  items: FilterItem<F>[];
}

/**
 * The common query body, typed by resource. Simple filters (`field: "value"` keys of the body)
 * go in `filters`; the client spreads them into the body it sends.
 */
export interface QueryBody<R extends ResourceName = ResourceName> {
  advancedFilter?: AdvancedFilter<FieldOf<R>>;
  filters?: Partial<Record<FieldOf<R>, string>>;
  return?: FieldOf<R>[];
  isAdditionalData?: boolean;
  page?: number;
  pageSize?: number;
  sortBy?: FieldOf<R>;
  sortDirection?: 'asc' | 'desc';
}

/** A filter item: `where('id', 'greaterThan', 500)`. Values are sent as strings, as the interface says. */
export function where<const F extends string>(
  field: F,
  operator: Operator,
  value: string | number | boolean = '',
): FilterItem<F> {
  return { columnField: field, operatorValue: operator, value: String(value) };
}

export function and<F extends string>(...items: FilterItem<F>[]): AdvancedFilter<F> {
  return { linkOperator: 'AND', items };
}

/** Every field name an ObjectSpec declares (scalars and nested arrays). */
export function allFields(spec: ObjectSpec): string[] {
  return [...Object.keys(spec.fields), ...Object.keys(spec.arrays ?? {})];
}

/** Every field name of a resource, typed. */
export function fieldsOf<R extends ResourceName>(resource: R): FieldOf<R>[] {
  return allFields(resources[resource].spec) as FieldOf<R>[];
}
