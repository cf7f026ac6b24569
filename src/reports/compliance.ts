import { reportNamed } from './index.js';

/**
 * The compliance report as the registry runs it, and what its folder (compliance/) exports:
 * this path is kept for the tests and benches that import it; the report is the folder.
 */
export const compliance = reportNamed('compliance');
export * from './compliance/index.js';
