export { copyMirrorInto, MirrorCopyError } from './copy.js';
export type * from './db-types.js';
export { dictionaryRows } from './dictionary.js';
export {
  AsOfBeforeHistoryError,
  asOf,
  asOfSpan,
  checkAsOf,
  heldAt,
  historyStart,
  historyTableOf,
  historyViewOf,
  latestChange,
  pruneHistory,
} from './history.js';
export { endRun, errorCode, type RunOutcome, type Settled, settle, startRun } from './ledger.js';
export { acquireLock } from './lock.js';
export { hasSensitive, maskRecord } from './mask.js';
export { displayBaseUrl, type MetaKey, metaKeys, readMeta, writeMeta } from './meta.js';
export { MigrationError } from './migrations/index.js';
export { engineOf, openMirror, redactTarget } from './open.js';
export {
  type PolicyVersion,
  policiesAsOf,
  policyVersionsAsOf,
  policyVersionsOf,
  writePolicy,
} from './policy-history.js';
export { PgMirrorError } from './postgres/errors.js';
export { redactUrl } from './postgres/url.js';
export { MirrorRateBudget } from './rate-budget.js';
export { operationalTables, snapshotInto } from './snapshot.js';
export {
  availableDrivers,
  chooseDriver,
  SQLITE_DRIVER_ENV,
  type SqliteDatabase,
  SqliteDriverError,
  type SqliteDriverName,
  sqliteDriver,
  sqliteDriverNames,
  supportedDrivers,
} from './sqlite/driver.js';
export { alive, STALE_MS } from './sqlite/locks.js';
export {
  type CheckpointRow,
  type DeletionAudit,
  LockedError,
  type Mirror,
  type MirrorEngine,
  MirrorEngineUnavailableError,
  type MirrorLock,
  MirrorOpenError,
  type MirrorOptions,
  type MirrorWriter,
  NestedWriteError,
  noMirror,
  type SeenState,
  seenState,
  type UpsertCounts,
  type UpsertOptions,
  type WriteOptions,
} from './store.js';
export { bookkeepingColumns, mirroredResources, q, type TableDef, tableDefs, tableOf } from './tables.js';
