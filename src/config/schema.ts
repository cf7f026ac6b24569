import { z } from 'zod';

/**
 * Every configuration key, with its default in config/default.json. Unknown keys are errors
 * (a misspelt key would otherwise be ignored silently).
 */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const apiConfigSchema = z
  .object({
    /** Requests in flight at once. */
    concurrency: z.number().int().min(1).max(64),
    /** Requests started per second, across the whole client. */
    requestsPerSecond: z.number().positive(),
    /** Per-request timeout, milliseconds. */
    timeoutMs: z.number().int().min(100),
    /** Retries of a request that is safe to repeat, after the first attempt. */
    maxRetries: z.number().int().min(0).max(20),
    /** First backoff delay, milliseconds; doubles each retry, with jitter. */
    retryBaseMs: z.number().int().min(0),
    /** Largest backoff delay, milliseconds. */
    retryMaxMs: z.number().int().min(0),
    /** pageSize asked of query operations (the service may send fewer). */
    pageSize: z.number().int().min(1).max(10_000),
    /** Name of the GET field-selection query parameter. */
    fieldsParam: z.string().min(1),
  })
  .strict();

export const configSchema = z
  .object({
    /** Base URL of the service, e.g. https://ohs.example.com/api. */
    baseUrl: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, '')),
    /** Bearer token (from OHS_TOKEN or a token file; never put it in a checked-in file). */
    token: z.string().min(1).optional(),
    /** File holding the bearer token. */
    tokenFile: z.string().min(1).optional(),
    /** The SQLite mirror file. */
    db: z.string().min(1),
    logLevel: z.enum(logLevels),
    /** Reporting time zone (IANA name). */
    timezone: z.string().min(1),
    api: apiConfigSchema,
  })
  .strict();

export type Config = z.output<typeof configSchema>;
export type ApiConfig = z.output<typeof apiConfigSchema>;
