import type { ResourceName } from '../../src/schema/index.js';

/** The tables of `ohs sync`, with their resources (apart from mirror.ts: the global setup reads it). */
export const streamTables: readonly { table: string; resource: ResourceName }[] = [
  { table: 'orderitem', resource: 'OrderItem' },
  { table: 'hsvendor', resource: 'HsVendor' },
  { table: 'tenant', resource: 'Tenant' },
  { table: 'role', resource: 'Role' },
  { table: 'orgmonth', resource: 'OrgMonth' },
  { table: 'user', resource: 'User' },
  { table: 'invoice', resource: 'Invoice' },
  { table: 'staff', resource: 'Staff' },
  { table: 'applicant', resource: 'Applicant' },
];
