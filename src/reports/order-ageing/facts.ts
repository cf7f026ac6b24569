import { HOUR } from '../../dates.js';
import { productKey } from '../core/run.js';
import { figuresKey } from '../core/run-key.js';
import type { ReportInput } from '../core/types.js';
import { type ClassifiedItem, Classifier, type ClassifierSettings, terminalStages } from './classify.js';
import type { OrderAgeingOptions } from './options.js';
import { itemQuery } from './query.js';
import { compareSortable, type Sortable, sortKey } from './rows.js';
import { type Setup, setup } from './setup.js';
import { warningsOf } from './warnings.js';

/** What the classifier of an order ageing pass reads: the instant, the stages, the families. */
export function classifierSettings(
  input: ReportInput<OrderAgeingOptions>,
  st: Setup,
): ClassifierSettings & { instant: { ms: number; note: string } } {
  const { params, common, opts, names } = input;
  // The instant the run stands at (dates.ts ReportTime): decided once for the run, never here.
  const instant = { ms: params.time.at, note: params.time.note };
  return {
    instant,
    asOfMs: instant.ms,
    pollMs: opts.pollIntervalHours * HOUR,
    timezone: common.timezone,
    mapping: st.mapping,
    codes: st.codes,
    generic: st.generic,
    families: st.families,
    includes: st.includes,
    product: opts.product === undefined || opts.product === '' ? null : opts.product.toLowerCase(),
    names,
  };
}

/** One employer's order items at the as-of instant, as the order ageing classifies them. */
export interface OrgOrders {
  orgId: number;
  org: string | null;
  /** Items not in a terminal stage (the rows of the default report). */
  open: number;
  onHold: number;
  stuck: number;
  /** The last drug or alcohol item created (terminal items included), or null. */
  lastDrugAlcohol: { id: number; product: string | null; createdAt: string } | null;
}

/** The order ageing's figures per employer over every item, terminal ones included. */
export interface OrderFacts {
  orgs: Map<number, OrgOrders>;
  /** The warnings of that pass (items left out, unmapped statuses, unreadable data). */
  warnings: string[];
}

/** The order ageing's facts of a run, built once for equal inputs (figuresKey). */
export const ORDER_FACTS = productKey<OrderFacts>('order-ageing-facts');

/**
 * The order ageing's per-employer figures of a run, over every item its stages map (terminal items
 * too: the last drug or alcohol order may be completed), with the order ageing's own default stages
 * and no product filter: one pass of its query and classifier, no detail sorted or written; made
 * once per run (`order-ageing-facts`) and handed on typed to the reports built on it (accounts at
 * risk).
 */
export function orderFacts(input: ReportInput<OrderAgeingOptions>): Promise<OrderFacts> {
  const opts: OrderAgeingOptions = {
    ...input.opts,
    stages: undefined,
    product: undefined,
    includeTerminal: true,
  };
  const all = { ...input, opts };
  return input.run.product(ORDER_FACTS, figuresKey(all), async () => {
    const st = setup(opts);
    const classifier = new Classifier(classifierSettings(all, st));
    const orgs = new Map<number, OrgOrders>();
    // The deciding item among equal creation instants: the first in the detail's order.
    const lastKey = new Map<number, Sortable>();
    const orgIds = input.scope === null ? [] : [...input.scope];
    let rows = 0;
    for await (const r of itemQuery(input.db, orgIds, st.excludedNames, input.at).stream(1000)) {
      const c = classifier.classify(r);
      if (c === null) continue;
      rows++;
      const orgId = c.row.orgId;
      if (typeof orgId !== 'number') continue;
      let f = orgs.get(orgId);
      if (f === undefined) {
        f = { orgId, org: null, open: 0, onHold: 0, stuck: 0, lastDrugAlcohol: null };
        orgs.set(orgId, f);
      }
      if (f.org === null && typeof c.row.org === 'string') f.org = c.row.org;
      count(f, c);
      latest(f, c, lastKey);
    }
    return { orgs, warnings: warningsOf(classifier, rows, []) };
  });
}

function count(f: OrgOrders, c: ClassifiedItem): void {
  if (terminalStages.has(c.stage)) return;
  f.open++;
  if (c.stage === 'ON_HOLD') f.onHold++;
  if (c.flag === 'STUCK') f.stuck++;
}

function latest(f: OrgOrders, c: ClassifiedItem, lastKey: Map<number, Sortable>): void {
  const { family, createdAt, product } = c.row;
  if ((family !== 'drug' && family !== 'alcohol') || typeof createdAt !== 'string') return;
  const key = sortKey(c);
  const last = f.lastDrugAlcohol;
  const before = lastKey.get(f.orgId);
  if (
    last === null ||
    createdAt > last.createdAt ||
    (createdAt === last.createdAt && before !== undefined && compareSortable(key, before) < 0)
  ) {
    f.lastDrugAlcohol = { id: c.id, product: typeof product === 'string' ? product : null, createdAt };
    lastKey.set(f.orgId, key);
  }
}

/** One order item as the ageing's detail shows it, typed: what "what changed" compares by id. */
export interface AgedItem {
  id: number;
  orgId: number | null;
  org: string | null;
  family: string | null;
  status: string | null;
  /** OK, WARN or STUCK; null: no flag (a terminal item shown). */
  flag: string | null;
}

/**
 * The items of the ageing's detail at the input's instant, in id order, typed: one pass of its
 * query and classifier with the report's own options, nothing sorted or kept (the caller keeps
 * what it compares).
 */
export async function* agedItems(input: ReportInput<OrderAgeingOptions>): AsyncGenerator<AgedItem> {
  const st = setup(input.opts);
  const classifier = new Classifier(classifierSettings(input, st));
  const orgIds = input.scope === null ? [] : [...input.scope];
  for await (const r of itemQuery(input.db, orgIds, st.excludedNames, input.at).stream(1000)) {
    const c = classifier.classify(r);
    if (c === null) continue;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    yield {
      id: c.id,
      orgId: typeof c.row.orgId === 'number' ? c.row.orgId : null,
      org: text(c.row.org),
      family: text(c.row.family),
      status: text(c.row.status),
      flag: c.flag,
    };
  }
}
