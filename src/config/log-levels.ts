/** The levels of `--log-level` and `logLevel` (pino's, and `silent`); apart so the CLI needs no zod to list them. */
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
