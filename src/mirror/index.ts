export type * from './db-types.js';
export { dictionaryRows } from './dictionary.js';
export { hasSensitive, maskRecord, maskValue } from './mask.js';
export { displayBaseUrl, type MetaKey, metaKeys, readMeta, writeMeta } from './meta.js';
export { MigrationError } from './migrations.js';
export { type Mirror, MirrorOpenError, type MirrorOptions, openMirror } from './open.js';
export { MirrorRateBudget } from './rate-budget.js';
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
export {
  type CheckpointRow,
  type SeenState,
  SqliteAdapter,
  seenState,
  type UpsertCounts,
} from './sqlite-adapter.js';
export { bookkeepingColumns, mirroredResources, q, type TableDef, tableDefs, tableOf } from './tables.js';
