import { complianceFigures, complianceWarnings, yearToDate } from '../compliance/figures.js';
import { complianceReport } from '../compliance/index.js';
import { type ComplianceStatus, statusRank } from '../compliance/math.js';
import { ASSUMED } from '../compliance/model.js';
import type { ReportInput } from '../core/types.js';
import { orderAgeingReport, orderFacts } from '../order-ageing/index.js';
import { unpaidFigures } from '../unpaid-invoices/figures.js';
import { unpaidInvoicesReport } from '../unpaid-invoices/index.js';
import type { AccountsAtRiskOptions } from './options.js';

/** One employer as the three reports see it (null: the report has no row for it). */
export interface OrgFacts {
  orgId: number;
  org: string | null;
  compliance: {
    status: string;
    drugStatus: string;
    alcoholStatus: string;
    assumed: boolean;
    rateSource: string;
    year: number;
    month: number;
  } | null;
  invoices: { open: number; oldBucket: number; oldestDays: number | null; count: number } | null;
  orders: {
    open: number;
    onHold: number;
    stuck: number;
    lastDrugAlcohol: string | null;
    /** That last drug or alcohol order (it decides STOPPED_TESTING and TESTING_UNPAID). */
    lastOrder: { id: number | null; product: string | null } | null;
  };
}

export interface Joined {
  orgs: Map<number, OrgFacts>;
  /** Each report's warnings, named by it (the gaps under the join). */
  warnings: string[];
  /** How many warnings each joined report gave. */
  warningCounts: Map<string, number>;
  /** The label of the oldest ageing bucket (91+ by default). */
  oldLabel: string;
}

const bare = (s: unknown) => String(s ?? '').replace(ASSUMED, '');
const rank = (s: string) => statusRank[s as ComplianceStatus] ?? 4;

/** The worse of the two statuses (N/A or a missing rate counts only when both are). */
export function worstStatus(drug: string, alcohol: string): string {
  const d = bare(drug);
  const a = bare(alcohol);
  const scored = [d, a].filter((s) => s in statusRank && s !== 'N/A');
  if (scored.length === 0) return d || a;
  return scored.reduce((w, s) => (rank(s) < rank(w) ? s : w));
}

/**
 * Joins the per-org figures of the three reports with the same parameters, as the run built them
 * (each once per run, handed on typed: compliance's walk and the ageing's figures are shared with
 * those reports): compliance's year to date, the ageing's balances per org, and the order ageing's
 * figures per org (open, on hold and stuck counted from its open items as its By org sheet counts
 * them; the last drug or alcohol order over every item, terminal ones included).
 */
export async function joinReports(input: ReportInput<AccountsAtRiskOptions>): Promise<Joined> {
  const orgs = new Map<number, OrgFacts>();
  const of = (orgId: number, org: unknown): OrgFacts => {
    let f = orgs.get(orgId);
    if (f === undefined) {
      f = {
        orgId,
        org: null,
        compliance: null,
        invoices: null,
        orders: { open: 0, onHold: 0, stuck: 0, lastDrugAlcohol: null, lastOrder: null },
      };
      orgs.set(orgId, f);
    }
    if (f.org === null && typeof org === 'string') f.org = org;
    return f;
  };
  const warnings: string[] = [];
  const warningCounts = new Map<string, number>();
  const named = (report: string, list: string[]) => {
    warningCounts.set(report, list.length);
    for (const w of list) warnings.push(`${report}: ${w}`);
  };

  const cf = await complianceFigures(await input.inputFor(complianceReport));
  const walk = await cf.walk.walked();
  for (const r of yearToDate(walk)) {
    of(r.orgId, r.org).compliance = {
      status: worstStatus(r.drugStatus, r.alcoholStatus),
      drugStatus: r.drugStatus,
      alcoholStatus: r.alcoholStatus,
      assumed: r.drugStatus.endsWith(ASSUMED) || r.alcoholStatus.endsWith(ASSUMED),
      rateSource: r.rateSource,
      year: r.year,
      month: r.throughMonth,
    };
  }
  named('compliance', complianceWarnings(cf, walk, input.common.orgIds));

  const uf = await unpaidFigures(await input.inputFor(unpaidInvoicesReport));
  for (const b of uf.balances)
    of(b.orgId, b.org).invoices = {
      open: b.open,
      oldBucket: b.oldBucket,
      oldestDays: b.oldestDays,
      count: b.count,
    };
  named('unpaid-invoices', uf.warnings);

  // The order ageing's figures over every item, terminal ones too (the last order may be
  // completed), with its default stages and no product filter: every drug and alcohol order counts.
  const orders = await orderFacts(await input.inputFor(orderAgeingReport));
  for (const o of orders.orgs.values()) {
    const f = of(o.orgId, o.org);
    f.orders = {
      open: o.open,
      onHold: o.onHold,
      stuck: o.stuck,
      lastDrugAlcohol: o.lastDrugAlcohol?.createdAt ?? null,
      lastOrder:
        o.lastDrugAlcohol === null ? null : { id: o.lastDrugAlcohol.id, product: o.lastDrugAlcohol.product },
    };
  }
  named('order-ageing', orders.warnings);
  return { orgs, warnings, warningCounts, oldLabel: uf.oldLabel };
}
