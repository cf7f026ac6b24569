import { OhsError, type OhsErrorOptions } from '../errors.js';

/**
 * Failures of a call to the service, one class per kind, each with a stable `code`. Errors that
 * carry a response keep its status and whatever body the service sent (`detail`). Messages name
 * the operation (`POST /vLatest/query/core/orderitem`) and never hold the token.
 */
export interface ApiErrorOptions extends OhsErrorOptions {
  status?: number;
  method: string;
  path: string;
  attempts?: number;
  /** The service's text (an error body), masked when read: see `ApiError.serviceText`. */
  serviceText?: () => string;
}

export abstract class ApiError extends OhsError {
  override name = 'ApiError';
  readonly status: number | undefined;
  readonly method: string;
  readonly path: string;
  readonly attempts: number;
  /**
   * The text the service answered with (its error body), through the masking gate, made when
   * read. Withheld from the message and `detail` (src/util/refusal.ts): shown only by `ohs apply
   * --show-service-text` on a terminal, never stored or logged. Not enumerable, so no
   * serializer of the error (a log line's `err`) meets it.
   */
  declare readonly serviceText: string | undefined;

  constructor(code: string, message: string, options: ApiErrorOptions) {
    super(code, `${message}: ${options.method} ${options.path}`, options);
    this.status = options.status;
    this.method = options.method;
    this.path = options.path;
    this.attempts = options.attempts ?? 1;
    const text = options.serviceText;
    let shown: string | undefined;
    Object.defineProperty(this, 'serviceText', {
      enumerable: false,
      get: () => {
        if (text !== undefined) shown ??= text();
        return shown;
      },
    });
  }
}

/** 400 (or another 4xx without a class of its own): the service rejected the request. */
export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
  constructor(message: string, options: ApiErrorOptions) {
    super('INVALID_REQUEST', message, options);
  }
}

/** 401: the token is missing, wrong or expired. Stops the whole run. */
export class UnauthorizedError extends ApiError {
  override name = 'UnauthorizedError';
  override readonly exitCode = 3;
  constructor(options: ApiErrorOptions) {
    super(
      'UNAUTHORIZED',
      'the service refused the token (401): it is missing, wrong or expired; set OHS_TOKEN or OHS_TOKEN_FILE',
      options,
    );
  }
}

/** 403: the token may not do this (a read-only token sending a write, say). */
export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  override readonly exitCode = 3;
  constructor(options: ApiErrorOptions) {
    super('FORBIDDEN', 'the token is not allowed to do this (403)', options);
  }
}

/** 404: no such record (or no such operation at this base URL). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(options: ApiErrorOptions) {
    super('NOT_FOUND', 'not found (404)', options);
  }
}

/** 429 after every retry allowed was spent. */
export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  override readonly exitCode = 4;
  constructor(options: ApiErrorOptions) {
    super('RATE_LIMITED', `still rate limited (429) after ${options.attempts ?? 1} attempts`, options);
  }
}

/** 5xx after every retry allowed was spent. */
export class ServerError extends ApiError {
  override name = 'ServerError';
  override readonly exitCode = 4;
  constructor(options: ApiErrorOptions) {
    super(
      'SERVER_ERROR',
      `the service failed (${options.status ?? '5xx'}) ${options.attempts ?? 1} times`,
      options,
    );
  }
}

/** The connection failed, dropped or timed out, after every retry allowed. */
export class NetworkError extends ApiError {
  override name = 'NetworkError';
  override readonly exitCode = 4;
  constructor(message: string, options: ApiErrorOptions, code = 'NETWORK') {
    super(code, message, options);
  }
}

/**
 * The first request of a run found no service at the base URL (connection refused, unknown
 * host): nothing is retried, every other request fails with the same error at once. The message
 * names the host tried (never the token). A network error whose request never left (write-back
 * keeps a create queued).
 */
export class UnreachableError extends NetworkError {
  override name = 'UnreachableError';
  constructor(origin: string, why: string, options: ApiErrorOptions) {
    super(
      `no service at ${origin} (${why}): check baseUrl (OHS_BASE_URL) and that the service is up`,
      options,
      'UNREACHABLE',
    );
  }
}

/** A response we cannot read: truncated, not JSON, or not the shape the interface gives. */
export class ProtocolError extends ApiError {
  override name = 'ProtocolError';
  override readonly exitCode = 4;
  constructor(message: string, options: ApiErrorOptions) {
    super('PROTOCOL', message, options);
  }
}

/**
 * A create (POST payment, person, org) whose outcome is unknown: the request may have been
 * carried out, but no readable answer came back. It is never resent blindly; write-back
 * reconciles it against what the service shows.
 */
export class OutcomeUnknownError extends ApiError {
  override name = 'OutcomeUnknownError';
  override readonly exitCode = 5;
  constructor(message: string, options: ApiErrorOptions) {
    super('OUTCOME_UNKNOWN', `outcome unknown, not resent (${message})`, options);
  }
}
