import { type ClientOptions, OhsClient, pagingOptions, transportSettings } from '../../src/api/index.js';
import type { ApiConfig } from '../../src/config/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { defaults } from './defaults.js';
import { WRITE_TOKEN } from './sim.js';

/** The `api` section of config/default.json, parsed: the one source of the client's defaults. */
export const apiDefaults: ApiConfig = defaults.api;

/**
 * A client's options: the configuration's defaults, then `options`; the concurrency fixed at
 * `concurrency` unless `maxConcurrency` is given (the tests' clients are not adaptive unless asked).
 */
export function clientOptions(
  options: Partial<ClientOptions> & Pick<ClientOptions, 'baseUrl' | 'token'>,
): ClientOptions {
  const concurrency = options.concurrency ?? apiDefaults.concurrency;
  return {
    ...transportSettings(apiDefaults),
    ...pagingOptions(apiDefaults),
    ...options,
    concurrency,
    maxConcurrency: options.maxConcurrency ?? concurrency,
  };
}

/** A client of the sandbox with fast retries (tests should not wait on real backoff). */
export function clientFor(sim: RunningSim, options: Partial<ClientOptions> = {}): OhsClient {
  return new OhsClient(
    clientOptions({
      baseUrl: sim.url,
      token: WRITE_TOKEN,
      concurrency: 4,
      requestsPerSecond: 1000,
      timeoutMs: 5_000,
      maxRetries: 8,
      retryBaseMs: 5,
      retryMaxMs: 100,
      ...options,
    }),
  );
}

/** Ids of records, sorted ascending. */
export function idsOf(records: readonly { id?: unknown }[]): (number | string)[] {
  return records.map((r) => r.id as number | string).sort((a, b) => Number(a) - Number(b));
}
