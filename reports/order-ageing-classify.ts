import type { Row } from '../src/render/types.js';
import { formatInstant, HOUR, parseInstant } from './dates.js';
import type { ItemRecord } from './order-ageing-query.js';
import { asBoolean, asInteger, asText } from './values.js';

/**
 * Classification of one order item (REPORTS.md 3.3): its stage, ages, time in status, the basis
 * of that time, and its flag against the thresholds of its product family. Pure per item; the
 * counts for the warnings are kept on the Classifier.
 */
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
export const terminalStages: ReadonlySet<Stage> = new Set(['COMPLETE', 'CANCELLED', 'EXPIRED']);

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

export type Thresholds = Partial<Record<Stage, { warn: number; stuck: number }>>;

/** Warn / stuck hours by stage of drug and alcohol tests (REPORTS.md 3.2); terminal stages have none. */
export const defaultThresholds: Readonly<Thresholds> = {
  ORDERED: { warn: 24, stuck: 72 },
  COLLECTED: { warn: 24, stuck: 48 },
  AT_LAB: { warn: 48, stuck: 120 },
  MRO: { warn: 72, stuck: 240 },
  OTHER: { warn: 72, stuck: 168 },
};

export interface Family {
  /** Lower-case texts; a product whose name contains one belongs to the family. */
  match: string[];
  thresholds: Thresholds;
}

/**
 * Product families aged by default: drug and alcohol tests (REPORTS.md 3.2). Background checks,
 * physicals, audiograms, DNA or TB tests have other lifecycles: they are aged only when a family
 * with their own thresholds is configured (options.families).
 */
export const defaultFamilies: Readonly<Record<string, { match: string[] }>> = {
  drug: { match: ['drug', 'panel', 'urine', 'hair follicle'] },
  alcohol: { match: ['alcohol', 'breath'] },
};

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

export type Flag = 'STUCK' | 'WARN' | 'OK';
/** Where the time behind the flag comes from (a column of every row). */
export type Basis = 'history' | 'creation' | 'lower bound' | 'unknown since';

export const norm = (s: string | null) => (s === null ? '' : s.trim().toLowerCase());
export const round1 = (ms: number) => Math.round(ms / (HOUR / 10)) / 10;

export interface ClassifiedItem {
  id: number;
  row: Row;
  stage: Stage;
  flag: Flag | null;
  ageMs: number | null;
  inStatusMs: number | null;
}

export interface ClassifierSettings {
  asOfMs: number;
  pollMs: number;
  timezone: string;
  mapping: Map<string, StageOf & { name: string }>;
  families: Map<string, Family>;
  includes: (stage: Stage, terminal: boolean) => boolean;
  /** Lower-case text the product name must contain, or null. */
  product: string | null;
  names: Map<number, string>;
}

export class Classifier {
  readonly unmapped = new Map<string, number>();
  /** Items left out: created after the as-of instant; of a product in no family (by name). */
  readonly createdAfter: string[] = [];
  readonly otherProducts = new Map<string, number>();
  readonly badCreated: string[] = [];
  noHistory = 0;
  sinceAfter = 0;
  raisedByAge = 0;

  constructor(private readonly s: ClassifierSettings) {}

  /** The item's row, or null when it is not in the report. */
  classify(r: ItemRecord): ClassifiedItem | null {
    const s = this.s;
    const id = asInteger(r.id) ?? 0;
    const status = asText(r.c_currentStatusCodeName) ?? asText(r.h_status_name);
    const mapped = s.mapping.get(norm(status));
    const stage: Stage = mapped?.stage ?? 'OTHER';
    const terminal = mapped === undefined ? asBoolean(r.isNotModifiable) : mapped.terminal;
    if (!s.includes(stage, terminal)) return null;
    const productName = asText(r.c_productName);
    const lowerProduct = (productName ?? '').toLowerCase();
    if (s.product !== null && !lowerProduct.includes(s.product)) return null;
    const family = this.familyOf(lowerProduct);
    if (family === null) {
      const key = productName ?? '(no product)';
      this.otherProducts.set(key, (this.otherProducts.get(key) ?? 0) + 1);
      return null;
    }
    const dataFlags: string[] = [];
    const created = parseInstant(r.CreationTimestamp, s.timezone);
    let ageMs: number | null = null;
    if (created === null) {
      dataFlags.push('BAD_CREATED');
      this.badCreated.push(String(id));
    } else {
      ageMs = s.asOfMs - created;
      if (ageMs < 0) {
        // The mirror holds only the present: an item created after the as-of instant did not
        // exist then, so it is not in the report.
        this.createdAfter.push(String(id));
        return null;
      }
    }
    if (mapped === undefined) {
      const key = status ?? '(no status)';
      this.unmapped.set(key, (this.unmapped.get(key) ?? 0) + 1);
    }
    const since = this.since(r, status, created, dataFlags);
    let inStatusMs: number | null = since.at === null ? null : s.asOfMs - since.at;
    if (inStatusMs !== null && inStatusMs < 0) {
      inStatusMs = 0;
      dataFlags.push('SINCE_AFTER_AS_OF');
      this.sinceAfter++;
    }
    let flag: Flag | null = null;
    let basis: Basis | null = terminal ? null : since.basis;
    if (!terminal) {
      const t = family.thresholds[stage];
      flag =
        t === undefined || inStatusMs === null
          ? 'OK'
          : inStatusMs >= t.stuck * HOUR
            ? 'STUCK'
            : inStatusMs >= t.warn * HOUR
              ? 'WARN'
              : 'OK';
      // History that starts after creation cannot show how long the item has waited; its age
      // can. In the first stage the item has been there since creation: STUCK by its age. In a
      // later stage the age proves only that something is slow: at least WARN.
      if (
        since.lowerBound &&
        t !== undefined &&
        ageMs !== null &&
        ageMs >= t.stuck * HOUR &&
        flag !== 'STUCK'
      ) {
        this.raisedByAge++;
        if (stage === 'ORDERED') {
          flag = 'STUCK';
          basis = 'creation';
        } else if (flag === 'OK') {
          flag = 'WARN';
          basis = 'unknown since';
        }
      }
    }
    const orgId = asInteger(r.OrgId);
    const org = (orgId === null ? undefined : s.names.get(orgId)) ?? asText(r.c_org);
    const person = [asText(r.c_personNameFirst), asText(r.c_personNameLast)]
      .filter((x) => x !== null)
      .join(' ');
    const row: Row = {
      orderItemId: id,
      orgId,
      org,
      product: productName,
      person: person === '' ? null : person,
      status,
      stage,
      createdAt: created === null ? null : formatInstant(created),
      ageHours: ageMs === null ? null : round1(ageMs),
      ageBucket: ageMs === null ? null : bucketOf(ageMs).label,
      statusSince: since.at === null ? null : formatInstant(since.at),
      sinceIsLowerBound: since.lowerBound,
      timeInStatusHours: inStatusMs === null ? null : round1(inStatusMs),
      statusBucket: inStatusMs === null ? null : bucketOf(inStatusMs).label,
      flag,
      flagBasis: basis,
      family: family.name,
      dataFlags: dataFlags.length === 0 ? null : dataFlags.join(';'),
      parentOrderItemId: asInteger(r.Parent_OrderItemId),
      orderedBy: asText(r.orderedBy),
    };
    return { id, row, stage, flag, ageMs, inStatusMs };
  }

  private familyOf(lowerProduct: string): (Family & { name: string }) | null {
    for (const [name, f] of this.s.families)
      if (f.match.some((m) => lowerProduct.includes(m))) return { ...f, name };
    return null;
  }

  /**
   * Since when the item is in its status (REPORTS.md 3.3): the latest history row when history
   * shows a change into it; the creation when history starts in it within one poll of creation;
   * else the first sighting, a lower bound (with no history of it at all: the last sync).
   */
  private since(
    r: ItemRecord,
    status: string | null,
    created: number | null,
    dataFlags: string[],
  ): { at: number | null; lowerBound: boolean; basis: Basis } {
    const hStatusId = asInteger(r.h_status_id);
    const currentId = asInteger(r.CurrentStatusId);
    const matches =
      r.h_id !== null &&
      (hStatusId !== null && currentId !== null
        ? hStatusId === currentId
        : norm(asText(r.h_status_name)) === norm(status));
    if (matches && asBoolean(r.h_prior))
      return { at: parseInstant(r.h_first_seen_at, 'UTC'), lowerBound: false, basis: 'history' };
    const observed = parseInstant(matches ? r.h_first_seen_at : r.synced_at, 'UTC');
    if (!matches) {
      dataFlags.push('NO_HISTORY');
      this.noHistory++;
    }
    if (observed !== null && created !== null && observed - created <= this.s.pollMs)
      return { at: created, lowerBound: false, basis: 'creation' };
    return { at: observed, lowerBound: observed !== null, basis: 'lower bound' };
  }
}
