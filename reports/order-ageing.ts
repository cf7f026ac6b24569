import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../src/mirror/index.js';
import type { Column, Row, Sheet } from '../src/render/types.js';
import { formatInstant, HOUR, parseInstant } from './dates.js';
import { externalSort } from './external-sort.js';
import { orgNames } from './org-names.js';
import {
  boolOption,
  commonParams,
  enumOption,
  intOption,
  listOption,
  numberOption,
  parseOptions,
} from './params.js';
import { lastSyncLines } from './sync-info.js';
import type { ReportContext, ReportDefinition } from './types.js';
import { asBoolean, asInteger, asText, compareOrgs, listSome } from './values.js';

/**
 * Order status ageing (REPORTS.md 3): open order items by how long they have existed and how
 * long they have been in their current status, from the status history the mirror records at
 * each poll. The order items are streamed (a million fit in bounded memory): one pass computes
 * each row and the summaries, an external sort puts the rows in the detail order.
 */
const REPORT = 'order-ageing';

export const stages = [
  'ORDERED',
  'COLLECTED',
  'AT_LAB',
  'MRO',
  'COMPLETE',
  'CANCELLED',
  'EXPIRED',
  'OTHER',
] as const;
export type Stage = (typeof stages)[number];
const terminalStages: ReadonlySet<Stage> = new Set(['COMPLETE', 'CANCELLED', 'EXPIRED']);

const stageOption = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[- ]/g, '_') : v),
  enumOption(stages),
);

export interface StageOf {
  stage: Stage;
  terminal: boolean;
}

/** The sandbox's (and a typical service's) status names [K]; options.statusStage adds or overrides. */
export const defaultStatusStage: Readonly<Record<string, StageOf>> = {
  Ordered: { stage: 'ORDERED', terminal: false },
  Scheduled: { stage: 'ORDERED', terminal: false },
  Collected: { stage: 'COLLECTED', terminal: false },
  'At Lab': { stage: 'AT_LAB', terminal: false },
  'MRO Review': { stage: 'MRO', terminal: false },
  Completed: { stage: 'COMPLETE', terminal: true },
  Cancelled: { stage: 'CANCELLED', terminal: true },
  Expired: { stage: 'EXPIRED', terminal: true },
};

/** Warn / stuck hours by stage (REPORTS.md 3.2); terminal stages have none. */
export const defaultThresholds: Readonly<Partial<Record<Stage, { warn: number; stuck: number }>>> = {
  ORDERED: { warn: 24, stuck: 72 },
  COLLECTED: { warn: 24, stuck: 48 },
  AT_LAB: { warn: 48, stuck: 120 },
  MRO: { warn: 72, stuck: 240 },
  OTHER: { warn: 72, stuck: 168 },
};

export const orderAgeingOptions = z.object({
  /** Terminal items too (completed, cancelled, expired). @default false */
  includeTerminal: boolOption().default(false),
  /** Only these stages (a terminal stage named here is included without includeTerminal). */
  stages: listOption(stageOption).optional(),
  /** Only products whose name contains this text (case-insensitive). */
  product: z.string({ error: 'expected text' }).optional(),
  /** Status name (case-insensitive) → stage, or {stage, terminal}; merged over the defaults. */
  statusStage: z
    .record(
      z.string(),
      z.preprocess(
        (v) => (typeof v === 'string' ? { stage: v } : v),
        z.object(
          { stage: stageOption, terminal: boolOption().optional() },
          { error: 'expected a stage or {stage, terminal}' },
        ),
      ),
      { error: 'expected an object of status name to stage' },
    )
    .optional(),
  /** Warn / stuck hours per stage, over the defaults. */
  thresholds: z
    .partialRecord(
      stageOption,
      z.object(
        { warn: numberOption(0, 100_000), stuck: numberOption(0, 100_000) },
        { error: 'expected {warn, stuck}' },
      ),
    )
    .optional(),
  /** The sync's poll interval: history first seen within it of creation means "since creation". @default 24 */
  pollIntervalHours: numberOption(0, 24 * 365).default(24),
  /** Rows sorted in memory at once before spilling to a temporary file. @default 50000 */
  sortChunkRows: intOption(2, 10_000_000).default(50_000),
});

export type OrderAgeingOptions = z.output<typeof orderAgeingOptions>;

/** Half-open hour buckets of both ages. */
export const ageBuckets = [
  { key: 'lt1d', label: '<1d', below: 24 },
  { key: 'd1_2', label: '1-2d', below: 48 },
  { key: 'd2_3', label: '2-3d', below: 72 },
  { key: 'd3_7', label: '3-7d', below: 168 },
  { key: 'd7_14', label: '7-14d', below: 336 },
  { key: 'd14_30', label: '14-30d', below: 720 },
  { key: 'd30Plus', label: '30d+', below: Number.POSITIVE_INFINITY },
] as const;

export function bucketOf(ms: number): (typeof ageBuckets)[number] {
  return ageBuckets.find((b) => ms < b.below * HOUR) ?? ageBuckets[6];
}

export const orderAgeingColumns: Column[] = [
  { key: 'orderItemId', title: 'Order item', type: 'integer', width: 11 },
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 30 },
  { key: 'product', title: 'Product', type: 'string', width: 24 },
  { key: 'person', title: 'Person', type: 'string', width: 22 },
  { key: 'status', title: 'Status', type: 'string', width: 14 },
  { key: 'stage', title: 'Stage', type: 'string', width: 10 },
  { key: 'createdAt', title: 'Created', type: 'datetime', width: 20 },
  { key: 'ageHours', title: 'Age (hours)', type: 'number', decimals: 1, width: 10 },
  { key: 'ageBucket', title: 'Age bucket', type: 'string', width: 8 },
  { key: 'statusSince', title: 'In status since', type: 'datetime', width: 20 },
  { key: 'sinceIsLowerBound', title: 'Since is a lower bound (≥)', type: 'boolean', width: 9 },
  { key: 'timeInStatusHours', title: 'Time in status (hours)', type: 'number', decimals: 1, width: 11 },
  { key: 'statusBucket', title: 'Time-in-status bucket', type: 'string', width: 10 },
  { key: 'flag', title: 'Flag', type: 'string', width: 7 },
  { key: 'dataFlags', title: 'Data flags', type: 'string', width: 16 },
  { key: 'parentOrderItemId', title: 'Parent order item', type: 'integer', width: 11 },
  { key: 'orderedBy', title: 'Ordered by', type: 'string', width: 16 },
];
const columnKeys = orderAgeingColumns.map((c) => c.key);

type Flag = 'STUCK' | 'WARN' | 'OK';
const flagRank: Record<Flag, number> = { STUCK: 0, WARN: 1, OK: 2 };

/** One computed row as sorted (and spilled): rank, ms in status, ms of age, id, cell values. */
type Sortable = [number, number, number, number, (string | number | boolean | null)[]];

function compareSortable(a: Sortable, b: Sortable): number {
  return a[0] - b[0] || b[1] - a[1] || b[2] - a[2] || a[3] - b[3];
}

const round1 = (ms: number) => Math.round(ms / (HOUR / 10)) / 10;

/** Counts of values in tenths of an hour: exact medians of the shown values in bounded memory. */
class Distribution {
  private readonly counts = new Map<number, number>();
  n = 0;
  max: number | null = null;

  add(hours: number): void {
    const tenths = Math.round(hours * 10);
    this.counts.set(tenths, (this.counts.get(tenths) ?? 0) + 1);
    this.n++;
    this.max = this.max === null ? hours : Math.max(this.max, hours);
  }

  merge(other: Distribution): void {
    for (const [k, c] of other.counts) this.counts.set(k, (this.counts.get(k) ?? 0) + c);
    this.n += other.n;
    if (other.max !== null) this.max = this.max === null ? other.max : Math.max(this.max, other.max);
  }

  median(): number | null {
    if (this.n === 0) return null;
    const keys = [...this.counts.keys()].sort((a, b) => a - b);
    const nth = (k: number) => {
      let seen = 0;
      for (const key of keys) {
        seen += this.counts.get(key) ?? 0;
        if (seen >= k) return key;
      }
      return keys[keys.length - 1] as number;
    };
    const lo = nth(Math.floor((this.n + 1) / 2));
    const hi = nth(Math.floor(this.n / 2) + 1);
    return (lo + hi) / 20;
  }
}

interface StatusTotals {
  status: string | null;
  stage: Stage;
  count: number;
  buckets: Map<string, number>;
  age: Distribution;
  inStatus: Distribution;
  warn: number;
  stuck: number;
}

interface OrgTotals {
  orgId: number | null;
  org: string | null;
  count: number;
  stages: Map<Stage, number>;
  warn: number;
  stuck: number;
  oldest: number | null;
}

const stageKey: Record<Stage, string> = {
  ORDERED: 'ordered',
  COLLECTED: 'collected',
  AT_LAB: 'atLab',
  MRO: 'mro',
  OTHER: 'other',
  COMPLETE: 'complete',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
};
const stageOrder: Stage[] = [
  'ORDERED',
  'COLLECTED',
  'AT_LAB',
  'MRO',
  'OTHER',
  'COMPLETE',
  'CANCELLED',
  'EXPIRED',
];

const norm = (s: string | null) => (s === null ? '' : s.trim().toLowerCase());

function itemQuery(db: Kysely<Database>, orgIds: number[], excludedNames: string[]) {
  let q = db
    .selectFrom('orderitem as o')
    .leftJoin('orderitem_status_history as h', (join) =>
      join.on((eb) =>
        eb(
          'h.id',
          '=',
          eb
            .selectFrom('orderitem_status_history as hx')
            .select((e) => e.fn.max('hx.id').as('max_id'))
            .whereRef('hx.orderitem_id', '=', 'o.id'),
        ),
      ),
    )
    .select((eb) => [
      'o.id',
      'o.OrgId',
      'o.c_org',
      'o.c_productName',
      'o.c_personNameFirst',
      'o.c_personNameLast',
      'o.c_currentStatusCodeName',
      'o.CurrentStatusId',
      'o.CreationTimestamp',
      'o.isNotModifiable',
      'o.Parent_OrderItemId',
      'o.orderedBy',
      'o.synced_at',
      'h.id as h_id',
      'h.status_id as h_status_id',
      'h.status_name as h_status_name',
      'h.first_seen_at as h_first_seen_at',
      eb
        .exists(
          eb
            .selectFrom('orderitem_status_history as hp')
            .select('hp.id')
            .whereRef('hp.orderitem_id', '=', 'o.id')
            .whereRef('hp.id', '<', 'h.id'),
        )
        .as('h_prior'),
    ])
    .where('o.deleted_at', 'is', null);
  if (orgIds.length > 0) q = q.where('o.OrgId', 'in', orgIds);
  if (excludedNames.length > 0)
    q = q.where((eb) =>
      eb.or([
        eb('o.c_currentStatusCodeName', 'is', null),
        eb('o.c_currentStatusCodeName', 'not in', excludedNames),
      ]),
    );
  return q.orderBy('o.id');
}

async function run(ctx: ReportContext) {
  const { db, params } = ctx;
  const common = commonParams(REPORT, params);
  const parsed = parseOptions(REPORT, orderAgeingOptions, params.options);
  const opts = parsed.options;
  const fixedWarnings = parsed.unknown.map((k) => `Option ${k} is not an option of any report: ignored`);
  const asOf = common.asOfMs;
  const poll = opts.pollIntervalHours * HOUR;

  const mapping = new Map<string, StageOf & { name: string }>();
  for (const [name, s] of Object.entries(defaultStatusStage)) mapping.set(norm(name), { ...s, name });
  for (const [name, s] of Object.entries(opts.statusStage ?? {}))
    mapping.set(norm(name), { name, stage: s.stage, terminal: s.terminal ?? terminalStages.has(s.stage) });
  const thresholds = { ...defaultThresholds, ...(opts.thresholds ?? {}) };
  const wanted = opts.stages === undefined ? null : new Set<Stage>(opts.stages);
  const includes = (stage: Stage, terminal: boolean) =>
    wanted !== null ? wanted.has(stage) : !terminal || opts.includeTerminal;
  // Exact names of excluded stages are left out in SQL (most of a large mirror is completed).
  const excludedNames = [...mapping.values()]
    .filter((s) => !includes(s.stage, s.terminal))
    .map((s) => s.name);
  const product = opts.product === undefined || opts.product === '' ? null : opts.product.toLowerCase();
  const showTerminal =
    opts.includeTerminal || (wanted !== null && [...wanted].some((s) => terminalStages.has(s)));

  const names = await orgNames(db);
  const syncLines = await lastSyncLines(db, ['orderitem', 'invoice']);

  // Summaries, filled while the detail streams (reset by every iteration of it).
  let byStatus = new Map<string, StatusTotals>();
  let byOrg = new Map<string, OrgTotals>();
  let unmapped = new Map<string, number>();
  let createdAfter: string[] = [];
  let badCreated: string[] = [];
  let noHistory = 0;
  let sinceAfter = 0;
  let detailRows = 0;

  async function* computed(): AsyncGenerator<Sortable> {
    for await (const r of itemQuery(db, common.orgIds, excludedNames).stream(1000)) {
      const id = asInteger(r.id) ?? 0;
      const status = asText(r.c_currentStatusCodeName) ?? asText(r.h_status_name);
      const mapped = mapping.get(norm(status));
      const stage: Stage = mapped?.stage ?? 'OTHER';
      const terminal = mapped === undefined ? asBoolean(r.isNotModifiable) : mapped.terminal;
      if (!includes(stage, terminal)) continue;
      const productName = asText(r.c_productName);
      if (product !== null && !(productName ?? '').toLowerCase().includes(product)) continue;
      if (mapped === undefined) {
        const key = status ?? '(no status)';
        unmapped.set(key, (unmapped.get(key) ?? 0) + 1);
      }
      const dataFlags: string[] = [];
      const created = parseInstant(r.CreationTimestamp, common.timezone);
      let ageMs: number | null = null;
      if (created === null) {
        dataFlags.push('BAD_CREATED');
        badCreated.push(String(id));
      } else {
        ageMs = asOf - created;
        if (ageMs < 0) {
          ageMs = 0;
          dataFlags.push('DATA_CHECK');
          createdAfter.push(String(id));
        }
      }
      // The latest history row counts when it is the current status (by id, else by name).
      const hStatusId = asInteger(r.h_status_id);
      const currentId = asInteger(r.CurrentStatusId);
      const matches =
        r.h_id !== null &&
        (hStatusId !== null && currentId !== null
          ? hStatusId === currentId
          : norm(asText(r.h_status_name)) === norm(status));
      let since: number | null;
      let lowerBound = false;
      if (matches && asBoolean(r.h_prior)) since = parseInstant(r.h_first_seen_at, 'UTC');
      else {
        // History starts in the current status (or has none of it: then the last sync saw it).
        const observed = parseInstant(matches ? r.h_first_seen_at : r.synced_at, 'UTC');
        if (!matches) {
          dataFlags.push('NO_HISTORY');
          noHistory++;
        }
        if (observed !== null && created !== null && observed - created <= poll) since = created;
        else {
          since = observed;
          lowerBound = observed !== null;
        }
      }
      let inStatusMs: number | null = since === null ? null : asOf - since;
      if (inStatusMs !== null && inStatusMs < 0) {
        inStatusMs = 0;
        dataFlags.push('SINCE_AFTER_AS_OF');
        sinceAfter++;
      }
      let flag: Flag | null = null;
      if (!terminal) {
        const t = thresholds[stage];
        flag =
          t === undefined || inStatusMs === null
            ? 'OK'
            : inStatusMs >= t.stuck * HOUR
              ? 'STUCK'
              : inStatusMs >= t.warn * HOUR
                ? 'WARN'
                : 'OK';
      }
      const orgId = asInteger(r.OrgId);
      const org = (orgId === null ? undefined : names.get(orgId)) ?? asText(r.c_org);
      const person = [asText(r.c_personNameFirst), asText(r.c_personNameLast)]
        .filter((x) => x !== null)
        .join(' ');
      const ageHours = ageMs === null ? null : round1(ageMs);
      const inStatusHours = inStatusMs === null ? null : round1(inStatusMs);
      const row: Row = {
        orderItemId: id,
        orgId,
        org,
        product: productName,
        person: person === '' ? null : person,
        status,
        stage,
        createdAt: created === null ? null : formatInstant(created),
        ageHours,
        ageBucket: ageMs === null ? null : bucketOf(ageMs).label,
        statusSince: since === null ? null : formatInstant(since),
        sinceIsLowerBound: lowerBound,
        timeInStatusHours: inStatusHours,
        statusBucket: inStatusMs === null ? null : bucketOf(inStatusMs).label,
        flag,
        dataFlags: dataFlags.length === 0 ? null : dataFlags.join(';'),
        parentOrderItemId: asInteger(r.Parent_OrderItemId),
        orderedBy: asText(r.orderedBy),
      };
      tally(row, stage, flag, ageHours, inStatusHours, inStatusMs);
      yield [
        flag === null ? 3 : flagRank[flag],
        inStatusMs ?? -1,
        ageMs ?? -1,
        id,
        columnKeys.map((k) => (row[k] === undefined ? null : (row[k] as string | number | boolean | null))),
      ];
    }
  }

  function tally(
    row: Row,
    stage: Stage,
    flag: Flag | null,
    ageHours: number | null,
    inStatusHours: number | null,
    inStatusMs: number | null,
  ): void {
    detailRows++;
    const status = (row.status as string | null) ?? null;
    const sk = `${stage}\u0000${status ?? ''}`;
    const s = byStatus.get(sk) ?? {
      status,
      stage,
      count: 0,
      buckets: new Map<string, number>(),
      age: new Distribution(),
      inStatus: new Distribution(),
      warn: 0,
      stuck: 0,
    };
    byStatus.set(sk, s);
    s.count++;
    if (inStatusMs !== null) {
      const b = bucketOf(inStatusMs).key;
      s.buckets.set(b, (s.buckets.get(b) ?? 0) + 1);
    }
    if (ageHours !== null) s.age.add(ageHours);
    if (inStatusHours !== null) s.inStatus.add(inStatusHours);
    if (flag === 'WARN') s.warn++;
    if (flag === 'STUCK') s.stuck++;
    const orgId = (row.orgId as number | null) ?? null;
    const ok = String(orgId);
    const o = byOrg.get(ok) ?? {
      orgId,
      org: (row.org as string | null) ?? null,
      count: 0,
      stages: new Map<Stage, number>(),
      warn: 0,
      stuck: 0,
      oldest: null,
    };
    byOrg.set(ok, o);
    o.count++;
    o.stages.set(stage, (o.stages.get(stage) ?? 0) + 1);
    if (flag === 'WARN') o.warn++;
    if (flag === 'STUCK') o.stuck++;
    if (ageHours !== null) o.oldest = o.oldest === null ? ageHours : Math.max(o.oldest, ageHours);
  }

  async function* detail(): AsyncGenerator<Row> {
    byStatus = new Map();
    byOrg = new Map();
    unmapped = new Map();
    createdAfter = [];
    badCreated = [];
    noHistory = 0;
    sinceAfter = 0;
    detailRows = 0;
    for await (const s of externalSort(computed(), compareSortable, { chunkSize: opts.sortChunkRows })) {
      const row: Row = {};
      s[4].forEach((v, i) => {
        row[columnKeys[i] as string] = v;
      });
      yield row;
    }
  }

  const shownStages = stageOrder.filter((s) => !terminalStages.has(s) || showTerminal);
  const statusColumns: Column[] = [
    { key: 'status', title: 'Status', type: 'string', width: 16 },
    { key: 'stage', title: 'Stage', type: 'string', width: 10 },
    { key: 'count', title: 'Items', type: 'integer', width: 8 },
    ...ageBuckets.map(
      (b): Column => ({ key: b.key, title: `In status ${b.label}`, type: 'integer', width: 9 }),
    ),
    { key: 'medianAgeHours', title: 'Median age (h)', type: 'number', decimals: 1, width: 10 },
    { key: 'maxAgeHours', title: 'Max age (h)', type: 'number', decimals: 1, width: 10 },
    {
      key: 'medianTimeInStatusHours',
      title: 'Median time in status (h)',
      type: 'number',
      decimals: 1,
      width: 11,
    },
    { key: 'maxTimeInStatusHours', title: 'Max time in status (h)', type: 'number', decimals: 1, width: 11 },
    { key: 'warn', title: 'WARN', type: 'integer', width: 7 },
    { key: 'stuck', title: 'STUCK', type: 'integer', width: 7 },
  ];
  const orgColumns: Column[] = [
    { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
    { key: 'org', title: 'Org', type: 'string', width: 30 },
    { key: 'count', title: 'Items', type: 'integer', width: 8 },
    ...shownStages.map((s): Column => ({ key: stageKey[s], title: s, type: 'integer', width: 9 })),
    { key: 'warn', title: 'WARN', type: 'integer', width: 7 },
    { key: 'stuck', title: 'STUCK', type: 'integer', width: 7 },
    { key: 'oldestAgeHours', title: 'Oldest age (h)', type: 'number', decimals: 1, width: 10 },
  ];

  function summaries(): Sheet[] {
    const statusRow = (
      label: string | null,
      stage: Stage | null,
      s: Omit<StatusTotals, 'status' | 'stage'>,
    ): Row => {
      const row: Row = { status: label, stage, count: s.count };
      for (const b of ageBuckets) row[b.key] = s.buckets.get(b.key) ?? 0;
      row.medianAgeHours = s.age.median();
      row.maxAgeHours = s.age.max;
      row.medianTimeInStatusHours = s.inStatus.median();
      row.maxTimeInStatusHours = s.inStatus.max;
      row.warn = s.warn;
      row.stuck = s.stuck;
      return row;
    };
    const statuses = [...byStatus.values()].sort(
      (a, b) =>
        stageOrder.indexOf(a.stage) - stageOrder.indexOf(b.stage) ||
        norm(a.status).localeCompare(norm(b.status)),
    );
    const all = {
      count: 0,
      buckets: new Map<string, number>(),
      age: new Distribution(),
      inStatus: new Distribution(),
      warn: 0,
      stuck: 0,
    };
    for (const s of statuses) {
      all.count += s.count;
      for (const [k, n] of s.buckets) all.buckets.set(k, (all.buckets.get(k) ?? 0) + n);
      all.age.merge(s.age);
      all.inStatus.merge(s.inStatus);
      all.warn += s.warn;
      all.stuck += s.stuck;
    }
    const orgRow = (o: OrgTotals): Row => {
      const row: Row = { orgId: o.orgId, org: o.org, count: o.count };
      for (const s of shownStages) row[stageKey[s]] = o.stages.get(s) ?? 0;
      row.warn = o.warn;
      row.stuck = o.stuck;
      row.oldestAgeHours = o.oldest;
      return row;
    };
    const orgs = [...byOrg.values()].sort(compareOrgs);
    const total: OrgTotals = {
      orgId: null,
      org: 'Total',
      count: 0,
      stages: new Map(),
      warn: 0,
      stuck: 0,
      oldest: null,
    };
    for (const o of orgs) {
      total.count += o.count;
      for (const [s, n] of o.stages) total.stages.set(s, (total.stages.get(s) ?? 0) + n);
      total.warn += o.warn;
      total.stuck += o.stuck;
      if (o.oldest !== null)
        total.oldest = total.oldest === null ? o.oldest : Math.max(total.oldest, o.oldest);
    }
    return [
      {
        name: 'By status',
        columns: statusColumns,
        rows: [...statuses.map((s) => statusRow(s.status, s.stage, s)), statusRow('Total', null, all)],
      },
      { name: 'By org', columns: orgColumns, rows: [...orgs.map(orgRow), orgRow(total)] },
    ];
  }

  function warnings(): string[] {
    const out = [...fixedWarnings];
    for (const [name, n] of [...unmapped].sort((a, b) => b[1] - a[1]))
      out.push(
        `Status ${JSON.stringify(name)} (${n} item${n === 1 ? '' : 's'}) is not in statusStage: counted as OTHER`,
      );
    if (createdAfter.length > 0)
      out.push(
        `${createdAfter.length} item(s) created after the as-of instant: age 0 (DATA_CHECK): ${listSome(createdAfter)}`,
      );
    if (badCreated.length > 0)
      out.push(
        `${badCreated.length} item(s) with an unreadable CreationTimestamp: no age: ${listSome(badCreated)}`,
      );
    if (noHistory > 0)
      out.push(
        `${noHistory} item(s) have no status history of their current status (NO_HISTORY): time in status counts from their last sync, a lower bound`,
      );
    if (sinceAfter > 0)
      out.push(
        `${sinceAfter} item(s) entered their status after the as-of instant (SINCE_AFTER_AS_OF): the mirror holds only the present, so their time in status is 0`,
      );
    return out;
  }

  const mappingLine = [...mapping.values()]
    .map((s) => `${s.name} → ${s.stage}${s.terminal ? ' (terminal)' : ''}`)
    .join('; ');
  const thresholdLine = stageOrder
    .filter((s) => thresholds[s] !== undefined)
    .map((s) => `${s} ${thresholds[s]?.warn}/${thresholds[s]?.stuck}`)
    .join('; ');
  return {
    detail: { name: 'Order ageing', columns: orderAgeingColumns, rows: { [Symbol.asyncIterator]: detail } },
    summaries,
    warnings,
    about: (): [string, string][] => [
      ['As-of instant', formatInstant(asOf)],
      [
        'Status stages',
        `${mappingLine}; any other status → OTHER (terminal when the item is not modifiable)`,
      ],
      ['Thresholds (warn/stuck hours)', `${thresholdLine}; terminal stages have none`],
      [
        'Time in status',
        `From the status history recorded at each poll (error at most one poll interval, ${opts.pollIntervalHours} h). When the history starts in the current status more than one poll interval after creation, the time is a lower bound (sinceIsLowerBound, shown ≥); a lower bound can only raise the flag.`,
      ],
      [
        'Scope',
        `${opts.includeTerminal ? 'All items' : 'Open items (terminal stages excluded)'}${wanted === null ? '' : `; stages ${[...wanted].join(', ')}`}${product === null ? '' : `; product contains ${JSON.stringify(opts.product)}`}`,
      ],
      [
        'Limitation',
        'The mirror holds only the present: items and history as last synced; rows synced after the as-of instant are not excluded.',
      ],
      ['Org names', 'The latest c_org seen on the org’s order items and invoices'],
      ...syncLines,
      ['Detail rows', String(detailRows)],
    ],
  };
}

export const orderAgeing: ReportDefinition = {
  name: 'order-ageing',
  title: 'Order status ageing',
  description:
    'Open drug and alcohol order items by age and time in their current status (from the recorded status history), flagged WARN or STUCK against per-stage thresholds, with summaries per status and per org.',
  run,
};
