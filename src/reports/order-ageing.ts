import { reportNamed } from './index.js';

/**
 * The order-ageing report (its folder: order-ageing/) as the registry runs it, with what its folder exports: the
 * module the tests and benches import by this path.
 */
export const orderAgeing = reportNamed('order-ageing');
export * from './order-ageing/index.js';
