import type { ResourceName } from '../schema/index.js';
import { hash32 } from './rng.js';

/** A record as the sandbox stores it: named fields, unnamed extras, nested arrays. */
export type SimRecord = { id: number | string; [field: string]: unknown };

/** Orders ids numerically when both are numeric (Invoice ids are numeric strings), else as text. */
export function compareIds(a: number | string, b: number | string): number {
  const na = typeof a === 'number' ? a : Number(a);
  const nb = typeof b === 'number' ? b : Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/**
 * One resource's records, kept sorted by id so that keyset paging (`id greaterThan x`, sorted by
 * id) is a binary search, not a scan: scale 10 has 300,000 order items.
 */
export class Table {
  private rows: SimRecord[] = [];
  private readonly byId = new Map<string, SimRecord>();
  private hashOrdered: SimRecord[] | null = null;
  private highest: number | string | undefined;
  /** Bumped on every change. */
  version = 0;

  constructor(readonly resource: ResourceName) {}

  get size(): number {
    return this.rows.length;
  }

  /** All records in id order. The array is the table's own: do not modify it. */
  all(): readonly SimRecord[] {
    return this.rows;
  }

  /** All records in the sandbox's "hash order" (what a service without sortBy might do). */
  inHashOrder(): readonly SimRecord[] {
    if (this.hashOrdered === null) {
      this.hashOrdered = [...this.rows].sort((a, b) => hash32(a.id) - hash32(b.id) || compareIds(a.id, b.id));
    }
    return this.hashOrdered;
  }

  get(id: number | string): SimRecord | undefined {
    return this.byId.get(String(id));
  }

  /** The highest id the table has ever held, deleted ones included: new ids go above it. */
  maxId(): number | string | undefined {
    return this.highest;
  }

  insert(record: SimRecord): void {
    const key = String(record.id);
    if (this.byId.has(key)) throw new Error(`duplicate ${this.resource} id ${key}`);
    this.byId.set(key, record);
    if (this.highest === undefined || compareIds(this.highest, record.id) < 0) this.highest = record.id;
    const last = this.rows[this.rows.length - 1];
    if (last === undefined || compareIds(last.id, record.id) < 0) this.rows.push(record);
    else this.rows.splice(this.lowerBound(record.id), 0, record);
    this.changed();
  }

  /** Replaces fields of a record in place; `undefined` values remove the field. */
  update(id: number | string, patch: Record<string, unknown>): SimRecord | undefined {
    const record = this.byId.get(String(id));
    if (record === undefined) return undefined;
    for (const [k, v] of Object.entries(patch)) {
      if (k === 'id') continue;
      if (v === undefined) delete record[k];
      else record[k] = v;
    }
    this.changed();
    return record;
  }

  delete(id: number | string): SimRecord | undefined {
    const key = String(id);
    const record = this.byId.get(key);
    if (record === undefined) return undefined;
    this.byId.delete(key);
    this.rows.splice(this.lowerBound(record.id), 1);
    this.changed();
    return record;
  }

  /** Index of the first record whose id is >= `id`. */
  lowerBound(id: number | string): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const row = this.rows[mid];
      if (row !== undefined && compareIds(row.id, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first record whose id is > `id`. */
  upperBound(id: number | string): number {
    let lo = 0;
    let hi = this.rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const row = this.rows[mid];
      if (row !== undefined && compareIds(row.id, id) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private changed(): void {
    this.version++;
    this.hashOrdered = null;
  }
}

/** Every table of the sandbox, by resource name. */
export type SimTables = { readonly [R in ResourceName]: Table };

export function emptyTables(): SimTables {
  return {
    HsVendor: new Table('HsVendor'),
    OrderItem: new Table('OrderItem'),
    Tenant: new Table('Tenant'),
    Role: new Table('Role'),
    Applicant: new Table('Applicant'),
    Invoice: new Table('Invoice'),
    OrgMonth: new Table('OrgMonth'),
    User: new Table('User'),
    Staff: new Table('Staff'),
    Payment: new Table('Payment'),
    Person: new Table('Person'),
    Org: new Table('Org'),
  };
}

/** An order item status of the sandbox's data set (status ids and names are data, not code). */
export interface SimStatus {
  readonly id: number;
  readonly code: string;
  readonly name: string;
  readonly terminal: boolean;
}

export const simStatuses: readonly SimStatus[] = [
  { id: 101, code: 'ORD', name: 'Ordered', terminal: false },
  { id: 102, code: 'SCH', name: 'Scheduled', terminal: false },
  { id: 103, code: 'COL', name: 'Collected', terminal: false },
  { id: 104, code: 'LAB', name: 'At Lab', terminal: false },
  { id: 105, code: 'MRO', name: 'MRO Review', terminal: false },
  { id: 106, code: 'CMP', name: 'Completed', terminal: true },
  { id: 107, code: 'CAN', name: 'Cancelled', terminal: true },
  { id: 108, code: 'EXP', name: 'Expired', terminal: true },
];
