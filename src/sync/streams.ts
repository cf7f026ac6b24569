import { where } from '../schema/index.js';
import type { StreamDecl } from './types.js';

/** Ids in a nested array of a raw record (`staff[].id`, `applicant[].id` of a created person). */
const nestedIds =
  (field: string) =>
  (raw: Record<string, unknown>): unknown[] => {
    const items = raw[field];
    return Array.isArray(items)
      ? items.map((i) => (typeof i === 'object' && i !== null ? (i as { id?: unknown }).id : undefined))
      : [];
  };

/** Every stream of `ohs sync`, in the order they start. */
export const streams: readonly StreamDecl[] = [
  {
    name: 'orderitem',
    resource: 'OrderItem',
    kind: 'query',
    partitioned: true,
    incremental: 'open-rows',
    reopen: { filter: where('isNotModifiable', 'isFalse'), column: 'isNotModifiable', value: 0 },
    statusHistory: true,
  },
  { name: 'hsvendor', resource: 'HsVendor', kind: 'query', partitioned: false, incremental: 'full' },
  { name: 'tenant', resource: 'Tenant', kind: 'query', partitioned: false, incremental: 'full' },
  { name: 'role', resource: 'Role', kind: 'query', partitioned: false, incremental: 'full' },
  { name: 'orgmonth', resource: 'OrgMonth', kind: 'list' },
  { name: 'user', resource: 'User', kind: 'list' },
  {
    name: 'invoice',
    resource: 'Invoice',
    kind: 'ids',
    refs: [{ table: 'payment', column: 'InvoiceId' }],
    incrementalReread: 'open',
    openWhere: { column: 'balance', notEqual: 0 },
  },
  {
    name: 'staff',
    resource: 'Staff',
    kind: 'ids',
    refs: [{ table: 'person', fromRaw: nestedIds('staff') }],
    incrementalReread: 'none',
  },
  {
    name: 'applicant',
    resource: 'Applicant',
    kind: 'ids',
    refs: [{ table: 'person', fromRaw: nestedIds('applicant') }],
    incrementalReread: 'none',
  },
];

export const streamNames = streams.map((s) => s.name);
