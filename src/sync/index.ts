export { acquireLock } from '../mirror/index.js';
export { type StreamEconomy, streamEconomy } from './economy.js';
export { streamNames, streams } from './streams.js';
export {
  assertStreamNames,
  type RunSyncOptions,
  runSync,
  type StreamReport,
  type SyncReport,
} from './sync.js';
export * from './types.js';
