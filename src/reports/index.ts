import { compliance } from './compliance.js';
import { orderAgeing } from './order-ageing.js';
import type { ReportDefinition } from './types.js';
import { unpaidInvoices } from './unpaid-invoices.js';

/**
 * The reports of REPORTS.md, one module each: a Kysely query over the mirror, its columns and a
 * description. Rendering is generic (src/render); no report calls the API.
 */
export const reports: ReportDefinition[] = [compliance, unpaidInvoices, orderAgeing];

/** The report of a name (`compliance`, `unpaid-invoices`, `order-ageing`), or undefined. */
export function reportByName(name: string): ReportDefinition | undefined {
  return reports.find((r) => r.name === name);
}

export { ReportParamError } from './errors.js';
export type { ReportContext, ReportDefinition, ReportParams } from './types.js';
