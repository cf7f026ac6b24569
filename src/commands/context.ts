import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { OhsClient } from '../api/index.js';
import { type Config, type ConfigFlags, loadConfig, tokenFileWarning } from '../config/index.js';
import { createLogger, type Logger } from '../log.js';
import { engineOf, type Mirror, MirrorOpenError, MirrorRateBudget, openMirror } from '../mirror/index.js';

export interface GlobalFlags extends ConfigFlags {
  logLevel?: string;
}

export interface CommandContext {
  config: Config;
  logger: Logger;
}

/** Loads the configuration (defaults < local file < environment < flags) and makes the logger. */
export function commandContext(cmd: Command): CommandContext {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const config = loadConfig({
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.db === undefined ? {} : { db: flags.db }),
    ...(flags.logLevel === undefined ? {} : { logLevel: flags.logLevel }),
    ...(flags.tokenFile === undefined ? {} : { tokenFile: flags.tokenFile }),
  });
  const logger = createLogger({ level: config.logLevel });
  const warning = tokenFileWarning(config);
  if (warning !== undefined) logger.warn(warning);
  return { config, logger };
}

/**
 * Opens an existing mirror for reading commands (status, report, dashboard): a SQLite file that
 * is not there is an error (a mistyped --db must not answer from a new, empty mirror), and one
 * the user cannot write is opened read-only.
 */
export async function openMirrorToRead(config: Config): Promise<Mirror> {
  if (engineOf(config.db) === 'sqlite' && !existsSync(config.db))
    throw new MirrorOpenError(`no mirror at ${config.db}: run ohs sync first (or pass --db FILE)`);
  return openMirror(config.db, { storeSensitive: config.mirror.storeSensitive, readonlyFallback: true });
}

/** Makes `client` share one rate budget with every process on `mirror` (see src/api/rate). */
export function shareRateBudget(client: OhsClient, mirror: Mirror): OhsClient {
  client.transport.limiter.share(new MirrorRateBudget(mirror.db));
  return client;
}

/**
 * Resolves when the process gets SIGINT or SIGTERM (for long-running commands). Keeps the process
 * alive until then: signal listeners do not, so `ohs cron` with no schedule (no timers) would
 * otherwise exit by itself right after saying it runs until SIGTERM.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const keepAlive = setInterval(() => {}, 2 ** 30);
    const done = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
