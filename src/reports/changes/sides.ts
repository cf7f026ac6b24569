import { asOfInstant, reportTime } from '../../dates.js';
import type { ReportResult, Row } from '../../render/types.js';
import { arRollforwardReport } from '../ar-rollforward/index.js';
import { catchUpReport } from '../catch-up/index.js';
import { complianceReport } from '../compliance/index.js';
import { type ProductKey, productKey, type ReportRun } from '../core/run.js';
import { defineReports } from '../core/runner.js';
import type { ReportDefinition, ReportInput, ReportParams } from '../core/types.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import { unpaidInvoicesReport } from '../unpaid-invoices/index.js';
import type { ChangesOptions } from './options.js';

/** The base reports the changes are read from, run by the same runner as `ohs report`. */
const bases = defineReports([
  complianceReport,
  catchUpReport,
  unpaidInvoicesReport,
  orderAgeingReport,
  arRollforwardReport,
]);

export type BaseName = 'compliance' | 'catch-up' | 'unpaid-invoices' | 'order-ageing' | 'ar-rollforward';

/** A base report's result as of one instant, read whole: its detail rows and summary sheets. */
export interface BaseResult {
  report: BaseName;
  detail: { name: string; rows: Row[] };
  sheets: Map<string, Row[]>;
  warnings: string[];
}

/** Each base's result at one instant, a product of the run (one key per base). */
const BASE_RESULT: Record<BaseName, ProductKey<BaseResult>> = {
  compliance: productKey('changes-base:compliance'),
  'catch-up': productKey('changes-base:catch-up'),
  'unpaid-invoices': productKey('changes-base:unpaid-invoices'),
  'order-ageing': productKey('changes-base:order-ageing'),
  'ar-rollforward': productKey('changes-base:ar-rollforward'),
};

function base(name: BaseName): ReportDefinition {
  const def = bases.find((d) => d.name === name);
  if (def === undefined) throw new Error(`no base report ${name}`);
  return def;
}

async function rowsOf(rows: Iterable<Row> | AsyncIterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** Reads a result as `ohs report` writes it: the detail first, then the summaries and warnings. */
async function readResult(report: BaseName, result: ReportResult): Promise<BaseResult> {
  const detail = { name: result.detail.name, rows: await rowsOf(result.detail.rows) };
  const sheets = new Map<string, Row[]>();
  for (const s of result.summaries()) sheets.set(s.name, await rowsOf(s.rows));
  return { report, detail, sheets, warnings: result.warnings() };
}

/**
 * A base report as of the run's own reading (`at` undefined: the changes report's own parameters,
 * the same as `report all` hands that report, so what it is built on is shared in the run) or as
 * of an earlier instant (its as-of that instant, the mirror read as known then). Its own options
 * only, `extra` over them. Read once per run for equal parameters (ReportRun.product).
 */
export function baseAt(
  input: ReportInput<ChangesOptions>,
  name: BaseName,
  at: number | undefined,
  extra: Record<string, unknown> = {},
): Promise<BaseResult> {
  const def = base(name);
  const own = new Set(def.options);
  const options = {
    ...Object.fromEntries(Object.entries(input.params.options).filter(([k]) => own.has(k))),
    ...extra,
  };
  // The earlier side: its as-of that instant, the mirror read as known then, in the same run.
  const params: ReportParams =
    at === undefined
      ? { ...input.params, options }
      : {
          time: reportTime(asOfInstant(at, input.common.timezone), { run: input.params.time.run }),
          orgIds: input.params.orgIds,
          options,
        };
  return input.run.product(BASE_RESULT[name], sideKey(params), async () =>
    readResult(name, await def.run({ db: input.db, params, run: input.run })),
  );
}

/** What a base result depends on: the instant read, the as-of, the orgs, the report's own options. */
function sideKey(params: ReportParams) {
  return {
    at: params.time.mirrorAt,
    asOf: [params.time.asOf.source, params.time.at],
    orgIds: params.orgIds,
    options: params.options,
  };
}

/** The base reports a run can hand to the changes report as it writes them (not the roll-forward: its period is the changes report's). */
const shared = new Set<string>(['compliance', 'catch-up', 'unpaid-invoices', 'order-ageing']);

/**
 * A base report's result as `report all` writes it, kept for the changes report of the same run:
 * its rows are read once, by the writer, and handed on, so the base report at the run's instant
 * is built once in the run. `wrap` the result before it is written, `offer` it after; a sheet
 * whose rows are not a list (read once only) keeps it from being offered: the changes report
 * then builds its own.
 */
export class BaseTap {
  private detail: Row[] = [];
  private readonly sheets = new Map<string, Row[]>();
  private complete = true;

  private constructor(
    private readonly name: BaseName,
    private readonly params: ReportParams,
  ) {}

  /** A tap for a report of the run, when the run has a changes report to hand it to. */
  static for(name: string, params: ReportParams, chosen: readonly string[]): BaseTap | undefined {
    if (!chosen.includes('changes') || !shared.has(name)) return undefined;
    const def = base(name as BaseName);
    const own = new Set(def.options);
    const options = Object.fromEntries(Object.entries(params.options).filter(([k]) => own.has(k)));
    return new BaseTap(name as BaseName, { ...params, options });
  }

  wrap(result: ReportResult): ReportResult {
    const rows = result.detail.rows;
    const kept = this.detail;
    return {
      ...result,
      detail: {
        ...result.detail,
        rows: {
          [Symbol.asyncIterator]: async function* () {
            kept.length = 0;
            for await (const r of rows) {
              kept.push(r);
              yield r;
            }
          },
        },
      },
      summaries: () => {
        const sheets = result.summaries();
        for (const s of sheets)
          if (Array.isArray(s.rows)) this.sheets.set(s.name, s.rows as Row[]);
          else this.complete = false;
        return sheets;
      },
    };
  }

  /** Hands the result written to the changes report of the run (once per key, as baseAt reads it). */
  offer(run: ReportRun, detailName: string): void {
    if (!this.complete) return;
    const result: BaseResult = {
      report: this.name,
      detail: { name: detailName, rows: this.detail },
      sheets: this.sheets,
      warnings: [],
    };
    void run.product(BASE_RESULT[this.name], sideKey(this.params), () => Promise.resolve(result));
  }
}
