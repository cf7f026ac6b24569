import { maskText } from './util/mask.js';
import { printable } from './util/printable.js';

/**
 * One base class for every failure we report, and one subclass per kind, each with a stable
 * `code` that scripts and tests match on (never the message). The CLI maps `exitCode` to the
 * process exit status and prints one line: `ohs: CODE: message`.
 */
export interface OhsErrorOptions {
  cause?: unknown;
  /** Anything worth keeping for diagnosis (a response body, a file position). */
  detail?: unknown;
}

export class OhsError extends Error {
  override name = 'OhsError';
  readonly code: string;
  readonly exitCode: number = 1;
  readonly detail: unknown;

  constructor(code: string, message: string, options: OhsErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.detail = options.detail;
  }
}

/** A command line that cannot be run as given (unknown option, bad value). Exit status 2. */
export class UsageError extends OhsError {
  override name = 'UsageError';
  override readonly exitCode = 2;
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('USAGE', message, options);
  }
}

/** A configuration value that fails validation; the message names the key. Exit status 2. */
export class ConfigError extends OhsError {
  override name = 'ConfigError';
  override readonly exitCode = 2;
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('CONFIG_INVALID', message, options);
  }
}

/** An input file that cannot be read or parsed. Exit status 2. */
export class InputError extends OhsError {
  override name = 'InputError';
  override readonly exitCode = 2;
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('INPUT_INVALID', message, options);
  }
}

/** An output path (`--out`, a report file) that cannot be written: not a folder, no permission. Exit status 2. */
export class OutputError extends OhsError {
  override name = 'OutputError';
  override readonly exitCode = 2;
  constructor(message: string, options: OhsErrorOptions = {}) {
    super('OUTPUT_INVALID', message, options);
  }
}

export function isOhsError(err: unknown): err is OhsError {
  return err instanceof OhsError;
}

/** The longest error text printed, logged or stored (sync_run.error, the outbox's error). */
export const MAX_ERROR_CHARS = 2000;

/**
 * A short description of any thrown value, for one log or error line and for what is stored:
 * secrets masked (the token, any Authorization value, a URL's password: `maskText`), control
 * characters shown escaped (text from the service may carry terminal escape sequences) and cut
 * to MAX_ERROR_CHARS (a service's error message may be 200 KB).
 */
export function describeError(err: unknown): string {
  return printable(maskText(err instanceof Error ? err.message : String(err)), MAX_ERROR_CHARS);
}
