export * from './budget.js';
export * from './concurrency.js';
export * from './cubic.js';
export * from './headers.js';
export * from './latency.js';
export * from './limiter.js';
export * from './meter.js';
