import type { Row } from '../../render/types.js';
import { compareOrgs } from '../core/values.js';
import { type Bucket, CREDITS, VOID } from './buckets.js';
import type { OpenInvoice } from './classify.js';

/**
 * The ageing's typed figures over every org in scope (its page, the dashboard, the roll-forward's
 * ends and the run's controls read these): cents and counts.
 */
export interface UnpaidFacts {
  /** The net open balance (credits netted): the A/R total. */
  openBalance: number;
  openInvoices: number;
  lateFees: number;
  /** The balance in the oldest bucket. */
  oldestBucket: number;
  /** The credit balances (negative). */
  credits: number;
  /** Owed more than 60 days past due (credits apart). */
  over60: number;
  /** What is owed (the positive balances, credits apart). */
  owed: number;
  /** Cancelled invoices (apart from A/R). */
  cancelled: number;
  /** Invoices whose balance is unknown (null or unreadable): held apart, never paid or credited. */
  balanceUnknown: number;
  /** The ageing buckets, oldest last (keys and labels: the By org and Trend columns). */
  buckets: readonly { key: string; label: string }[];
  /** Each org's open balances, in the By org sheet's order (its rows are views of these). */
  orgs: readonly OrgTotals[];
  /** The Buckets sheet's lines (its rows are views of these). */
  bucketLines: readonly BucketLine[];
}

/**
 * The report's typed product: its figures and its trend (the Trend sheet's rows, month ends
 * oldest first, each with the bucket keys' cents); the page reads this, never a sheet by name.
 */
export interface UnpaidProduct extends UnpaidFacts {
  trend: readonly Row[];
}

/** A line of the Buckets sheet: a bucket, Credits, a total or the cancelled invoices. */
export interface BucketLine {
  bucket: string;
  /** Cents. */
  amount: number;
  share: number | null;
  invoices: number;
  /** A total line ("Total", "Total with cancelled"), not a part of what is owed. */
  total: boolean;
}

/** One org's open balances (By org), or the grand total's. */
export interface OrgTotals {
  orgId: number | null;
  org: string | null;
  /** Cents per bucket key (and Credits' key). */
  amounts: Map<string, number>;
  total: number;
  lateFees: number;
  count: number;
  oldest: number | null;
  over60: number;
  /** The positive balances (credits apart): what the shares are of, so none passes 100%. */
  gross: number;
}

export function summarise(
  open: OpenInvoice[],
  voided: OpenInvoice[],
  buckets: Bucket[],
  sort: 'total' | 'name',
  unknown = 0,
): { byOrg: Row[]; buckets: Row[]; facts: UnpaidFacts } {
  const keyOf = new Map<string, string>([
    ...buckets.map((b) => [b.label, b.key] as const),
    [CREDITS.label, CREDITS.key],
  ]);
  const blank = (orgId: number | null, org: string | null): OrgTotals => ({
    orgId,
    org,
    amounts: new Map(),
    total: 0,
    lateFees: 0,
    count: 0,
    oldest: null,
    over60: 0,
    gross: 0,
  });
  const orgs = new Map<string, OrgTotals>();
  const grand = blank(null, 'Total');
  const counts = new Map<string, number>();
  for (const o of open) {
    const k = String(o.orgId);
    const t = orgs.get(k) ?? blank(o.orgId, o.org);
    orgs.set(k, t);
    const key = keyOf.get(o.bucket) as string;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    for (const x of [t, grand]) {
      x.amounts.set(key, (x.amounts.get(key) ?? 0) + o.totalDue);
      x.total += o.totalDue;
      x.lateFees += o.lateFee;
      x.count++;
      if (!o.credit) x.gross += o.totalDue;
      // Only overdue invoices have an age past due: blank, not negative, when none is.
      if (!o.credit && o.days > 0) {
        x.oldest = x.oldest === null ? o.days : Math.max(x.oldest, o.days);
        if (o.days > 60) x.over60 += o.totalDue;
      }
    }
  }
  const toRow = (t: OrgTotals): Row => {
    const row: Row = { orgId: t.orgId, org: t.org };
    for (const b of buckets) row[b.key] = t.amounts.get(b.key) ?? 0;
    row[CREDITS.key] = t.amounts.get(CREDITS.key) ?? 0;
    row.total = t.total;
    row.lateFees = t.lateFees;
    row.openInvoices = t.count;
    row.oldestDaysPastDue = t.oldest;
    // Of the balances owed (credits apart): an org with credits never reads above 100%.
    row.over60Share = t.gross > 0 ? t.over60 / t.gross : null;
    return row;
  };
  const list = [...orgs.values()].sort((a, b) =>
    sort === 'total' ? b.total - a.total || compareOrgs(a, b) : compareOrgs(a, b),
  );
  const bucketLines: BucketLine[] = [...buckets, CREDITS].map((b) => {
    const amount = grand.amounts.get(b.key) ?? 0;
    return {
      bucket: b.label,
      amount,
      // Credits are shown apart: no share; the buckets' shares add up to 100% of what is owed.
      share: b.key === CREDITS.key || grand.gross === 0 ? null : amount / grand.gross,
      invoices: counts.get(b.key) ?? 0,
      total: false,
    };
  });
  bucketLines.push({
    bucket: 'Total',
    amount: grand.total,
    // The net total is 100% of the gross only when no credit nets it down.
    share: grand.gross === 0 || grand.total !== grand.gross ? null : 1,
    invoices: grand.count,
    total: true,
  });
  if (voided.length > 0) {
    // The reconciling lines: what the invoice balances add up to, and the cancelled part of it.
    const voidTotal = voided.reduce((sum, v) => sum + v.totalDue, 0);
    bucketLines.push(
      {
        bucket: 'VOID (cancelled, not owed)',
        amount: voidTotal,
        share: null,
        invoices: voided.length,
        total: false,
      },
      {
        bucket: 'Total with cancelled',
        amount: grand.total + voidTotal,
        share: null,
        invoices: grand.count + voided.length,
        total: true,
      },
    );
  }
  const bucketRows: Row[] = bucketLines.map(({ total: _, ...line }) => line);
  const old = buckets[buckets.length - 1];
  const facts: UnpaidFacts = {
    openBalance: grand.total,
    openInvoices: grand.count,
    lateFees: grand.lateFees,
    oldestBucket: old === undefined ? 0 : (grand.amounts.get(old.key) ?? 0),
    credits: grand.amounts.get(CREDITS.key) ?? 0,
    over60: grand.over60,
    owed: grand.gross,
    cancelled: voided.length,
    balanceUnknown: unknown,
    buckets: buckets.map((b) => ({ key: b.key, label: b.label })),
    orgs: list,
    bucketLines,
  };
  return { byOrg: [...list.map(toRow), toRow(grand)], buckets: bucketRows, facts };
}

/** Open and cancelled invoices by org: each org's open invoices, then its cancelled ones. */
export function withCancelled(open: OpenInvoice[], voided: OpenInvoice[]): Row[] {
  if (voided.length === 0) return open.map((o) => o.row);
  const all = [...open, ...voided];
  const isVoid = (o: OpenInvoice) => (o.bucket === VOID ? 1 : 0);
  // Both lists are already in order; a stable sort by org then open-first keeps it.
  return all.sort((a, b) => compareOrgs(a, b) || isVoid(a) - isVoid(b)).map((o) => o.row);
}
