import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import { forEachRow } from '../../render/streams.js';
import type { ReportResult, Row, Sheet } from '../../render/types.js';
import { complianceReport } from '../compliance/index.js';
import { type ComplianceStatus, statusRank } from '../compliance/math.js';
import { ASSUMED } from '../compliance/model.js';
import { terminalStages } from '../order-ageing/classify.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import { runDeclaration } from '../runner.js';
import type { ReportParams } from '../types.js';
import { agingBuckets } from '../unpaid-invoices/buckets.js';
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

async function rowsAndSheets(result: ReportResult, onRow: (row: Row) => void): Promise<Sheet[]> {
  await forEachRow(result.detail.rows, (row) => {
    onRow(row);
    return undefined;
  });
  return result.summaries();
}

async function sheetRows(sheets: Sheet[], name: string): Promise<Row[]> {
  const out: Row[] = [];
  const s = sheets.find((x) => x.name === name);
  if (s !== undefined)
    await forEachRow(s.rows, (r) => {
      out.push(r);
      return undefined;
    });
  return out;
}

/**
 * Runs the three reports with the same parameters (their own builds, their own options) and
 * joins their per-org figures: compliance's YTD by org, the ageing's By org, and the order
 * ageing's detail rows (with terminal items, for the last drug or alcohol order; open, on hold
 * and stuck are counted from its open rows as its By org sheet counts them).
 */
export async function joinReports(
  db: Kysely<Database>,
  params: ReportParams,
  opts: AccountsAtRiskOptions,
): Promise<Joined> {
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

  const compliance = await runDeclaration(complianceReport, db, params);
  const cSheets = await rowsAndSheets(compliance, () => undefined);
  for (const r of await sheetRows(cSheets, 'YTD by org')) {
    if (typeof r.orgId !== 'number') continue;
    const drug = String(r.drugStatus ?? '');
    const alcohol = String(r.alcoholStatus ?? '');
    of(r.orgId, r.org).compliance = {
      status: worstStatus(drug, alcohol),
      drugStatus: drug,
      alcoholStatus: alcohol,
      assumed: drug.endsWith(ASSUMED) || alcohol.endsWith(ASSUMED),
      rateSource: String(r.rateSource ?? ''),
      year: Number(r.year),
      month: Number(r.throughMonth),
    };
  }
  named('compliance', compliance.warnings());

  const unpaid = await runDeclaration(unpaidInvoicesReport, db, params);
  const uSheets = await rowsAndSheets(unpaid, () => undefined);
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const old = buckets[buckets.length - 1] as (typeof buckets)[number];
  for (const r of await sheetRows(uSheets, 'By org')) {
    if (typeof r.orgId !== 'number') continue;
    of(r.orgId, r.org).invoices = {
      open: Number(r.total ?? 0),
      oldBucket: Number(r[old.key] ?? 0),
      oldestDays: typeof r.oldestDaysPastDue === 'number' ? r.oldestDaysPastDue : null,
      count: Number(r.openInvoices ?? 0),
    };
  }
  named('unpaid-invoices', unpaid.warnings());

  // Terminal items too (the last order may be completed); the stages and product filters are the
  // order ageing's defaults, so every drug and alcohol order counts.
  const { stages: _stages, product: _product, ...ageingOptions } = params.options;
  const ageing = await runDeclaration(orderAgeingReport, db, {
    ...params,
    options: { ...ageingOptions, includeTerminal: true },
  });
  await rowsAndSheets(ageing, (r) => {
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
  });
  // The order ageing's warnings of terminal items are not the default report's: only its own
  // problems of open items matter here, and they are the same rows.
  named('order-ageing', ageing.warnings());
  return { orgs, warnings, warningCounts, oldLabel: old.label };
}
