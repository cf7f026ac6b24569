export * from './amount.js';
export * from './apply.js';
export { Claims, type EvidenceRead, readsOf } from './claims.js';
export * from './errors.js';
export * from './ops/index.js';
export * from './outbox.js';
export * from './plan.js';
export * from './privacy.js';
export * from './validate.js';
