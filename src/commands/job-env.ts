import { createClient, type OhsClient } from '../api/index.js';
import type { JobEnv } from '../app/jobs.js';
import type { Config } from '../config/index.js';
import { today } from '../dates.js';
import type { Logger } from '../log.js';
import { openMirror } from '../mirror/index.js';
import { shareRateBudget } from './context.js';

/** A job's environment from the configuration; `close()` releases the client and the mirror. */
export async function openJobEnv(
  config: Config,
  logger: Logger,
  signal: AbortSignal,
  asOf?: string,
): Promise<JobEnv & { close: () => Promise<void> }> {
  const mirror = await openMirror(config.db, { storeSensitive: config.mirror.storeSensitive });
  let client: OhsClient | undefined;
  return {
    config,
    logger,
    mirror,
    signal,
    asOf: asOf ?? today(config.timezone),
    client: () => {
      client ??= shareRateBudget(createClient(config, logger), mirror);
      return client;
    },
    close: async () => {
      await client?.close();
      await mirror.close();
    },
  };
}
