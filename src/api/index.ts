import { type Config, resolveToken } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { OhsClient } from './client.js';
import type { RateBudgetStore } from './rate/index.js';

export * from './client.js';
export * from './envelope.js';
export * from './errors.js';
export * from './metrics.js';
export * from './probe.js';
export * from './rate/index.js';
export * from './transport.js';

/**
 * A client configured from the configuration; fails with a clear line when no token is set.
 * With `rateBudget` (the mirror's), it shares one rate budget with every process on the mirror.
 */
export function createClient(config: Config, logger?: Logger, rateBudget?: RateBudgetStore): OhsClient {
  const token = resolveToken(config);
  if (token === undefined) {
    throw new ConfigError(
      'no token: set OHS_TOKEN, or OHS_TOKEN_FILE (or --token-file) to a file holding it',
    );
  }
  const { api } = config;
  return new OhsClient({
    baseUrl: config.baseUrl,
    token,
    concurrency: api.concurrency,
    maxConcurrency: Math.max(api.concurrency, api.maxConcurrency),
    requestsPerSecond: api.requestsPerSecond,
    timeoutMs: api.timeoutMs,
    requestDeadlineMs: api.requestDeadlineMs,
    maxResponseBytes: api.maxResponseBytes,
    maxRetries: api.maxRetries,
    maxRateLimitRetries: api.maxRateLimitRetries,
    retryBaseMs: api.retryBaseMs,
    retryMaxMs: api.retryMaxMs,
    pageSize: api.pageSize,
    pageCap: api.pageCap,
    fieldsParam: api.fieldsParam,
    envelope: { key: api.envelopeKey, totalKey: api.totalKey },
    ...(logger === undefined ? {} : { logger }),
    ...(rateBudget === undefined ? {} : { rateBudget }),
  });
}
