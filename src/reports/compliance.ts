import { reportNamed } from './index.js';

/**
 * The compliance report (its folder: compliance/) as the registry runs it, with what its folder exports: the
 * module the tests and benches import by this path.
 */
export const compliance = reportNamed('compliance');
export * from './compliance/index.js';
