export { acquireLock } from '../mirror/index.js';

export { streamNames, streams } from './streams.js';
export { assertStreamNames, type RunSyncOptions, runSync, type SyncReport } from './sync.js';
export * from './types.js';
