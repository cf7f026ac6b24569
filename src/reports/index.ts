import type { z } from 'zod';
import { accountsAtRiskReport } from './accounts-at-risk/index.js';
import { arRollforwardReport } from './ar-rollforward/index.js';
import { catchUpReport } from './catch-up/index.js';
import { changesReport } from './changes/index.js';
import { complianceReport } from './compliance/index.js';
import { defineReports } from './core/runner.js';
import type { ReportDefinition as Definition, ReportDeclaration } from './core/types.js';
import { orderAgeingReport } from './order-ageing/index.js';
import { unpaidInvoicesReport } from './unpaid-invoices/index.js';

/**
 * The reports of docs/reports.md, a folder each (its options, queries, rows and sheets), run by one
 * runner (runner.ts). Adding a report: its folder, and one line here. Rendering is generic
 * (src/render); no report calls the API.
 */
const declarations = [
  complianceReport,
  unpaidInvoicesReport,
  orderAgeingReport,
  catchUpReport,
  arRollforwardReport,
  accountsAtRiskReport,
  changesReport,
] as const;

/** The name of a report: `compliance`, `unpaid-invoices`, `order-ageing`. */
export type ReportName = (typeof declarations)[number]['name'];

/**
 * The typed product a report of the registry publishes (the `facts` of its build, its
 * declaration's third type parameter): what the application reads of a report it ran.
 */
export type ProductOf<N extends ReportName> =
  Extract<(typeof declarations)[number], { name: N }> extends ReportDeclaration<z.ZodObject, N, infer P>
    ? P
    : never;

/** A report of the registry, as the application runs it. */
export type ReportDefinition = Definition<ReportName>;

export const reports: ReportDefinition[] = defineReports<ReportName>(declarations);

/** The report of a name (`compliance`, `unpaid-invoices`, `order-ageing`), or undefined. */
export function reportByName(name: string): ReportDefinition | undefined {
  return reports.find((r) => r.name === name);
}

/** The report of a name of the registry. */
export function reportNamed(name: ReportName): ReportDefinition {
  const report = reportByName(name);
  if (report === undefined) throw new Error(`no report ${name} in the registry`);
  return report;
}

/*
 * The door of the report layer: what code outside src/reports/ reads of a report folder is
 * re-exported here (.dependency-cruiser.cjs, report-through-registry), never imported from the
 * folder itself.
 */
export { LINES } from './ar-rollforward/columns.js';
export type { RollforwardProduct } from './ar-rollforward/facts.js';
export type { HeadlineCounts } from './changes/headline.js';
export type { YtdFacts } from './compliance/figures.js';
export { ReportParamError } from './core/errors.js';
export { ReportRun } from './core/run.js';
export type { ReportParams } from './core/types.js';
export { checkOrgYear, packetContents, packetFiles } from './packet/index.js';
export type { UnpaidProduct } from './unpaid-invoices/summary.js';

/** The zod declaration of a report's options (`ohs report NAME --help` lists it), or undefined. */
export function reportOptionsSchema(name: string): (typeof declarations)[number]['options'] | undefined {
  return declarations.find((d) => d.name === name)?.options;
}
