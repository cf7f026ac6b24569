import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { OhsError } from '../../errors.js';

/**
 * Which SQLite driver the mirror runs on, chosen at run time from the Node it runs under.
 *
 * better-sqlite3 12 subclasses `node::ObjectWrap`, which Node 24 changed: on Node 24 a process
 * that finalised statements aborts (`Assertion failed: (env) != nullptr` in
 * `node::RemoveEnvironmentCleanupHook`, exit 134), mid-run or at exit. better-sqlite3 13 is built
 * on Node-API and ships prebuilt binaries needing Node-API 10 (Node 22.14 and later); loaded on
 * Node 20 (Node-API 9) it crashes with SIGSEGV on the first statement. Both have the same
 * JavaScript API, so the rest of the code sees one `Database` type whatever was chosen; 13 is
 * installed under the npm alias `better-sqlite3-13` next to 12.
 *
 * `OHS_SQLITE_DRIVER` forces a driver (tests loop over every driver usable here); a driver that
 * would crash on this Node is refused with a clear error rather than loaded.
 */
export const sqliteDriverNames = ['better-sqlite3-13', 'better-sqlite3-12'] as const;
export type SqliteDriverName = (typeof sqliteDriverNames)[number];

/** The environment variable that forces a driver; `auto` or unset chooses from the Node version. */
export const SQLITE_DRIVER_ENV = 'OHS_SQLITE_DRIVER';

export type SqliteDatabase = BetterSqlite3.Database;
type DatabaseConstructor = typeof BetterSqlite3;

interface DriverDef {
  /** The package `require` loads (an npm alias for 13). */
  packageName: string;
  /** Why it cannot run here, or undefined when it can. */
  unusable(node: NodeInfo): string | undefined;
}

export interface NodeInfo {
  /** `process.versions.node`, e.g. '20.20.2'. */
  version: string;
  /** `process.versions.napi`, e.g. '9'. */
  napi: string | undefined;
}

const major = (node: NodeInfo) => Number(node.version.split('.')[0]);

const drivers: Record<SqliteDriverName, DriverDef> = {
  'better-sqlite3-13': {
    packageName: 'better-sqlite3-13',
    unusable: (node) =>
      Number(node.napi ?? 0) >= 10
        ? undefined
        : `needs Node-API 10 (Node 22.14 or later); Node ${node.version} has Node-API ${node.napi ?? 'none'}`,
  },
  'better-sqlite3-12': {
    packageName: 'better-sqlite3',
    unusable: (node) =>
      major(node) >= 24
        ? `aborts on Node 24 and later (node::ObjectWrap changed); this is Node ${node.version}`
        : undefined,
  },
};

export class SqliteDriverError extends OhsError {
  override name = 'SqliteDriverError';
  override readonly exitCode = 2;
  constructor(message: string, cause?: unknown) {
    super('SQLITE_DRIVER', message, { cause });
  }
}

const currentNode: NodeInfo = { version: process.versions.node, napi: process.versions.napi };

/** The drivers that can run on `node`, best first (13 before 12). */
export function supportedDrivers(node: NodeInfo = currentNode): SqliteDriverName[] {
  return sqliteDriverNames.filter((name) => drivers[name].unusable(node) === undefined);
}

/** The driver to use: `requested` (from OHS_SQLITE_DRIVER) when given, else the best one for `node`. */
export function chooseDriver(requested: string | undefined, node: NodeInfo = currentNode): SqliteDriverName {
  const wanted = requested?.trim() ?? '';
  if (wanted === '' || wanted === 'auto') {
    const best = supportedDrivers(node)[0];
    if (best === undefined) throw new SqliteDriverError(`no SQLite driver supports Node ${node.version}`);
    return best;
  }
  if (!(sqliteDriverNames as readonly string[]).includes(wanted)) {
    throw new SqliteDriverError(
      `${SQLITE_DRIVER_ENV}=${JSON.stringify(wanted)} is not a driver (use auto, ${sqliteDriverNames.join(', ')})`,
    );
  }
  const name = wanted as SqliteDriverName;
  const why = drivers[name].unusable(node);
  if (why !== undefined)
    throw new SqliteDriverError(`${SQLITE_DRIVER_ENV}=${name} cannot be used: it ${why}`);
  return name;
}

const require = createRequire(import.meta.url);
const loaded = new Map<SqliteDriverName, DatabaseConstructor>();

/** The driver's `Database` class; loads the package on first use only, so the other is never loaded. */
export function loadDriver(name: SqliteDriverName): DatabaseConstructor {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const { packageName } = drivers[name];
  let ctor: DatabaseConstructor;
  try {
    ctor = require(packageName) as DatabaseConstructor;
  } catch (err) {
    throw new SqliteDriverError(
      `the SQLite driver ${name} (package ${packageName}) is not installed or failed to load: run npm install (${(err as Error).message.split('\n')[0]})`,
      err,
    );
  }
  loaded.set(name, ctor);
  return ctor;
}

/** Whether the driver's package is installed here (without loading it). */
export function isInstalled(name: SqliteDriverName): boolean {
  try {
    require.resolve(drivers[name].packageName);
    return true;
  } catch {
    return false;
  }
}

/** Drivers both supported on this Node and installed: the ones tests and benchmarks loop over. */
export function availableDrivers(): SqliteDriverName[] {
  return supportedDrivers().filter(isInstalled);
}

/** The driver chosen for this process (OHS_SQLITE_DRIVER, else the best for this Node). */
export function sqliteDriver(env: NodeJS.ProcessEnv = process.env): {
  name: SqliteDriverName;
  Database: DatabaseConstructor;
} {
  const name = chooseDriver(env[SQLITE_DRIVER_ENV]);
  return { name, Database: loadDriver(name) };
}
