import { asOfInstant } from '../../dates.js';
import type { ReportResult, Row } from '../../render/types.js';
import { arRollforwardReport } from '../ar-rollforward/index.js';
import { catchUpReport } from '../catch-up/index.js';
import { complianceReport } from '../compliance/index.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import { defineReports } from '../runner.js';
import type { ReportDefinition, ReportInput, ReportParams } from '../types.js';
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
 * only, `extra` over them. Read once per run for equal parameters (ReportRun.once).
 */
export function baseAt(
  input: ReportInput<ChangesOptions>,
  name: BaseName,
  at: string | undefined,
  extra: Record<string, unknown> = {},
): Promise<BaseResult> {
  const def = base(name);
  const own = new Set(def.options);
  const options = {
    ...Object.fromEntries(Object.entries(input.params.options).filter(([k]) => own.has(k))),
    ...extra,
  };
  const params: ReportParams =
    at === undefined
      ? { ...input.params, options }
      : {
          asOf: asOfInstant(Date.parse(at), input.common.timezone),
          mirrorAsOf: at,
          orgIds: input.params.orgIds,
          options,
        };
  const key = {
    at: params.mirrorAsOf ?? null,
    asOf: [params.asOf.source, params.asOf.ms],
    orgIds: params.orgIds,
    options,
  };
  return input.run.once(`changes-base:${name}`, key, async () =>
    readResult(name, await def.run({ db: input.db, params, run: input.run })),
  );
}
