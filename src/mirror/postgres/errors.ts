import { OhsError } from '../../errors.js';

/**
 * The PostgreSQL engine's errors, apart from the driver: a command that never opens a
 * PostgreSQL mirror does not load `pg` to know them.
 */

/** Why a PostgreSQL mirror could not be used; `code` says which (see `pgError`). */
export class PgMirrorError extends OhsError {
  override name = 'PgMirrorError';
  override readonly exitCode: number;
  constructor(code: PgErrorCode, message: string, cause?: unknown) {
    super(code, message, { cause });
    this.exitCode = code === 'PG_UNREACHABLE' ? 3 : 2;
  }
}

export type PgErrorCode =
  /** No server answered at host:port (refused, unknown host, timeout). */
  | 'PG_UNREACHABLE'
  /** The server answered but has no such database. */
  | 'PG_NO_DATABASE'
  /** The server refused the role or its password. */
  | 'PG_AUTH_FAILED'
  /** The role may connect but lacks a right the mirror needs (create tables, write a table). */
  | 'PG_PERMISSION_DENIED'
  /** Anything else the server or driver said. */
  | 'PG_FAILED';
