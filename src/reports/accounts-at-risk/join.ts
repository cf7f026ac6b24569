import { forEachRow } from '../../render/streams.js';
import { complianceFigures, complianceWarnings, yearToDate } from '../compliance/figures.js';
import { complianceReport } from '../compliance/index.js';
import { type ComplianceStatus, statusRank } from '../compliance/math.js';
import { ASSUMED } from '../compliance/model.js';
import { terminalStages } from '../order-ageing/classify.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import type { ReportInput } from '../types.js';
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
 * (built once per run: compliance's walk and the ageing's figures are shared with those reports):
 * compliance's year to date, the ageing's balances per org, and the order ageing's detail rows
 * (with terminal items, for the last drug or alcohol order; open, on hold and stuck are counted
 * from its open rows as its By org sheet counts them).
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

  // Terminal items too (the last order may be completed); the stages and product filters are the
  // order ageing's defaults, so every drug and alcohol order counts.
  const ageing = await orderAgeingReport.build(
    await input.inputFor(orderAgeingReport, { stages: undefined, product: undefined, includeTerminal: true }),
  );
  await forEachRow(ageing.detail.rows, (r) => {
    if (typeof r.orgId !== 'number') return;
    const f = of(r.orgId, r.org);
    const stage = String(r.stage);
    if (!terminalStages.has(stage as never)) {
      f.orders.open++;
      if (stage === 'ON_HOLD') f.orders.onHold++;
      if (r.flag === 'STUCK') f.orders.stuck++;
    }
    if ((r.family === 'drug' || r.family === 'alcohol') && typeof r.createdAt === 'string') {
      const last = f.orders.lastDrugAlcohol;
      if (last === null || r.createdAt > last) {
        f.orders.lastDrugAlcohol = r.createdAt;
        f.orders.lastOrder = {
          id: typeof r.orderItemId === 'number' ? r.orderItemId : null,
          product: typeof r.product === 'string' ? r.product : null,
        };
      }
    }
    return undefined;
  });
  // The order ageing's warnings of terminal items are not the default report's: only its own
  // problems of open items matter here, and they are the same rows.
  named('order-ageing', ageing.warnings());
  return { orgs, warnings, warningCounts, oldLabel: uf.oldLabel };
}
