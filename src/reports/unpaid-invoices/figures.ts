import type { Row } from '../../render/types.js';
import { productKey } from '../core/run.js';
import { figuresKey } from '../core/run-key.js';
import type { ReportInput } from '../core/types.js';
import { invoiceBalancesAsOf } from './as-of-history.js';
import { agingBuckets } from './buckets.js';
import { asOfWarnings, type Classified, classify, type OpenInvoice } from './classify.js';
import type { UnpaidInvoicesOptions } from './options.js';
import { invoiceRows } from './queries.js';
import { summarise } from './summary.js';

/** One org's open balances as the ageing's By org sheet totals them. */
export interface OrgBalances {
  orgId: number;
  org: string | null;
  /** Net open balance, cents. */
  open: number;
  /** Balance in the oldest bucket, cents. */
  oldBucket: number;
  oldestDays: number | null;
  count: number;
}

/**
 * The ageing's figures of a run: the invoices classified and bucketed, the By org and Buckets
 * rows, the warnings; made once per run (`unpaid-invoices`) and shared by the report and those
 * built on it (accounts at risk).
 */
export function unpaidFigures(input: ReportInput<UnpaidInvoicesOptions>): Promise<UnpaidFigures> {
  return input.run.product(UNPAID_FIGURES, figuresKey(input), () => makeUnpaidFigures(input));
}

/** The ageing's figures, made (unpaidFigures shares them within the run). */
async function makeUnpaidFigures(input: ReportInput<UnpaidInvoicesOptions>) {
  const { db, common, opts, scope, at, names } = input;
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const c = classify(await invoiceRows(db, at), scope, names, common, opts, buckets);
  const history = await invoiceBalancesAsOf(db, common, at);
  const warnings = [...history.warnings, ...asOfWarnings(common, input.params.time.today, c), ...c.warnings];
  for (const id of common.orgIds)
    if (!c.open.some((o) => o.orgId === id)) warnings.push(`Org ${id} has no open invoice`);
  const {
    byOrg,
    buckets: bucketRows,
    facts,
  } = summarise(c.open, c.voided, buckets, opts.summarySort, c.unknown.length);
  const old = buckets[buckets.length - 1] as (typeof buckets)[number];
  // From the typed totals the By org rows are views of (never read back from those rows).
  const balances: OrgBalances[] = facts.orgs.flatMap((t) =>
    t.orgId === null
      ? []
      : [
          {
            orgId: t.orgId,
            org: t.org,
            open: t.total,
            oldBucket: t.amounts.get(old.key) ?? 0,
            oldestDays: t.oldest,
            count: t.count,
          },
        ],
  );
  return { buckets, c, history, warnings, byOrg, bucketRows, balances, oldLabel: old.label, facts };
}

/** The ageing's figures of a run (unpaidFigures). */
export type UnpaidFigures = Awaited<ReturnType<typeof makeUnpaidFigures>>;

/** The ageing's figures, built once per run for equal inputs (figuresKey). */
export const UNPAID_FIGURES = productKey<UnpaidFigures>('unpaid-invoices');

/** One invoice of the ageing at an instant, typed: what "what changed" compares by invoice id. */
export interface AgedInvoice {
  id: string;
  orgId: number | null;
  org: string | null;
  /** Cancelled (dropInvoice filled): apart from A/R. */
  cancelled: boolean;
  days: number;
  bucket: string;
  /** Cents. */
  totalDue: number;
}

/** One org's A/R (or the total: `orgId` null) and its share owed over 60 days (null: nothing owed). */
export interface OrgAr {
  orgId: number | null;
  org: string | null;
  /** Cents. */
  total: number;
  over60Share: number | null;
}

/** The ageing's invoices and A/R per org, typed, from its classification (no sheet). */
export interface AgedReceivables {
  invoices: Map<string, AgedInvoice>;
  ar: OrgAr[];
}

function agedOf(c: Classified, byOrg: readonly Row[]): AgedReceivables {
  const invoices = new Map<string, AgedInvoice>();
  const add = (list: readonly OpenInvoice[], cancelled: boolean) => {
    for (const i of list)
      invoices.set(i.id, {
        id: i.id,
        orgId: i.orgId,
        org: i.org,
        cancelled,
        days: i.days,
        bucket: i.bucket,
        totalDue: i.totalDue,
      });
  };
  add(c.open, false);
  add(c.voided, true);
  const ar = byOrg.map((r) => ({
    orgId: typeof r.orgId === 'number' ? r.orgId : null,
    org: typeof r.org === 'string' ? r.org : null,
    total: Number(r.total ?? 0),
    over60Share: typeof r.over60Share === 'number' ? r.over60Share : null,
  }));
  return { invoices, ar };
}

/**
 * The ageing's invoices and A/R per org at the input's instant, typed: the run's figures when
 * they are the run's own (`shared`: built once, kept by the run), else classified here and not
 * kept by the run (an earlier instant read once: only these typed values stay).
 */
export async function agedReceivables(
  input: ReportInput<UnpaidInvoicesOptions>,
  shared: boolean,
): Promise<AgedReceivables> {
  if (shared) {
    const f = await unpaidFigures(input);
    return agedOf(f.c, f.byOrg);
  }
  const { db, common, opts, scope, at, names } = input;
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const c = classify(await invoiceRows(db, at), scope, names, common, opts, buckets);
  return agedOf(c, summarise(c.open, c.voided, buckets, opts.summarySort, c.unknown.length).byOrg);
}
