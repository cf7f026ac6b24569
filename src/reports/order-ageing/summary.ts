import type { Column, Row, Sheet } from '../../render/types.js';
import { ORG_ANCHORS } from '../core/org-names.js';
import { compareOrgs } from '../core/values.js';
import { ageBuckets, bucketOf, type ClassifiedItem, type Flag, norm, type Stage } from './classify.js';
import { stageWords } from './words.js';

/**
 * The summaries of order ageing (docs/reports.md): per status and per org, tallied one item at a
 * time while the detail streams, so they hold a few counters per status and org, never the items.
 */

/** Counts of values in tenths of an hour: exact medians of the shown values in bounded memory. */
export class Distribution {
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

interface Counts {
  count: number;
  buckets: Map<string, number>;
  age: Distribution;
  inStatus: Distribution;
  warn: number;
  stuck: number;
}

interface StatusTotals extends Counts {
  status: string | null;
  stage: Stage;
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
  ON_HOLD: 'onHold',
  OTHER: 'other',
  COMPLETE: 'complete',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
};
export const stageOrder: Stage[] = [
  'ORDERED',
  'COLLECTED',
  'AT_LAB',
  'MRO',
  'ON_HOLD',
  'OTHER',
  'COMPLETE',
  'CANCELLED',
  'EXPIRED',
];

const flagAlert: Column['alert'] = { positive: 'red' };

const blankCounts = (): Counts => ({
  count: 0,
  buckets: new Map(),
  age: new Distribution(),
  inStatus: new Distribution(),
  warn: 0,
  stuck: 0,
});

/**
 * The order ageing's typed figures (its page, the dashboard and the run's controls read these),
 * tallied as the detail streams: the open items (those not in a terminal stage, each flagged),
 * how many are STUCK, WARN, or of an unknown time in status, and the oldest age of any item shown
 * in hours (null: none known).
 */
export interface AgeingFacts {
  open: number;
  stuck: number;
  warn: number;
  unknownTimeInStatus: number;
  oldestAgeHours: number | null;
}

/** Open items of one status as the By status sheet counts them (its rows are views of these). */
export interface StatusCounts {
  status: string | null;
  stage: Stage;
  count: number;
  /** Items per time-in-status bucket key (classify.ts `ageBuckets`); the rest: time unknown. */
  buckets: ReadonlyMap<string, number>;
}

/**
 * The order ageing's typed product: its figures and each status's counts in the By status sheet's
 * order (without its total); its page reads these, never a sheet by its name.
 */
export interface AgeingProduct extends AgeingFacts {
  statuses: readonly StatusCounts[];
}

export class AgeingSummary {
  rows = 0;
  private readonly tally: AgeingFacts = {
    open: 0,
    stuck: 0,
    warn: 0,
    unknownTimeInStatus: 0,
    oldestAgeHours: null,
  };
  private readonly byStatus = new Map<string, StatusTotals>();
  private readonly byOrg = new Map<string, OrgTotals>();

  constructor(private readonly shownStages: Stage[]) {}

  add(item: ClassifiedItem): void {
    this.rows++;
    const { row, stage, flag } = item;
    const ageHours = row.ageHours as number | null;
    const inStatusHours = row.timeInStatusHours as number | null;
    const status = (row.status as string | null) ?? null;
    const sk = `${stage}\u0000${status ?? ''}`;
    const s = this.byStatus.get(sk) ?? { status, stage, ...blankCounts() };
    this.byStatus.set(sk, s);
    s.count++;
    if (item.inStatusMs !== null) {
      const b = bucketOf(item.inStatusMs).key;
      s.buckets.set(b, (s.buckets.get(b) ?? 0) + 1);
    }
    if (ageHours !== null) s.age.add(ageHours);
    this.tallyFacts(flag, ageHours, inStatusHours);
    if (inStatusHours !== null) s.inStatus.add(inStatusHours);
    count(s, flag);
    const orgId = (row.orgId as number | null) ?? null;
    const ok = String(orgId);
    const o = this.byOrg.get(ok) ?? {
      orgId,
      org: (row.org as string | null) ?? null,
      count: 0,
      stages: new Map<Stage, number>(),
      warn: 0,
      stuck: 0,
      oldest: null,
    };
    this.byOrg.set(ok, o);
    o.count++;
    o.stages.set(stage, (o.stages.get(stage) ?? 0) + 1);
    count(o, flag);
    if (ageHours !== null) o.oldest = o.oldest === null ? ageHours : Math.max(o.oldest, ageHours);
  }

  private tallyFacts(flag: Flag | null, ageHours: number | null, inStatusHours: number | null): void {
    const t = this.tally;
    if (ageHours !== null)
      t.oldestAgeHours = t.oldestAgeHours === null ? ageHours : Math.max(t.oldestAgeHours, ageHours);
    if (flag === null) return; // a terminal item (shown with includeTerminal): not open
    t.open++;
    count(t, flag);
    if (inStatusHours === null || inStatusHours === undefined) t.unknownTimeInStatus++;
  }

  /** The typed product over every item added so far (read once the detail is done). */
  facts(): AgeingProduct {
    return { ...this.tally, statuses: this.statuses() };
  }

  /** Each status's counts, in the By status sheet's order. */
  private statuses(): StatusTotals[] {
    return [...this.byStatus.values()].sort(
      (a, b) =>
        stageOrder.indexOf(a.stage) - stageOrder.indexOf(b.stage) ||
        norm(a.status).localeCompare(norm(b.status)),
    );
  }

  /** By org first (the sheet the workbook opens on: a grid of orgs by stage, STUCK in red). */
  sheets(): Sheet[] {
    return [
      { name: 'By org', columns: this.orgColumns(), rows: this.orgRows(), anchors: ORG_ANCHORS },
      { name: 'By status', columns: statusColumns, rows: this.statusRows() },
    ];
  }

  private statusRows(): Row[] {
    const statuses = this.statuses();
    const all = blankCounts();
    for (const s of statuses) {
      all.count += s.count;
      for (const [k, n] of s.buckets) all.buckets.set(k, (all.buckets.get(k) ?? 0) + n);
      all.age.merge(s.age);
      all.inStatus.merge(s.inStatus);
      all.warn += s.warn;
      all.stuck += s.stuck;
    }
    return [...statuses.map((s) => statusRow(s.status, s.stage, s)), statusRow('Total', null, all)];
  }

  private orgColumns(): Column[] {
    return [
      { key: 'orgId', title: 'Org id', type: 'integer' },
      { key: 'org', title: 'Org', type: 'string' },
      { key: 'count', title: 'Items', type: 'integer' },
      ...this.shownStages.map((s): Column => ({ key: stageKey[s], title: s, type: 'integer' })),
      { key: 'warn', title: 'WARN', type: 'integer', alert: { positive: 'amber' } },
      { key: 'stuck', title: 'STUCK', type: 'integer', alert: flagAlert },
      { key: 'oldestAgeDays', title: 'Oldest age (days)', type: 'number', decimals: 1 },
    ];
  }

  private orgRows(): Row[] {
    const orgs = [...this.byOrg.values()].sort(compareOrgs);
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
    const orgRow = (o: OrgTotals): Row => {
      const row: Row = { orgId: o.orgId, org: o.org, count: o.count };
      for (const s of this.shownStages) row[stageKey[s]] = o.stages.get(s) ?? 0;
      row.warn = o.warn;
      row.stuck = o.stuck;
      row.oldestAgeDays = days(o.oldest);
      return row;
    };
    return [...orgs.map(orgRow), orgRow(total)];
  }
}

/** Hours as days (the workbook reads ages in days). */
export function days(hours: number | null): number | null {
  return hours === null ? null : hours / 24;
}

function count(x: { warn: number; stuck: number }, flag: Flag | null): void {
  if (flag === 'WARN') x.warn++;
  if (flag === 'STUCK') x.stuck++;
}

const statusColumns: Column[] = [
  { key: 'status', title: 'Status', type: 'string' },
  { key: 'stage', title: 'Stage', type: 'string', words: stageWords },
  { key: 'count', title: 'Items', type: 'integer' },
  ...ageBuckets.map((b): Column => ({ key: b.key, title: `In status ${b.label}`, type: 'integer' })),
  { key: 'medianAgeDays', title: 'Median age (days)', type: 'number', decimals: 1 },
  { key: 'maxAgeDays', title: 'Max age (days)', type: 'number', decimals: 1 },
  { key: 'medianTimeInStatusDays', title: 'Median time in status (days)', type: 'number', decimals: 1 },
  { key: 'maxTimeInStatusDays', title: 'Max time in status (days)', type: 'number', decimals: 1 },
  { key: 'warn', title: 'WARN', type: 'integer', alert: { positive: 'amber' } },
  { key: 'stuck', title: 'STUCK', type: 'integer', alert: flagAlert },
];

function statusRow(label: string | null, stage: Stage | null, s: Counts): Row {
  const row: Row = { status: label, stage, count: s.count };
  for (const b of ageBuckets) row[b.key] = s.buckets.get(b.key) ?? 0;
  row.medianAgeDays = days(s.age.median());
  row.maxAgeDays = days(s.age.max);
  row.medianTimeInStatusDays = days(s.inStatus.median());
  row.maxTimeInStatusDays = days(s.inStatus.max);
  row.warn = s.warn;
  row.stuck = s.stuck;
  return row;
}
