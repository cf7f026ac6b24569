export * from './apply.js';
export * from './errors.js';
export * from './ops.js';
export * from './outbox.js';
export * from './plan.js';
export * from './validate.js';
