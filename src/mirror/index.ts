export { copyMirrorInto } from './copy.js';
export type * from './db-types.js';

export {
  AsOfBeforeHistoryError,
  asOf,
  asOfSpan,
  checkAsOf,
  heldAt,
  historyStart,
  latestChange,
  pruneHistory,
} from './history.js';
export { endRun, errorCode, type RunOutcome, type Settled, settle, startRun } from './ledger.js';
export { acquireLock } from './lock.js';
export { machineLock } from './machine-lock.js';
export { maskRecord } from './mask.js';
export { displayBaseUrl, metaKeys, readMeta, writeMeta } from './meta.js';

export { engineOf, openMirror, redactTarget } from './open.js';
export {
  type PolicyVersion,
  policiesAsOf,
  policyColumns,
  policyVersionsAsOf,
  policyVersionsOf,
  writePolicy,
} from './policy-history.js';

export { MirrorRateBudget } from './rate-budget.js';
export { snapshotInto } from './snapshot.js';
export {
  availableDrivers,
  chooseDriver,
  SQLITE_DRIVER_ENV,
  type SqliteDriverName,
  sqliteDriver,
  sqliteDriverNames,
  supportedDrivers,
} from './sqlite/driver.js';
export { alive, STALE_MS } from './sqlite/locks.js';
export {
  type CheckpointRow,
  LockedError,
  type Mirror,
  type MirrorLock,
  type MirrorOptions,
  type MirrorWriter,
  noMirror,
  type SeenState,
  seenState,
  type UpsertCounts,
} from './store.js';
export { tableDefs, tableOf } from './tables.js';
