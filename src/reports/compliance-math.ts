/** The compliance report's maths (compliance/math.ts), by the path its tests import. */
export * from './compliance/math.js';
