import { type ApiConfig, type Config, resolveToken } from '../config/index.js';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';
import { rememberSecret } from '../util/mask.js';
import { type ClientOptions, OhsClient } from './client.js';
import type { RateBudgetStore } from './rate/index.js';
import { transportSettings } from './transport.js';

export * from './client.js';
export * from './envelope.js';
export * from './errors.js';
export * from './metrics.js';
export * from './probe.js';
export * from './rate/index.js';
export * from './service-check.js';
export * from './transport.js';

/** Whether a base URL sends requests unencrypted over the network (http:// to a non-loopback host). */
export function sentInClear(baseUrl: string): boolean {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return false;
  }
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
  return u.protocol === 'http:' && !loopback;
}

/** The client's paging settings, from config `api` (resolved: the client defaults none of them). */
export function pagingOptions(api: ApiConfig): Pick<ClientOptions, 'pageSize' | 'pageCap' | 'fieldsParam'> {
  return { pageSize: api.pageSize, pageCap: api.pageCap, fieldsParam: api.fieldsParam };
}

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
  rememberSecret(token);
  const { api } = config;
  if (logger !== undefined && sentInClear(config.baseUrl))
    logger.warn(
      { host: new URL(config.baseUrl).host },
      'plain http:// to a host that is not this machine: the token and personal data (SSNs, birth dates) cross the network unencrypted; use https://',
    );
  return new OhsClient({
    baseUrl: config.baseUrl,
    token,
    ...transportSettings(api),
    ...pagingOptions(api),
    envelope: { key: api.envelopeKey, totalKey: api.totalKey },
    ...(logger === undefined ? {} : { logger }),
    ...(rateBudget === undefined ? {} : { rateBudget }),
  });
}
