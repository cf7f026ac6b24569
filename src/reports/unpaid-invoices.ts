import { reportNamed } from './index.js';

/**
 * The unpaid-invoices report (its folder: unpaid-invoices/) as the registry runs it, with what its folder exports: the
 * module the tests and benches import by this path.
 */
export const unpaidInvoices = reportNamed('unpaid-invoices');
export * from './unpaid-invoices/index.js';
