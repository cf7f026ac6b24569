import { reportNamed } from './index.js';

/**
 * The order-ageing report as the registry runs it, and what its folder (order-ageing/) exports:
 * this path is kept for the tests and benches that import it; the report is the folder.
 */
export const orderAgeing = reportNamed('order-ageing');
export * from './order-ageing/index.js';
