import { type ClientOptions, OhsClient, pagingOptions } from '../../src/api/index.js';
import type { RunningSim } from '../../src/sim/index.js';
import { defaults } from './defaults.js';
import { WRITE_TOKEN } from './sim.js';

/** A client of the sandbox with fast retries (tests should not wait on real backoff). */
export function clientFor(sim: RunningSim, options: Partial<ClientOptions> = {}): OhsClient {
  return new OhsClient({
    baseUrl: sim.url,
    token: WRITE_TOKEN,
    concurrency: 4,
    requestsPerSecond: 1000,
    timeoutMs: 5_000,
    maxRetries: 8,
    retryBaseMs: 5,
    retryMaxMs: 100,
    ...pagingOptions(defaults.api),
    ...options,
  });
}

/** Ids of records, sorted ascending. */
export function idsOf(records: readonly { id?: unknown }[]): (number | string)[] {
  return records.map((r) => r.id as number | string).sort((a, b) => Number(a) - Number(b));
}
