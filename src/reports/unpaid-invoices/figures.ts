import { productKey } from '../core/run.js';
import { figuresKey } from '../core/run-key.js';
import type { ReportInput } from '../core/types.js';
import { invoiceBalancesAsOf } from './as-of-history.js';
import { agingBuckets } from './buckets.js';
import { asOfWarnings, classify } from './classify.js';
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
