import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { OhsClient } from '../api/index.js';
import { type Config, type ConfigFlags, loadConfig, tokenFileWarning } from '../config/index.js';
import { createLogger, type Logger } from '../log.js';
import { engineOf, type Mirror, MirrorRateBudget, noMirror, openMirror } from '../mirror/index.js';
import { setQuiet } from '../terminal.js';

export interface GlobalFlags extends ConfigFlags {
  logLevel?: string;
  /** `--quiet`: nothing on the terminal but a failure's own line. */
  quiet?: boolean;
}

export interface CommandContext {
  config: Config;
  logger: Logger;
  /** Opens the configured mirror (config db, --db) for what the command means to do with it. */
  mirror: (intent: MirrorIntent) => Promise<Mirror>;
}

/**
 * What a command means to do with the mirror, which decides how it is opened:
 * - `read`: an existing mirror (a mistyped --db must not answer from a new, empty one), opened
 *   read-only when this process cannot write it (status, report, dashboard);
 * - `write`: an existing mirror, opened for writing (plan, apply, outbox, policy import, the jobs
 *   that do not sync, the source of mirror copy);
 * - `fill`: the mirror a sync fills, created when absent (sync, the jobs that sync, cron, demo).
 */
export type MirrorIntent = 'read' | 'write' | 'fill';

/** Loads the configuration (defaults < local file < environment < flags) and makes the logger. */
export function commandContext(cmd: Command): CommandContext {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const config = loadConfig(configFlags(cmd));
  setQuiet(flags.quiet === true);
  // Quiet means quiet: errors only, in every format (the log file too).
  const level =
    flags.quiet === true && !['fatal', 'error', 'silent'].includes(config.logLevel)
      ? 'error'
      : config.logLevel;
  const logger = createLogger({ level, format: config.logFormat, file: config.logFile });
  const warning = tokenFileWarning(config);
  if (warning !== undefined) logger.warn(warning);
  return { config, logger, mirror: (intent) => openMirrorFor(intent, config) };
}

/** The flags of a command line that set configuration keys (global or the command's own). */
export function configFlags(cmd: Command): ConfigFlags {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  return {
    ...(flags.config === undefined ? {} : { config: flags.config }),
    ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
    ...(flags.db === undefined ? {} : { db: flags.db }),
    ...(flags.logLevel === undefined ? {} : { logLevel: flags.logLevel }),
    ...(flags.logFormat === undefined ? {} : { logFormat: flags.logFormat }),
    ...(flags.logFile === undefined ? {} : { logFile: flags.logFile }),
    ...(flags.tokenFile === undefined ? {} : { tokenFile: flags.tokenFile }),
  };
}

/** Opens the mirror `target` names (default config db) for `intent` (see MirrorIntent). */
export async function openMirrorFor(
  intent: MirrorIntent,
  config: Pick<Config, 'db' | 'mirror'>,
  target = config.db,
): Promise<Mirror> {
  const storeSensitive = config.mirror.storeSensitive;
  switch (intent) {
    case 'read':
      if (!mirrorMayExist(target)) throw noMirror(target);
      return openMirror(target, { storeSensitive, readonlyFallback: true });
    case 'write':
      return openMirror(target, { storeSensitive, mustExist: true });
    case 'fill':
      return openMirror(target, { storeSensitive });
  }
}

/**
 * False when `target` is a SQLite file that is not there; a PostgreSQL database is only known
 * to hold a mirror once connected, so true.
 */
export function mirrorMayExist(target: string): boolean {
  return engineOf(target) === 'postgres' || existsSync(target);
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
