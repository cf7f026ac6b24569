import type { ObjectSpec } from './fields.js';
import * as req from './requests.js';
import * as res from './resources.js';

/**
 * The 15 operations of docs/service.md, each with its method,
 * path (relative to the base URL, `{id}` a path parameter), kind and the specs of its request
 * and response. The sandbox serves exactly these; the client calls exactly these.
 */
export type OperationKind = 'query' | 'get' | 'list' | 'create' | 'update' | 'delete';

export interface OperationDef {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly kind: OperationKind;
  /** Resource name, as in `resources` below. */
  readonly resource: ResourceName;
  readonly request?: ObjectSpec;
  readonly response?: ObjectSpec;
}

export const resources = {
  HsVendor: { spec: res.HsVendor, segment: 'hsvendor', idType: 'number' },
  OrderItem: { spec: res.OrderItem, segment: 'orderitem', idType: 'number' },
  Tenant: { spec: res.Tenant, segment: 'tenant', idType: 'number' },
  Role: { spec: res.Role, segment: 'role', idType: 'number' },
  Applicant: { spec: res.Applicant, segment: 'applicant', idType: 'number' },
  Invoice: { spec: res.Invoice, segment: 'invoice', idType: 'string' },
  OrgMonth: { spec: res.OrgMonth, segment: 'orgmonth', idType: 'number' },
  User: { spec: res.User, segment: 'user', idType: 'number' },
  Staff: { spec: res.Staff, segment: 'staff', idType: 'number' },
  Payment: { spec: req.Payment, segment: 'payment', idType: 'number' },
  Person: { spec: req.Person, segment: 'person', idType: 'number' },
  Org: { spec: req.Org, segment: 'org', idType: 'number' },
} as const satisfies Record<string, { spec: ObjectSpec; segment: string; idType: 'number' | 'string' }>;

export type ResourceName = keyof typeof resources;

export const operations = {
  queryHsVendor: {
    method: 'POST',
    path: '/vLatest/query/core/hsvendor',
    kind: 'query',
    resource: 'HsVendor',
  },
  queryOrderItem: {
    method: 'POST',
    path: '/vLatest/query/core/orderitem',
    kind: 'query',
    resource: 'OrderItem',
  },
  queryTenant: { method: 'POST', path: '/vLatest/query/core/tenant', kind: 'query', resource: 'Tenant' },
  queryRole: { method: 'POST', path: '/v2/query/core/role', kind: 'query', resource: 'Role' },
  updateApplicant: {
    method: 'PATCH',
    path: '/vLatest/action/core/applicant/{id}',
    kind: 'update',
    resource: 'Applicant',
    request: req.ApplicantUpdate,
    response: res.Applicant,
  },
  getApplicant: { method: 'GET', path: '/v2/action/core/applicant/{id}', kind: 'get', resource: 'Applicant' },
  createPayment: {
    method: 'POST',
    path: '/vLatest/action/core/payment',
    kind: 'create',
    resource: 'Payment',
    request: req.PaymentCreate,
    response: req.Payment,
  },
  updatePerson: {
    method: 'PATCH',
    path: '/v2/action/core/person/{id}',
    kind: 'update',
    resource: 'Person',
    request: req.PersonUpdate,
    response: req.Person,
  },
  createPerson: {
    method: 'POST',
    path: '/vLatest/action/core/person',
    kind: 'create',
    resource: 'Person',
    request: req.PersonCreate,
    response: req.Person,
  },
  deletePerson: {
    method: 'DELETE',
    path: '/vLatest/action/core/person/{id}',
    kind: 'delete',
    resource: 'Person',
  },
  getInvoice: { method: 'GET', path: '/v2/action/core/invoice/{id}', kind: 'get', resource: 'Invoice' },
  listOrgMonth: { method: 'GET', path: '/v2/action/core/orgmonth', kind: 'list', resource: 'OrgMonth' },
  listUser: { method: 'GET', path: '/v2/action/core/user', kind: 'list', resource: 'User' },
  getStaff: { method: 'GET', path: '/v2/action/core/staff/{id}', kind: 'get', resource: 'Staff' },
  createOrg: {
    method: 'POST',
    path: '/v2/action/core/org',
    kind: 'create',
    resource: 'Org',
    request: req.OrgCreate,
    response: req.Org,
  },
} as const satisfies Record<string, OperationDef>;

export type OperationName = keyof typeof operations;

export const operationNames = Object.keys(operations) as OperationName[];
