import { formatInstant, HOUR, parseInstant } from '../../dates.js';
import type { Row } from '../../render/types.js';
import { asBoolean, asInteger, asText } from '../core/values.js';
import type { ItemRecord } from './query.js';

/**
 * Classification of one order item (docs/reports.md): its stage, ages, time in status, the basis
 * of that time, and its flag against the thresholds of its product family. Pure per item; the
 * counts for the warnings are kept on the Classifier.
 */
export const stages = [
  'ORDERED',
  'COLLECTED',
  'AT_LAB',
  'MRO',
  'ON_HOLD',
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
  'Specimen Collected': { stage: 'COLLECTED', terminal: false },
  'At Laboratory': { stage: 'AT_LAB', terminal: false },
  'On Hold': { stage: 'ON_HOLD', terminal: false },
};

/**
 * Status codes (`c_currentStatusCodeId`), read before the name (docs/reports.md): the
 * service's own codes and the sandbox's short ones [K]. options.statusStage keys match either.
 */
export const defaultStatusCodeStage: Readonly<Record<string, StageOf>> = {
  ORDERED: { stage: 'ORDERED', terminal: false },
  ORD: { stage: 'ORDERED', terminal: false },
  SCHEDULED: { stage: 'ORDERED', terminal: false },
  SCH: { stage: 'ORDERED', terminal: false },
  COLLECTED: { stage: 'COLLECTED', terminal: false },
  COL: { stage: 'COLLECTED', terminal: false },
  AT_LAB: { stage: 'AT_LAB', terminal: false },
  LAB: { stage: 'AT_LAB', terminal: false },
  MRO_REVIEW: { stage: 'MRO', terminal: false },
  MRO: { stage: 'MRO', terminal: false },
  ON_HOLD: { stage: 'ON_HOLD', terminal: false },
  HOLD: { stage: 'ON_HOLD', terminal: false },
  COMPLETED: { stage: 'COMPLETE', terminal: true },
  COMPLETE: { stage: 'COMPLETE', terminal: true },
  CMP: { stage: 'COMPLETE', terminal: true },
  CANCELLED: { stage: 'CANCELLED', terminal: true },
  CAN: { stage: 'CANCELLED', terminal: true },
  EXPIRED: { stage: 'EXPIRED', terminal: true },
  EXP: { stage: 'EXPIRED', terminal: true },
};

export type Thresholds = Partial<Record<Stage, { warn: number; stuck: number }>>;

/** Warn / stuck hours by stage of drug and alcohol tests (docs/reports.md); terminal stages have none. */
export const defaultThresholds: Readonly<Thresholds> = {
  ORDERED: { warn: 24, stuck: 72 },
  COLLECTED: { warn: 24, stuck: 48 },
  AT_LAB: { warn: 48, stuck: 120 },
  MRO: { warn: 72, stuck: 240 },
  ON_HOLD: { warn: 72, stuck: 168 },
  OTHER: { warn: 72, stuck: 168 },
};

/** An item 30 days old or more is never OK, whatever its time in status (docs/reports.md). */
export const NEVER_OK_HOURS = 720;
/** The family of a product no configured family matches: aged on the generic thresholds. */
export const GENERIC_FAMILY = 'generic';

export interface Family {
  /** Lower-case texts; a product whose name contains one belongs to the family. */
  match: string[];
  thresholds: Thresholds;
}

/**
 * Product families aged by default: drug and alcohol tests (docs/reports.md). Background checks,
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
export type Basis = 'history' | 'creation' | 'lower bound' | 'unknown since' | 'age 30d+';

/** Each basis in words, for the pages people read (the workbook's print view and the HTML page). */
export const basisInWords: Readonly<Record<Basis, string>> = {
  history: 'time in status from the recorded change into it',
  creation: 'in this status since the order was created',
  'lower bound': 'in this status at least since the mirror first saw it',
  'unknown since': 'in this status since an unknown time: flagged by its age since creation',
  'age 30d+': 'raised from OK: 30 days old or more',
};

/**
 * The stages an item passes through in order; a stage outside it (ON_HOLD, OTHER) comes after
 * every one of them, as in the By status sheet.
 */
const lifecycle: readonly Stage[] = ['ORDERED', 'COLLECTED', 'AT_LAB', 'MRO', 'ON_HOLD', 'OTHER'];

/**
 * The age at which an item whose time in its stage is unknown is STUCK: the stuck thresholds of
 * every earlier stage added up (it has waited longer than all of them allow together), or null
 * when no earlier stage has a threshold.
 */
export function stuckByAgeHours(thresholds: Thresholds, stage: Stage): number | null {
  const i = lifecycle.indexOf(stage);
  if (i <= 0) return null;
  let sum = 0;
  let any = false;
  for (const s of lifecycle.slice(0, i)) {
    const t = thresholds[s];
    if (t === undefined) continue;
    sum += t.stuck;
    any = true;
  }
  return any ? sum : null;
}

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
  /** Status codes (lower case) to stages, read first. */
  codes: Map<string, StageOf & { name: string }>;
  families: Map<string, Family>;
  /** Thresholds of products in no family. */
  generic: Thresholds;
  includes: (stage: Stage, terminal: boolean) => boolean;
  /** Lower-case text the product name must contain, or null. */
  product: string | null;
  names: Map<number, string>;
}

export class Classifier {
  readonly unmapped = new Map<string, number>();
  /** Items left out: created after the as-of instant; of a product in no family (by name). */
  readonly createdAfter: string[] = [];
  /** Items of products in no family, aged on the generic thresholds (by product). */
  readonly otherProducts = new Map<string, number>();
  /** Items whose time in status is unknown (the status began, as the mirror saw it, after the as-of instant). */
  unknownSince = 0;
  raisedBy30Days = 0;
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
    const code = asText(r.c_currentStatusCodeId);
    const mapped = s.codes.get(norm(code)) ?? s.mapping.get(norm(status));
    const stage: Stage = mapped?.stage ?? 'OTHER';
    const terminal = mapped === undefined ? asBoolean(r.isNotModifiable) : mapped.terminal;
    if (!s.includes(stage, terminal)) return null;
    const productName = asText(r.c_productName);
    const lowerProduct = (productName ?? '').toLowerCase();
    if (s.product !== null && !lowerProduct.includes(s.product)) return null;
    let family = this.familyOf(lowerProduct);
    const generic = family === null;
    if (family === null) family = { match: [], thresholds: s.generic, name: GENERIC_FAMILY };
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
    if (generic && !terminal) {
      // Every open order is aged: a product of no family on the generic thresholds (a terminal
      // item is aged on none, so it is not counted: a run over every item says what the report says).
      const key = productName ?? '(no product)';
      this.otherProducts.set(key, (this.otherProducts.get(key) ?? 0) + 1);
    }
    if (mapped === undefined) {
      const key = status ?? '(no status)';
      this.unmapped.set(key, (this.unmapped.get(key) ?? 0) + 1);
    }
    const since = this.since(r, status, stage, created, dataFlags);
    let inStatusMs: number | null = since.at === null ? null : s.asOfMs - since.at;
    let unknown = false;
    if (inStatusMs !== null && inStatusMs < 0) {
      // The mirror saw the status begin after the as-of instant (a first sync): how long the
      // item was in it at the as-of instant is unknown, not 0.
      inStatusMs = null;
      unknown = true;
      dataFlags.push('SINCE_AFTER_AS_OF');
      this.sinceAfter++;
      this.unknownSince++;
    }
    const { flag, basis } = terminal
      ? { flag: null, basis: null }
      : this.flagOf(family.thresholds, stage, since, unknown, inStatusMs, ageMs);
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
      ageDays: ageMs === null ? null : round1(ageMs / 24),
      statusSince: since.at === null ? null : formatInstant(since.at),
      sinceIsLowerBound: since.lowerBound,
      timeInStatusHours: inStatusMs === null ? null : round1(inStatusMs),
      statusBucket: unknown ? 'unknown' : inStatusMs === null ? null : bucketOf(inStatusMs).label,
      timeInStatusDays: inStatusMs === null ? null : round1(inStatusMs / 24),
      ageFlag: ageMs !== null && ageMs >= NEVER_OK_HOURS * HOUR ? '30d+' : null,
      flag,
      flagBasis: basis,
      flagBasisText: basis === null ? null : basisInWords[basis],
      family: family.name,
      dataFlags: dataFlags.length === 0 ? null : dataFlags.join(';'),
      parentOrderItemId: asInteger(r.Parent_OrderItemId),
      orderedBy: asText(r.orderedBy),
    };
    return { id, row, stage, flag, ageMs, inStatusMs };
  }

  /**
   * The flag of an item not in a terminal stage: its time in status against the stage's
   * thresholds. When that time is a lower bound or unknown, the age since creation raises it: at
   * the stage's warn age at least WARN; when it is unknown, STUCK at the stuck thresholds of every
   * earlier stage added up (basis "unknown since"). An item past its warn age is never OK. At 30 days old no item
   * is OK.
   */
  private flagOf(
    thresholds: Thresholds,
    stage: Stage,
    since: { basis: Basis; lowerBound: boolean },
    unknown: boolean,
    inStatusMs: number | null,
    ageMs: number | null,
  ): { flag: Flag; basis: Basis } {
    const t = thresholds[stage];
    const rank = { OK: 0, WARN: 1, STUCK: 2 } as const;
    let flag: Flag =
      t === undefined || inStatusMs === null
        ? 'OK'
        : inStatusMs >= t.stuck * HOUR
          ? 'STUCK'
          : inStatusMs >= t.warn * HOUR
            ? 'WARN'
            : 'OK';
    const known = !unknown && inStatusMs !== null && !since.lowerBound;
    let basis: Basis = unknown || inStatusMs === null ? 'unknown since' : since.basis;
    if (!known && t !== undefined && ageMs !== null) {
      // A lower bound is a measured time in status: the age raises it to WARN at most. Only a
      // time wholly unknown is taken as STUCK from the age (the stuck thresholds of every earlier
      // stage added up): it may have sat in this stage for all of them.
      const stuckAt =
        since.lowerBound && !unknown && inStatusMs !== null ? null : stuckByAgeHours(thresholds, stage);
      const byAge: Flag =
        stuckAt !== null && ageMs >= stuckAt * HOUR ? 'STUCK' : ageMs >= t.warn * HOUR ? 'WARN' : 'OK';
      if (rank[byAge] > rank[flag]) {
        this.raisedByAge++;
        flag = byAge;
        basis = 'unknown since';
      }
    }
    if (flag === 'OK' && ageMs !== null && ageMs >= NEVER_OK_HOURS * HOUR) {
      flag = 'WARN';
      basis = 'age 30d+';
      this.raisedBy30Days++;
    }
    return { flag, basis };
  }

  private familyOf(lowerProduct: string): (Family & { name: string }) | null {
    for (const [name, f] of this.s.families)
      if (f.match.some((m) => lowerProduct.includes(m))) return { ...f, name };
    return null;
  }

  /**
   * Since when the item is in its status (docs/reports.md): the latest history row when history
   * shows a change into it; in the first stage (ORDERED) otherwise the creation (an order starts
   * there); the creation when history starts in it within one poll of creation; else the first
   * sighting, a lower bound (with no history of it at all: the last sync).
   */
  private since(
    r: ItemRecord,
    status: string | null,
    stage: Stage,
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
    if (!matches) {
      dataFlags.push('NO_HISTORY');
      this.noHistory++;
    }
    if (stage === 'ORDERED' && created !== null) return { at: created, lowerBound: false, basis: 'creation' };
    const observed = parseInstant(matches ? r.h_first_seen_at : r.synced_at, 'UTC');
    if (observed !== null && created !== null && observed - created <= this.s.pollMs)
      return { at: created, lowerBound: false, basis: 'creation' };
    return { at: observed, lowerBound: observed !== null, basis: 'lower bound' };
  }
}
