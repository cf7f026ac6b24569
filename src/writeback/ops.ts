import { type ObjectSpec, requests } from '../schema/index.js';

/**
 * The write-back operations: which interface body each one sends, which fields it needs, and
 * whether it addresses an existing record by `id`.
 */
export const opNames = [
  'payment',
  'person.create',
  'person.update',
  'person.delete',
  'applicant.update',
  'org.create',
] as const;
export type OpName = (typeof opNames)[number];

export interface OpDef {
  /** The request body's spec (person.delete sends none). */
  spec: ObjectSpec;
  /** Fields a row must give. */
  required: readonly string[];
  /** The row names an existing record in column `id` (updates, deletes). */
  targeted: boolean;
  /** A POST: never resent after an unknown outcome, reconciled instead. */
  create: boolean;
  /** What the target id names, for messages. */
  target?: 'person' | 'applicant';
}

const none = { fields: {} } as const satisfies ObjectSpec;

export const ops: Record<OpName, OpDef> = {
  payment: {
    spec: requests.PaymentCreate,
    required: ['InvoiceId', 'amountToPay'],
    targeted: false,
    create: true,
  },
  'person.create': {
    spec: requests.PersonCreate,
    required: ['nameFirst', 'nameLast', 'OrgId'],
    targeted: false,
    create: true,
  },
  'person.update': {
    spec: requests.PersonUpdate,
    required: [],
    targeted: true,
    create: false,
    target: 'person',
  },
  'person.delete': { spec: none, required: [], targeted: true, create: false, target: 'person' },
  'applicant.update': {
    spec: requests.ApplicantUpdate,
    required: [],
    targeted: true,
    create: false,
    target: 'applicant',
  },
  'org.create': { spec: requests.OrgCreate, required: ['name', 'zip'], targeted: false, create: true },
};

export function isOpName(value: unknown): value is OpName {
  return typeof value === 'string' && (opNames as readonly string[]).includes(value);
}

/** The columns a row of this op may fill: the body's fields and arrays, plus `op` and `id`. */
export function columnsOf(op: OpName): Set<string> {
  const spec = ops[op].spec;
  return new Set(['op', 'id', ...Object.keys(spec.fields), ...Object.keys(spec.arrays ?? {})]);
}
