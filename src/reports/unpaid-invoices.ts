import { reportNamed } from './index.js';

/**
 * The unpaid-invoices report as the registry runs it, and what its folder (unpaid-invoices/) exports:
 * this path is kept for the tests and benches that import it; the report is the folder.
 */
export const unpaidInvoices = reportNamed('unpaid-invoices');
export * from './unpaid-invoices/index.js';
