import {
  columnName,
  type FieldSpec,
  isIdField,
  type ObjectSpec,
  type ResourceName,
  resources,
} from '../schema/index.js';
import type { ColumnKind } from './ddl.js';

/**
 * The mirror's tables, derived from the schema module: one per resource, named after its path
 * segment, with one typed column per field, plus child tables for nested arrays we flatten
 * (Applicant's `info[]` and their `infoItem[]`). Nothing here lists fields by hand.
 */
export type SqlType = 'INTEGER' | 'REAL' | 'TEXT';

export interface ColumnDef {
  /** Column name: the field name with characters outside [A-Za-z0-9_] replaced by `_`. */
  name: string;
  /** The service's field name. */
  field: string;
  type: SqlType;
  fieldType: FieldSpec['type'];
  sensitive: boolean;
  doc: string | undefined;
  /** An `...Id` link to another record: indexed. */
  link: boolean;
  /** An amount of money (exact cents: `numeric(14,2)` on PostgreSQL). */
  money: boolean;
}

export interface ChildTableDef {
  table: string;
  /** Array field of the parent record holding these rows. */
  arrayField: string;
  /** Column holding the parent's id. */
  parentColumn: string;
  columns: ColumnDef[];
  children: ChildTableDef[];
}

export interface TableDef {
  resource: ResourceName;
  table: string;
  idType: 'INTEGER' | 'TEXT';
  /** Typed columns, `id` first. */
  columns: ColumnDef[];
  children: ChildTableDef[];
}

/** Columns every resource table has besides the typed ones (described in the data dictionary). */
export const bookkeepingColumns = [
  {
    name: 'raw',
    type: 'TEXT',
    kind: 'json',
    doc: "The record's JSON as last received (unknown fields included; sensitive fields masked whatever their JSON type, and unknown fields whose names look like personal data: ssn, dob, birth, licence, passport...).",
  },
  {
    name: 'synced_at',
    type: 'TEXT',
    kind: 'text',
    doc: 'When the record was last written from the service (ISO 8601 UTC): a re-read that finds it unchanged does not rewrite it.',
  },
  {
    name: 'deleted_at',
    type: 'TEXT',
    kind: 'text',
    doc: 'When the record was found gone upstream; null while it exists.',
  },
  {
    name: 'seen_pass',
    type: 'TEXT',
    kind: 'text',
    doc: 'Unused since migration 0007 (passes note the ids they see in sync_pass_seen).',
  },
] as const;

function sqlType(name: string, spec: FieldSpec): SqlType {
  if (spec.type === 'string') return 'TEXT';
  if (spec.type === 'boolean') return 'INTEGER';
  return isIdField(name) ? 'INTEGER' : 'REAL';
}

function columnsOf(spec: ObjectSpec, idType: 'number' | 'string' = 'number'): ColumnDef[] {
  const cols = Object.entries(spec.fields).map(([field, f]) => ({
    name: columnName(field),
    field,
    type: field === 'id' && idType === 'string' ? ('TEXT' as const) : sqlType(field, f),
    fieldType: f.type,
    sensitive: f.sensitive === true,
    doc: f.doc,
    link: field !== 'id' && isIdField(field),
    money: f.money === true,
  }));
  return [...cols.filter((c) => c.field === 'id'), ...cols.filter((c) => c.field !== 'id')];
}

/** The kind of a typed column, which each engine maps to its own type (see ddl.ts). */
export function columnKind(c: ColumnDef): ColumnKind {
  if (c.type === 'TEXT') return 'text';
  if (c.type === 'INTEGER') return isIdField(c.field) ? 'id' : 'int';
  return c.money ? 'money' : 'float';
}

/**
 * Resources mirrored (every resource of the schema module), in the order tables are created:
 * the order is written here, and a resource left out fails tsc (`EveryResource` below).
 */
export const mirroredResources = [
  'HsVendor',
  'OrderItem',
  'Tenant',
  'Role',
  'OrgMonth',
  'User',
  'Invoice',
  'Staff',
  'Applicant',
  'Person',
  'Org',
  'Payment',
] as const satisfies readonly ResourceName[];
/** A resource missing from `mirroredResources` makes this `false` and the line below fail tsc. */
type EveryResource = [Exclude<ResourceName, (typeof mirroredResources)[number]>] extends [never]
  ? true
  : false;
const everyResource: EveryResource = true;
void everyResource;

function childTables(parentTable: string, spec: ObjectSpec, parentColumn: string): ChildTableDef[] {
  // Only Applicant's info[] / infoItem[] are flattened: the other nested arrays belong to write
  // bodies and stay in `raw`.
  if (parentTable === 'applicant') {
    const info = spec.arrays?.info;
    if (info === undefined) return [];
    return [
      {
        table: 'applicant_info',
        arrayField: 'info',
        parentColumn,
        columns: columnsOf(info),
        children: childTables('applicant_info', info, 'info_id'),
      },
    ];
  }
  if (parentTable === 'applicant_info') {
    const item = spec.arrays?.infoItem;
    if (item === undefined) return [];
    return [
      {
        table: 'applicant_info_item',
        arrayField: 'infoItem',
        parentColumn,
        columns: columnsOf(item),
        children: [],
      },
    ];
  }
  return [];
}

export const tableDefs: readonly TableDef[] = mirroredResources.map((resource) => {
  const r = resources[resource];
  return {
    resource,
    table: r.segment,
    idType: r.idType === 'string' ? 'TEXT' : 'INTEGER',
    columns: columnsOf(r.spec, r.idType),
    children: childTables(r.segment, r.spec, 'applicant_id'),
  };
});

export function tableOf(resource: ResourceName): TableDef {
  const def = tableDefs.find((t) => t.resource === resource);
  if (def === undefined) throw new Error(`no mirror table for ${resource}`);
  return def;
}

/** SQL quoting of an identifier (`user` is a keyword). */
export function q(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}

/** Secondary indexes of a resource table: one per `...Id` link. */
export function indexesOf(def: TableDef): { name: string; column: string }[] {
  return def.columns
    .filter((c) => c.link)
    .map((c) => ({ name: `${def.table}_${c.name}_idx`, column: c.name }));
}
