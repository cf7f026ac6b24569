import {
  allFields,
  and,
  type FieldOf,
  type FilterItem,
  fieldsOf,
  type OperationName,
  operations,
  type QueryBody,
  type QueryResource,
  type ResourceName,
  type requests,
  resources,
  type ShapeOf,
  where,
} from '../schema/index.js';
import { errorMember, type ListEnvelope, totalKeys, unwrapList } from './envelope.js';
import { ProtocolError } from './errors.js';
import { ListStream } from './list-stream.js';
import type { MetricsSnapshot } from './metrics.js';
import {
  type Reply,
  type RequestCounter,
  type SendOptions,
  Transport,
  type TransportOptions,
} from './transport.js';
import { foreignProblem, idProblem, type TypeIssueTally, tallyTypeIssues } from './validate-record.js';

export type RecordOf<R extends ResourceName> = ShapeOf<(typeof resources)[R]['spec']>;
export type PaymentBody = ShapeOf<typeof requests.PaymentCreate>;
export type PersonCreateBody = ShapeOf<typeof requests.PersonCreate>;
export type PersonUpdateBody = ShapeOf<typeof requests.PersonUpdate>;
export type ApplicantUpdateBody = ShapeOf<typeof requests.ApplicantUpdate>;
export type OrgCreateBody = ShapeOf<typeof requests.OrgCreate>;

/** Resolved: the client's own settings come from config `api` (config/default.json), never defaulted here. */
export interface ClientOptions extends TransportOptions {
  /** pageSize asked of query operations (api.pageSize). */
  pageSize: number;
  /** Largest pageSize the service honours, when known (api.pageCap, from `ohs probe`). 0: unknown. */
  pageCap: number;
  /** Name of the GET field-selection parameter (api.fieldsParam). */
  fieldsParam: string;
  /** Keys of object list envelopes, when known (from `ohs probe`). */
  envelope?: ListEnvelope;
}

/**
 * Fields to ask for: 'all' asks for every field the interface names on top of the default
 * response (`return` / field selection with `isAdditionalData: true`), so nothing the service
 * holds is missed and unnamed fields still arrive.
 */
export type Selection<R extends ResourceName> = 'all' | { fields: FieldOf<R>[]; isAdditionalData?: boolean };

export interface ListResult<R extends ResourceName> {
  records: RecordOf<R>[];
  /** The total the service sent with the list, if it sent one. */
  total: number | undefined;
}

export interface ScanOptions<R extends QueryResource> {
  /** Start after this id (exclusive). */
  after?: number;
  /** Stop at this id (inclusive). */
  atMost?: number;
  /** More conditions, AND-ed with the id range. */
  where?: FilterItem<FieldOf<R>>[];
  pageSize?: number;
  /** Guard against a service that never ends a listing. @default 1_000_000 */
  maxPages?: number;
  /** Ask for the next page while the consumer handles this one. @default true */
  prefetch?: boolean;
  /** Only these fields (and `id`) instead of every field: a light scan, e.g. ids only. */
  fields?: FieldOf<R>[];
  /** Cancels the scan's requests (e.g. a sibling partition failed). */
  signal?: AbortSignal;
}

/** Options of one call. */
export interface CallOptions {
  /** Cancels the request and its retries. */
  signal?: AbortSignal | undefined;
  /** A whole answer that is not JSON is thrown at once, not retried (the service check). */
  notJsonIsFinal?: boolean;
}

/** The service check's request (OhsClient.checkTarget). */
export interface CheckTarget {
  baseUrl: string;
  token: string;
  path: string;
  envelope: ListEnvelope;
  timeoutMs: number;
  counter: RequestCounter | undefined;
}

export interface ScanPage<R extends ResourceName> extends ListResult<R> {
  lastId: number;
}

type GetResource = 'Applicant' | 'Invoice' | 'Staff';
type ListResource = 'OrgMonth' | 'User';

/**
 * A unit of work's own counts (a sync stream's): its requests and retries, and the type issues of
 * the records it read. Passed down explicitly (OhsClient.scoped) rather than through
 * AsyncLocalStorage, whose promise hooks cost Node 20 a tenth of a sync's CPU.
 */
export interface WorkScope {
  counter?: RequestCounter;
  tally?: TypeIssueTally;
}

/**
 * A typed function for each of the 15 operations of the interface, plus `scan`, which pages a
 * query resource to its end by keyset. All HTTP goes through the Transport.
 */
export class OhsClient {
  readonly transport: Transport;
  /** Records asked per page of a query (api.pageSize, within api.pageCap when known). */
  readonly pageSize: number;
  private readonly fieldsParam: string;
  private readonly envelope: ListEnvelope;

  constructor(
    private readonly options: ClientOptions,
    private readonly scope: WorkScope = {},
    transport?: Transport,
  ) {
    this.transport = transport ?? new Transport(options);
    const cap = options.pageCap;
    this.pageSize = cap > 0 ? Math.min(options.pageSize, cap) : options.pageSize;
    this.fieldsParam = options.fieldsParam;
    this.envelope = options.envelope ?? {};
  }

  /** The service's base URL, as configured (with whatever credentials it holds: see displayBaseUrl). */
  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /**
   * What the service check (service-check.ts) sends by hand, outside the transport's retries: the
   * base URL, the token, the smallest query's path, the list envelope and the idle timeout.
   */
  checkTarget(): CheckTarget {
    return {
      baseUrl: this.baseUrl,
      token: this.options.token,
      path: operations[queryOperation.Role].path,
      envelope: this.envelope,
      timeoutMs: this.options.timeoutMs,
      counter: this.scope.counter,
    };
  }

  metrics(): MetricsSnapshot {
    return this.transport.metrics.snapshot();
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /**
   * The same client (one transport, one rate limit, one pool) counting for a unit of work: its
   * requests and retries in `scope.counter`, the type issues of what it reads in `scope.tally`.
   */
  scoped(scope: WorkScope): OhsClient {
    return new OhsClient(this.options, scope, this.transport);
  }

  /** Every request of this client, counted for its unit of work. */
  private send(req: SendOptions): Promise<Reply> {
    return this.transport.send({ ...req, counter: this.scope.counter });
  }

  // Query operations (1 to 4).

  async query<R extends QueryResource>(
    resource: R,
    body: QueryBody<R> = {},
    call: CallOptions = {},
  ): Promise<ListResult<R>> {
    const op = queryOperation[resource];
    const { filters, ...rest } = body;
    const sent = { ...filters, ...rest };
    const reply = await this.send({
      method: 'POST',
      path: operations[op].path,
      body: sent,
      idempotent: true,
      signal: call.signal,
      notJsonIsFinal: call.notJsonIsFinal,
    });
    const list = this.unwrap<R>(reply.body, 'POST', operations[op].path);
    // A page longer than asked for is not a page of this request: a service ignoring pageSize
    // (400,000 records where 500 were asked) would otherwise be taken for a short listing.
    const asked = (sent as { pageSize?: unknown }).pageSize;
    if (typeof asked === 'number' && list.records.length > asked) {
      throw new ProtocolError(`a page of ${list.records.length} records where pageSize ${asked} was asked`, {
        method: 'POST',
        path: operations[op].path,
      });
    }
    this.checkRecords(resource, list.records, 'POST', operations[op].path);
    return list;
  }

  queryHsVendor(body: QueryBody<'HsVendor'> = {}) {
    return this.query('HsVendor', body);
  }
  queryOrderItem(body: QueryBody<'OrderItem'> = {}) {
    return this.query('OrderItem', body);
  }
  queryTenant(body: QueryBody<'Tenant'> = {}) {
    return this.query('Tenant', body);
  }
  queryRole(body: QueryBody<'Role'> = {}) {
    return this.query('Role', body);
  }

  /**
   * Every record of a query resource in an id range, page by page: `id greaterThan <last>`
   * sorted by id ascending, so records inserted or deleted while we page are neither skipped
   * nor repeated. Ends on an empty page or when the service's total is reached, never on a
   * short page (the service may cap pageSize without saying so).
   */
  async *scan<R extends QueryResource>(
    resource: R,
    options: ScanOptions<R> = {},
  ): AsyncGenerator<ScanPage<R>> {
    const path = operations[queryOperation[resource]].path;
    const maxPages = options.maxPages ?? 1_000_000;
    const fetchAfter = (last: number | undefined) => {
      const items: FilterItem<FieldOf<R>>[] = [...(options.where ?? [])];
      if (last !== undefined) items.push(where('id', 'greaterThan', last) as FilterItem<FieldOf<R>>);
      if (options.atMost !== undefined)
        items.push(where('id', 'lessThanOrEqualTo', options.atMost) as FilterItem<FieldOf<R>>);
      const page = this.query(
        resource,
        {
          ...(items.length > 0 ? { advancedFilter: and(...items) } : {}),
          return: options.fields ?? fieldsOf(resource),
          isAdditionalData: options.fields === undefined,
          sortBy: 'id' as FieldOf<R>,
          sortDirection: 'asc',
          page: 1,
          pageSize: options.pageSize ?? this.pageSize,
        },
        { signal: options.signal },
      );
      // Handled here too, so a prefetch the consumer never awaits (it stopped) is no unhandled rejection.
      page.catch(() => undefined);
      return page;
    };
    let last = options.after;
    let pending = fetchAfter(last);
    for (let n = 0; n < maxPages; n++) {
      const { records, total } = await pending;
      if (records.length === 0) return;
      let lastId = last ?? Number.NEGATIVE_INFINITY;
      for (const r of records) {
        const id = r.id;
        if (typeof id !== 'number' || !(id > lastId)) {
          throw new ProtocolError(
            `ids not rising past ${String(lastId)} (got ${JSON.stringify(id)}): the service ignored the id filter or sort`,
            { method: 'POST', path },
          );
        }
        lastId = id;
      }
      const more = !(total !== undefined && total <= records.length);
      // The next page is asked for before this one is handed over, so the service works on it
      // while the consumer (the mirror's write of this page) works on this one.
      if (more && options.prefetch !== false) pending = fetchAfter(lastId);
      yield { records, total, lastId };
      if (!more) return;
      if (options.prefetch === false) pending = fetchAfter(lastId);
      last = lastId;
    }
    throw new ProtocolError(`listing did not end after ${maxPages} pages`, { method: 'POST', path });
  }

  // Read and list operations.

  /** The query string of 'all' per resource, worked out once (every GET of an id stream uses it). */
  private readonly allQuery = new Map<string, string>();

  private selectionQuery<R extends ResourceName>(
    resource: R,
    selection: Selection<R> | undefined,
    byId = false,
  ): string {
    if (selection === undefined) return '';
    if (selection === 'all') {
      const key = `${resource}${byId ? ' by id' : ''}`;
      let query = this.allQuery.get(key);
      if (query === undefined) {
        query = this.buildSelectionQuery(resource, selection, byId);
        this.allQuery.set(key, query);
      }
      return query;
    }
    return this.buildSelectionQuery(resource, selection, byId);
  }

  private buildSelectionQuery<R extends ResourceName>(
    resource: R,
    selection: Selection<R>,
    byId: boolean,
  ): string {
    const fields = selection === 'all' ? allFields(resources[resource].spec) : selection.fields;
    // 'all' by id asks the declared fields alone: the interface then answers those and `id`, so
    // an answer carrying anything else is no record of the resource (get).
    const additional = selection === 'all' ? !byId : (selection.isAdditionalData ?? false);
    const params = new URLSearchParams({ [this.fieldsParam]: fields.join(',') });
    if (additional) params.set('isAdditionalData', 'true');
    return `?${params.toString()}`;
  }

  /**
   * The record of `id`, which must be one of the resource: the id asked, and nothing but the
   * fields the resource declares, each of its declared type (foreignProblem); anything else is a
   * ProtocolError and nothing of it is returned. Asks the declared fields ('all', the default)
   * without `isAdditionalData`, so a service keeping to the interface answers those alone.
   */
  async get<R extends GetResource>(
    resource: R,
    id: number | string,
    selection: Selection<R> = 'all',
    call: CallOptions = {},
  ): Promise<RecordOf<R>> {
    const op = getOperation[resource];
    const path = `${pathWithId(op, id)}${this.selectionQuery(resource, selection, true)}`;
    const reply = await this.send({
      method: 'GET',
      path,
      idempotent: true,
      signal: call.signal,
    });
    const record = this.record<R>(reply.body, 'GET', path);
    // The record must be the one asked for: a service answering 200 for any id (or 200 with
    // `{"error":"not found"}`) would otherwise turn every probe into a row.
    const { spec } = resources[resource];
    const noId = idProblem(spec, record);
    if (noId !== undefined) throw new ProtocolError(`${noId}, not stored`, { method: 'GET', path });
    if (String(record.id) !== String(id))
      throw new ProtocolError(`asked for id ${id}, got the record of id ${String(record.id)}`, {
        method: 'GET',
        path,
      });
    const foreign = foreignProblem(spec, record);
    if (foreign !== undefined)
      throw new ProtocolError(`${foreign}: no ${resource} record, not stored`, { method: 'GET', path });
    tallyTypeIssues(spec, record, this.scope.tally);
    return record;
  }

  getApplicant(id: number, selection?: Selection<'Applicant'>) {
    return this.get('Applicant', id, selection);
  }
  getInvoice(id: string, selection?: Selection<'Invoice'>) {
    return this.get('Invoice', id, selection);
  }
  getStaff(id: number, selection?: Selection<'Staff'>) {
    return this.get('Staff', id, selection);
  }

  /** A whole list (every page of `listInPages` kept). */
  async list<R extends ListResource>(resource: R, selection?: Selection<R>): Promise<ListResult<R>> {
    const records: RecordOf<R>[] = [];
    const { total } = await this.listInPages(resource, selection, async (page) => {
      for (const r of page) records.push(r);
    });
    return { records, total };
  }

  /**
   * A list operation (no paging in the interface, so one answer of any size), parsed as a stream
   * record by record (list-stream.ts) and handed to `onPage` in pages of `pageSize`: memory is a
   * page, not the list, and no byte cap applies. A retried attempt (a body cut short) starts the
   * list over: `onPage` may see a record twice, so it must be idempotent (the sync stages pages).
   */
  async listInPages<R extends ListResource>(
    resource: R,
    selection: Selection<R> | undefined,
    onPage: (records: RecordOf<R>[]) => Promise<void>,
    pageSize = this.pageSize,
  ): Promise<{ count: number; total: number | undefined }> {
    const op = ({ OrgMonth: 'listOrgMonth', User: 'listUser' } satisfies Record<ListResource, OperationName>)[
      resource
    ];
    const path = `${operations[op].path}${this.selectionQuery(resource, selection)}`;
    const sink = new ListStream(
      async (page) => {
        this.checkRecords(resource, page, 'GET', path);
        await onPage(page as RecordOf<R>[]);
      },
      pageSize,
      this.envelope.key,
    );
    await this.send({ method: 'GET', path, idempotent: true, sink });
    const top = sink.top;
    const error = errorMember(top);
    if (error !== undefined)
      throw new ProtocolError(`not a list response: ${error}`, { method: 'GET', path });
    const keys = this.envelope.totalKey !== undefined ? [this.envelope.totalKey, ...totalKeys] : totalKeys;
    const totalKey = keys.find((k) => typeof top[k] === 'number' && Number.isFinite(top[k]));
    return { count: sink.count, total: totalKey === undefined ? undefined : (top[totalKey] as number) };
  }

  listOrgMonth(selection?: Selection<'OrgMonth'>) {
    return this.list('OrgMonth', selection);
  }
  listUser(selection?: Selection<'User'>) {
    return this.list('User', selection);
  }

  // Writes. Creates are never retried after an unknown outcome (OutcomeUnknownError).

  async createPayment(body: PaymentBody): Promise<RecordOf<'Payment'>> {
    return this.write<'Payment'>('POST', operations.createPayment.path, body, false);
  }
  async createPerson(body: PersonCreateBody): Promise<RecordOf<'Person'>> {
    return this.write<'Person'>('POST', operations.createPerson.path, body, false);
  }
  async createOrg(body: OrgCreateBody): Promise<RecordOf<'Org'>> {
    return this.write<'Org'>('POST', operations.createOrg.path, body, false);
  }
  /** `idempotent: false` for a body whose nested arrays the service appends: never resent blindly. */
  async updatePerson(id: number, body: PersonUpdateBody, idempotent = true): Promise<RecordOf<'Person'>> {
    return this.write<'Person'>('PATCH', pathWithId('updatePerson', id), body, idempotent);
  }
  async updateApplicant(
    id: number,
    body: ApplicantUpdateBody,
    idempotent = true,
  ): Promise<RecordOf<'Applicant'>> {
    return this.write<'Applicant'>('PATCH', pathWithId('updateApplicant', id), body, idempotent);
  }

  /**
   * Deletes a person permanently. The service may answer 204, or 200 with or without a body;
   * the deleted record is returned when one came. A retried DELETE that finds the person gone
   * (404 after an earlier attempt whose reply was lost) counts as done.
   */
  async deletePerson(id: number): Promise<RecordOf<'Person'> | undefined> {
    const path = pathWithId('deletePerson', id);
    const reply = await this.send({
      method: 'DELETE',
      path,
      idempotent: true,
      goneMeansDone: true,
    });
    if (reply.body === undefined || reply.status === 404) return undefined;
    return this.record<'Person'>(reply.body, 'DELETE', path);
  }

  private async write<R extends ResourceName>(
    method: 'POST' | 'PATCH',
    path: string,
    body: unknown,
    idempotent: boolean,
  ): Promise<RecordOf<R>> {
    const reply = await this.send({ method, path, body, idempotent });
    return this.record<R>(reply.body, method, path);
  }

  private unwrap<R extends ResourceName>(body: unknown, method: string, path: string): ListResult<R> {
    const list = unwrapList(body, this.envelope);
    if (typeof list === 'string')
      throw new ProtocolError(`not a list response: ${list}`, { method, path, detail: body });
    return { records: list.records as RecordOf<R>[], total: list.total };
  }

  /**
   * Records read from the service: each must carry an id that can identify it (else a protocol
   * error, never a row); fields of the wrong type are counted (validate-record.ts), the record kept.
   */
  private checkRecords(
    resource: ResourceName,
    records: readonly Record<string, unknown>[],
    method: string,
    path: string,
  ): void {
    const { spec } = resources[resource];
    records.forEach((r, i) => {
      const problem = idProblem(spec, r);
      if (problem !== undefined) {
        const where = records.length > 1 ? ` (record ${i + 1} of ${records.length})` : '';
        throw new ProtocolError(`${problem}${where}, not stored`, { method, path });
      }
      tallyTypeIssues(spec, r, this.scope.tally);
    });
  }

  private record<R extends ResourceName>(body: unknown, method: string, path: string): RecordOf<R> {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ProtocolError('expected a JSON object', { method, path, detail: body });
    }
    return body as RecordOf<R>;
  }
}

const queryOperation = {
  HsVendor: 'queryHsVendor',
  OrderItem: 'queryOrderItem',
  Tenant: 'queryTenant',
  Role: 'queryRole',
} as const satisfies Record<QueryResource, OperationName>;

const getOperation = {
  Applicant: 'getApplicant',
  Invoice: 'getInvoice',
  Staff: 'getStaff',
} as const satisfies Record<GetResource, OperationName>;

function pathWithId(op: OperationName, id: number | string): string {
  return operations[op].path.replace('{id}', encodeURIComponent(String(id)));
}
