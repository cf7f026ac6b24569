import { fieldsOf, operations, where } from '../schema/index.js';
import type { OhsClient } from './client.js';
import { unwrapList } from './envelope.js';

/** What the service does where the interface is silent, found by read-only requests. */
export interface ProbeFindings {
  envelope: 'array' | 'object';
  envelopeKey: string | undefined;
  totalKey: string | undefined;
  /** Largest pageSize honoured; 0 if no cap was seen. */
  pageCap: number;
  defaultOrder: 'id-asc' | 'id-desc' | 'unordered';
  /** Fields the default response leaves out that `return` brings. */
  defaultOmits: string[];
  /** Name of the GET field-selection parameter; undefined if no candidate worked. */
  fieldsParam: string | undefined;
  stringCase: 'insensitive' | 'sensitive' | 'unknown';
  /**
   * Reading of `listContains`: 'any-of' = the field equals one of the comma-separated items (the
   * reading the sync's deletion check relies on); 'other' = anything else (the sync then asks id
   * by id); 'unknown' = too few records to tell.
   */
  listContains: 'any-of' | 'other' | 'unknown';
}

/** Names a service might use for field selection, most likely first. */
export const fieldsParamCandidates = [
  'fields',
  'select',
  '$select',
  'fieldList',
  'return',
  'columns',
  'include',
];

const PROBE_PAGE = 1000;

/**
 * Asks the service, read-only, which reading of each gap it uses: list envelope and total key,
 * a silent pageSize cap, the order without sortBy, fields the default response omits, the name
 * of the field-selection parameter, and the case rule of string operators.
 */
export async function probeService(client: OhsClient): Promise<ProbeFindings> {
  const send = async (method: 'GET' | 'POST', path: string, body?: unknown) =>
    (await client.transport.send({ method, path, body, idempotent: true })).body;

  // Envelope and total key.
  const roles = await send('POST', operations.queryRole.path, {
    sortBy: 'id',
    sortDirection: 'asc',
    pageSize: 5,
  });
  const roleList = unwrapList(roles);
  const envelope = Array.isArray(roles) ? 'array' : 'object';
  const envelopeKey = typeof roleList === 'string' || roleList.shape === 'array' ? undefined : roleList.shape;
  const totalKey = typeof roleList === 'string' ? undefined : roleList.totalKey;

  // Silent page cap: ask for a big page; a short page with more records after it is a cap.
  const big = await client.query('OrderItem', {
    sortBy: 'id',
    sortDirection: 'asc',
    pageSize: PROBE_PAGE,
    return: ['id'],
  });
  let pageCap = 0;
  const n = big.records.length;
  if (n > 0 && n < PROBE_PAGE) {
    if (big.total !== undefined) {
      if (big.total > n) pageCap = n;
    } else {
      const lastId = Number(big.records[n - 1]?.id);
      const after = await client.query('OrderItem', {
        advancedFilter: { linkOperator: 'AND', items: [where('id', 'greaterThan', lastId)] },
        sortBy: 'id',
        sortDirection: 'asc',
        pageSize: 1,
        return: ['id'],
      });
      if (after.records.length > 0) pageCap = n;
    }
  }

  // Order without sortBy.
  const unsorted = await client.query('OrderItem', { pageSize: 50, return: ['id'] });
  const ids = unsorted.records.map((r) => Number(r.id));
  const asc = ids.every((id, i) => i === 0 || id > (ids[i - 1] ?? Number.NEGATIVE_INFINITY));
  const desc = ids.every((id, i) => i === 0 || id < (ids[i - 1] ?? Number.POSITIVE_INFINITY));
  const defaultOrder = ids.length < 2 ? 'unordered' : asc ? 'id-asc' : desc ? 'id-desc' : 'unordered';

  // Fields the default response omits that `return` brings.
  const body = { sortBy: 'id', sortDirection: 'asc', pageSize: 20 } as const;
  const plain = await client.query('OrderItem', body);
  const full = await client.query('OrderItem', {
    ...body,
    return: fieldsOf('OrderItem'),
    isAdditionalData: true,
  });
  const keys = (rs: Record<string, unknown>[]) => new Set(rs.flatMap((r) => Object.keys(r)));
  const plainKeys = keys(plain.records);
  const defaultOmits = [...keys(full.records)].filter((k) => !plainKeys.has(k)).sort();

  // Field-selection parameter: the name that makes a list answer only the fields asked for.
  let fieldsParam: string | undefined;
  for (const name of fieldsParamCandidates) {
    const path = `${operations.listUser.path}?${new URLSearchParams({ [name]: 'id,email', isAdditionalData: 'false' })}`;
    const list = unwrapList(await send('GET', path));
    if (typeof list === 'string' || list.records.length === 0) continue;
    if (list.records.every((r) => Object.keys(r).every((k) => k === 'id' || k === 'email'))) {
      fieldsParam = name;
      break;
    }
  }

  // Case of string operators: does `equals` with the name upper-cased still find a role?
  let stringCase: ProbeFindings['stringCase'] = 'unknown';
  const role = (typeof roleList === 'string' ? [] : roleList.records).find(
    (r) => typeof r.name === 'string' && r.name !== r.name.toUpperCase(),
  );
  if (role !== undefined) {
    const upper = String(role.name).toUpperCase();
    const found = await client.query('Role', {
      advancedFilter: { linkOperator: 'AND', items: [where('name', 'equals', upper)] },
      pageSize: 5,
    });
    stringCase = found.records.some((r) => r.id === role.id) ? 'insensitive' : 'sensitive';
  }

  const listContains = await probeListContains(
    client,
    big.records.map((r) => Number(r.id)),
  );
  return {
    envelope,
    envelopeKey,
    totalKey,
    pageCap,
    defaultOrder,
    defaultOmits,
    fieldsParam,
    stringCase,
    listContains,
  };
}

/**
 * `listContains` with the first and third known order item ids: exactly those two back means
 * "equals one of the items"; none, one, or others mean another reading.
 */
async function probeListContains(client: OhsClient, ids: number[]): Promise<ProbeFindings['listContains']> {
  const a = ids[0];
  const b = ids[2];
  if (a === undefined || b === undefined) return 'unknown';
  const found = await client.query('OrderItem', {
    advancedFilter: { linkOperator: 'AND', items: [where('id', 'listContains', `${a},${b}`)] },
    sortBy: 'id',
    sortDirection: 'asc',
    pageSize: 10,
    return: ['id'],
  });
  const got = found.records.map((r) => Number(r.id));
  return got.length === 2 && got.includes(a) && got.includes(b) ? 'any-of' : 'other';
}
