import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../mirror/index.js';
import type { Column, Row, Sheet } from '../render/types.js';
import { formatInstant, HOUR, localDateOf, parseInstant } from './dates.js';
import { externalSort } from './external-sort.js';
import {
  type ClassifiedItem,
  Classifier,
  defaultFamilies,
  defaultStatusCodeStage,
  defaultStatusStage,
  defaultThresholds,
  type Family,
  type Flag,
  norm,
  type Stage,
  type StageOf,
  stages,
  type Thresholds,
  terminalStages,
} from './order-ageing-classify.js';
import { itemQuery, lastOrderItemSync } from './order-ageing-query.js';
import { AgeingSummary, stageOrder } from './order-ageing-summary.js';
import { orgNames } from './org-names.js';
import {
  boolOption,
  type CommonParams,
  commonParams,
  enumOption,
  intOption,
  listOption,
  numberOption,
  parseOptions,
} from './params.js';
import { lastSyncLines } from './sync-info.js';
import type { ReportContext, ReportDefinition } from './types.js';
import { listSome } from './values.js';

/**
 * Order status ageing (REPORTS.md 3): open order items by how long they have existed and how
 * long they have been in their current status, from the status history the mirror records at
 * each poll. Three pieces: the query (order-ageing-query.ts) streams the items, the classifier
 * (order-ageing-classify.ts) turns each into a row, the summary (order-ageing-summary.ts) tallies
 * them; an external sort puts the rows in the detail order in bounded memory.
 */
const REPORT = 'order-ageing';

export {
  ageBuckets,
  bucketOf,
  defaultFamilies,
  defaultStatusStage,
  defaultThresholds,
  type Stage,
  type StageOf,
  stages,
} from './order-ageing-classify.js';

const stageOption = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase().replace(/[- ]/g, '_') : v),
  enumOption(stages),
);

const thresholdsOption = z.partialRecord(
  stageOption,
  z.object(
    { warn: numberOption(0, 100_000), stuck: numberOption(0, 100_000) },
    { error: 'expected {warn, stuck}' },
  ),
);

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
  /** Warn / stuck hours per stage of drug and alcohol tests, over the defaults. */
  thresholds: thresholdsOption.optional(),
  /**
   * Product families with their own thresholds, over the defaults (drug, alcohol): name →
   * {match: texts a product name contains, thresholds}. Items of no family are left out.
   */
  families: z
    .record(
      z.string(),
      z.object(
        {
          match: listOption(z.string().min(1, { error: 'expected text' })),
          thresholds: thresholdsOption.optional(),
        },
        { error: 'expected {match, thresholds}' },
      ),
      { error: 'expected an object of family name to {match, thresholds}' },
    )
    .optional(),
  /** The sync's poll interval: history first seen within it of creation means "since creation". @default 24 */
  pollIntervalHours: numberOption(0, 24 * 365).default(24),
  /** Rows sorted in memory at once before spilling to a temporary file. @default 50000 */
  sortChunkRows: intOption(2, 10_000_000).default(50_000),
});

export type OrderAgeingOptions = z.output<typeof orderAgeingOptions>;

/** The detail columns: REPORTS.md's CSV keys in order, then the others. */
export const orderAgeingColumns: Column[] = [
  { key: 'orderItemId', title: 'Order item', type: 'integer' },
  { key: 'orgId', title: 'Org id', type: 'integer' },
  { key: 'org', title: 'Org', type: 'string' },
  { key: 'product', title: 'Product', type: 'string' },
  { key: 'person', title: 'Person', type: 'string' },
  { key: 'status', title: 'Status', type: 'string' },
  { key: 'stage', title: 'Stage', type: 'string' },
  { key: 'createdAt', title: 'Created', type: 'datetime' },
  { key: 'ageHours', title: 'Age (hours)', type: 'number', decimals: 1 },
  { key: 'ageBucket', title: 'Age bucket', type: 'string' },
  { key: 'statusSince', title: 'In status since', type: 'datetime' },
  { key: 'sinceIsLowerBound', title: 'Since is a lower bound (≥)', type: 'boolean' },
  { key: 'timeInStatusHours', title: 'Time in status (hours)', type: 'number', decimals: 1 },
  { key: 'statusBucket', title: 'Time-in-status bucket', type: 'string' },
  { key: 'flag', title: 'Flag', type: 'string', alert: { red: ['STUCK'], amber: ['WARN'] } },
  { key: 'flagBasis', title: 'Flag basis', type: 'string' },
  { key: 'family', title: 'Product family', type: 'string' },
  { key: 'dataFlags', title: 'Data flags', type: 'string' },
  { key: 'parentOrderItemId', title: 'Parent order item', type: 'integer' },
  { key: 'orderedBy', title: 'Ordered by', type: 'string' },
  { key: 'ageDays', title: 'Age (days)', type: 'number', decimals: 1 },
  { key: 'timeInStatusDays', title: 'Time in status (days)', type: 'number', decimals: 1 },
  { key: 'ageFlag', title: 'Age flag (30d+ is never OK)', type: 'string', alert: { amber: ['30d+'] } },
];

/** The workbook's view: ages in days; the hour columns (the CSV's) grouped and collapsed. */
const printColumns = [
  'orderItemId',
  'org',
  'product',
  'person',
  'status',
  'stage',
  'createdAt',
  'statusSince',
  'statusBucket',
  'flag',
  'flagBasis',
  'ageDays',
  'timeInStatusDays',
  'ageFlag',
];
const columnKeys = orderAgeingColumns.map((c) => c.key);

const flagRank: Record<Flag, number> = { STUCK: 0, WARN: 1, OK: 2 };

/** One computed row as sorted (and spilled): rank, ms in status, ms of age, id, cell values. */
type Sortable = [number, number, number, number, (string | number | boolean | null)[]];

function compareSortable(a: Sortable, b: Sortable): number {
  return a[0] - b[0] || b[1] - a[1] || b[2] - a[2] || a[3] - b[3];
}

function sortable(c: ClassifiedItem): Sortable {
  return [
    c.flag === null ? 3 : flagRank[c.flag],
    c.inStatusMs ?? -1,
    c.ageMs ?? -1,
    c.id,
    columnKeys.map((k) => c.row[k] ?? null),
  ];
}

/**
 * The as-of instant (REPORTS.md 3.2): as given (`--as-of-time`); for a past date the end of that
 * day (`mirrorAsOf`, the instant the mirror is read as of); for today the start of the last
 * completed order item sync (the mirror knows nothing later: ageing to the end of the day would
 * add up to a day to every item).
 */
async function asOfInstant(
  db: Kysely<Database>,
  common: CommonParams,
  explicit: boolean,
  mirrorAsOf: string | undefined,
): Promise<{ ms: number; note: string; warning?: string }> {
  if (explicit) return { ms: common.asOfMs, note: 'as given (--as-of-time)' };
  const at = mirrorAsOf === undefined ? null : parseInstant(mirrorAsOf, 'UTC');
  if (at !== null)
    return {
      ms: at,
      note: `the end of ${common.asOfText} (${common.timezone}), the instant the mirror is read as of`,
    };
  const today = localDateOf(Date.now(), common.timezone);
  const isToday =
    today.year === common.asOf.year && today.month === common.asOf.month && today.day === common.asOf.day;
  if (!isToday) return { ms: common.asOfMs, note: `the end of ${common.asOfText} (${common.timezone})` };
  const last = await lastOrderItemSync(db, undefined);
  const lastMs = last === null ? null : parseInstant(last, 'UTC');
  if (lastMs === null || lastMs > common.asOfMs)
    return {
      ms: Math.min(Date.now(), common.asOfMs),
      note: 'now: the mirror records no completed order item sync',
      warning: 'No completed order item sync in the mirror: items are aged to the moment of the run',
    };
  return {
    ms: lastMs,
    note: `the start of the last completed order item sync (${formatInstant(lastMs)}): the mirror knows nothing later`,
  };
}

interface Setup {
  mapping: Map<string, StageOf & { name: string }>;
  codes: Map<string, StageOf & { name: string }>;
  generic: Thresholds;
  families: Map<string, Family>;
  includes: (stage: Stage, terminal: boolean) => boolean;
  excludedNames: string[];
  wanted: Set<Stage> | null;
  showTerminal: boolean;
}

function setup(opts: OrderAgeingOptions): Setup {
  const mapping = new Map<string, StageOf & { name: string }>();
  const codes = new Map<string, StageOf & { name: string }>();
  for (const [name, s] of Object.entries(defaultStatusStage)) mapping.set(norm(name), { ...s, name });
  for (const [code, s] of Object.entries(defaultStatusCodeStage)) codes.set(norm(code), { ...s, name: code });
  for (const [name, s] of Object.entries(opts.statusStage ?? {})) {
    const given = { name, stage: s.stage, terminal: s.terminal ?? terminalStages.has(s.stage) };
    mapping.set(norm(name), given);
    // A key naming a status code overrides that code's default.
    if (codes.has(norm(name))) codes.set(norm(name), given);
  }
  const base = { ...defaultThresholds, ...(opts.thresholds ?? {}) };
  const families = new Map<string, Family>();
  for (const [name, f] of Object.entries(defaultFamilies))
    families.set(name, { match: f.match, thresholds: base });
  for (const [name, f] of Object.entries(opts.families ?? {}))
    families.set(name, {
      match: f.match.map((m) => m.toLowerCase()),
      // A configured family's thresholds stand alone: a stage it does not name is never flagged.
      thresholds: f.thresholds ?? families.get(name)?.thresholds ?? base,
    });
  const wanted = opts.stages === undefined ? null : new Set<Stage>(opts.stages);
  const includes = (stage: Stage, terminal: boolean) =>
    wanted !== null ? wanted.has(stage) : !terminal || opts.includeTerminal;
  // Exact names of excluded stages are left out in SQL (most of a large mirror is completed).
  const excludedNames = [...mapping.values()]
    .filter((s) => !includes(s.stage, s.terminal))
    .map((s) => s.name);
  const showTerminal =
    opts.includeTerminal || (wanted !== null && [...wanted].some((s) => terminalStages.has(s)));
  return { mapping, codes, generic: base, families, includes, excludedNames, wanted, showTerminal };
}

function warningsOf(c: Classifier, rows: number, fixed: string[]): string[] {
  const out = [...fixed];
  if (rows === 0) out.push('No data for this as-of: no order item in the report');
  for (const [name, n] of [...c.unmapped].sort((a, b) => b[1] - a[1]))
    out.push(
      `Status ${JSON.stringify(name)} (${n} item${n === 1 ? '' : 's'}) is not in statusStage: counted as OTHER`,
    );
  if (c.createdAfter.length > 0)
    out.push(
      `${c.createdAfter.length} item(s) created after the as-of instant are not in the report: ${listSome(c.createdAfter)}`,
    );
  if (c.otherProducts.size > 0) {
    const list = [...c.otherProducts].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`);
    const n = [...c.otherProducts.values()].reduce((a, b) => a + b, 0);
    out.push(
      `${n} item(s) of products in no product family are aged on the generic thresholds (family generic; configure options.families for their own): ${listSome(list)}`,
    );
  }
  if (c.badCreated.length > 0)
    out.push(
      `${c.badCreated.length} item(s) with an unreadable CreationTimestamp: no age: ${listSome(c.badCreated)}`,
    );
  if (c.noHistory > 0)
    out.push(
      `${c.noHistory} item(s) have no status history of their current status (NO_HISTORY): time in status counts from their last sync, a lower bound`,
    );
  if (c.sinceAfter > 0)
    out.push(
      `${c.sinceAfter} item(s) entered their status, as the mirror saw it, after the as-of instant (SINCE_AFTER_AS_OF): their time in status is unknown (shown "unknown since the first sync", never 0); their age still flags them`,
    );
  return out;
}

/** The status mapping and the product families with their thresholds, as About lines. */
function setupLines(st: ReturnType<typeof setup>): { mappingLine: string; familyLine: string } {
  const mappingLine = [...st.mapping.values()]
    .map((s) => `${s.name} → ${s.stage}${s.terminal ? ' (terminal)' : ''}`)
    .join('; ');
  const familyLine = [...st.families]
    .map(([name, f]) => {
      const t = stageOrder
        .filter((s) => f.thresholds[s] !== undefined)
        .map((s) => `${s} ${f.thresholds[s]?.warn}/${f.thresholds[s]?.stuck}`)
        .join(', ');
      return `${name} (products containing ${f.match.join(' / ')}): ${t || 'no thresholds'}`;
    })
    .join('; ');
  return { mappingLine, familyLine };
}

async function run(ctx: ReportContext) {
  const { db, params } = ctx;
  const common = commonParams(REPORT, params);
  const parsed = parseOptions(REPORT, orderAgeingOptions, params.options);
  const opts = parsed.options;
  const fixedWarnings = parsed.unknown.map((k) => `Option ${k} is not an option of this report: ignored`);
  const instant = await asOfInstant(
    db,
    common,
    params.asOfTimestamp !== '' && params.asOfTimestamp !== undefined,
    params.mirrorAsOf,
  );
  if (instant.warning !== undefined) fixedWarnings.push(instant.warning);
  const st = setup(opts);
  const product = opts.product === undefined || opts.product === '' ? null : opts.product.toLowerCase();
  const at = params.mirrorAsOf;
  const names = await orgNames(db, at);
  const syncLines = await lastSyncLines(db, ['orderitem', 'invoice'], at);
  const shownStages = stageOrder.filter((s) => !terminalStages.has(s) || st.showTerminal);
  const settings = {
    asOfMs: instant.ms,
    pollMs: opts.pollIntervalHours * HOUR,
    timezone: common.timezone,
    mapping: st.mapping,
    codes: st.codes,
    generic: st.generic,
    families: st.families,
    includes: st.includes,
    product,
    names,
  };
  // Both are replaced by every pass over the detail (it can be read again).
  let classifier = new Classifier(settings);
  let summary = new AgeingSummary(shownStages);

  async function* computed(): AsyncGenerator<Sortable> {
    for await (const r of itemQuery(db, common.orgIds, st.excludedNames, at).stream(1000)) {
      const c = classifier.classify(r);
      if (c === null) continue;
      summary.add(c);
      yield sortable(c);
    }
  }

  async function* detail(): AsyncGenerator<Row> {
    classifier = new Classifier(settings);
    summary = new AgeingSummary(shownStages);
    for await (const s of externalSort(computed(), compareSortable, { chunkSize: opts.sortChunkRows })) {
      const row: Row = {};
      s[4].forEach((v, i) => {
        row[columnKeys[i] as string] = v;
      });
      yield row;
    }
  }

  const { mappingLine, familyLine } = setupLines(st);
  return {
    detail: {
      name: 'Order ageing',
      columns: orderAgeingColumns,
      rows: { [Symbol.asyncIterator]: detail },
      print: { columns: printColumns, titleColumns: 1 },
    },
    summaries: (): Sheet[] => summary.sheets(),
    warnings: () => warningsOf(classifier, summary.rows, fixedWarnings),
    about: (): [string, string][] => [
      ['As-of instant', `${formatInstant(instant.ms)}: ${instant.note}`],
      [
        'Status stages',
        `By status code (c_currentStatusCodeId) first: ${[...st.codes.values()].map((c) => `${c.name} → ${c.stage}`).join(', ')}; then by name: ${mappingLine}; any other status → OTHER (terminal when the item is not modifiable)`,
      ],
      [
        'Thresholds (warn/stuck hours) by product family',
        `${familyLine}; products of no family: generic (${Object.entries(st.generic)
          .map(([s, t]) => `${s} ${t?.warn}/${t?.stuck}`)
          .join(
            ', ',
          )}); terminal stages have none; an item 30 days old or more is never OK (at least WARN, basis "age 30d+")`,
      ],
      [
        'Time in status',
        `From the status history recorded at each poll (error at most one poll interval, ${opts.pollIntervalHours} h). When the history starts in the current status more than one poll interval after creation, the time is a lower bound (sinceIsLowerBound, shown ≥); a lower bound can only raise the flag.`,
      ],
      [
        'Flag basis',
        'history: a recorded change into the status; creation: in the status since creation (or, in the first stage ORDERED, STUCK because the age since creation reaches the stuck threshold); lower bound: from the first sighting; unknown since: a later stage whose age reaches the stuck threshold, at least WARN; unknown since the first sync: the mirror saw the status begin after the as-of instant, so the time in status is unknown (blank, bucket "unknown"), and the age decides; age 30d+: raised from OK by the age alone',
      ],
      [
        'Scope',
        `${opts.includeTerminal ? 'All items' : 'Open items (terminal stages excluded)'}${st.wanted === null ? '' : `; stages ${[...st.wanted].join(', ')}`}${product === null ? '' : `; product contains ${JSON.stringify(opts.product)}`}; items created after the as-of instant are left out`,
      ],
      [
        'Mirror read',
        at === undefined
          ? 'The present: items and status history as last synced'
          : `As known at ${at}: each item as the mirror held it then (its history), and only the statuses it had seen by then; a change that happened before that instant but was synced after it is not known`,
      ],
      ['Org names', 'The latest c_org seen on the org’s order items and invoices'],
      ...syncLines,
      ['Detail rows', String(summary.rows)],
      ['Created after the as-of instant (left out)', String(classifier.createdAfter.length)],
      [
        'Products in no family (aged on the generic thresholds)',
        String([...classifier.otherProducts.values()].reduce((a, b) => a + b, 0)),
      ],
      ['Time in status unknown (status seen first after the as-of instant)', String(classifier.unknownSince)],
      ['Raised from OK by an age of 30 days or more', String(classifier.raisedBy30Days)],
      [
        'Ages',
        'In days in the workbook (columns Age (days), Time in status (days)); the hour columns of the CSV are grouped (+) in the workbook',
      ],
    ],
  };
}

export const orderAgeing: ReportDefinition = {
  name: 'order-ageing',
  title: 'Order status ageing',
  description:
    'Open drug and alcohol order items by age and time in their current status (from the recorded status history), flagged WARN or STUCK against per-stage thresholds of their product family, with summaries per org and per status.',
  options: Object.keys(orderAgeingOptions.shape),
  run,
};
