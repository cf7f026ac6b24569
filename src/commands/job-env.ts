import { createClient, type OhsClient } from '../api/index.js';
import type { JobEnv } from '../app/jobs.js';
import type { Config } from '../config/index.js';
import { today } from '../dates.js';
import type { Logger } from '../log.js';
import { type MirrorIntent, openMirrorFor, shareRateBudget } from './context.js';

/**
 * A job's environment from the configuration, its mirror opened for `intent` (`fill` for the
 * jobs that sync); `close()` releases the client and the mirror.
 */
export async function openJobEnv(
  config: Config,
  logger: Logger,
  signal: AbortSignal,
  intent: Exclude<MirrorIntent, 'read'>,
  asOf?: string,
): Promise<JobEnv & { close: () => Promise<void> }> {
  const mirror = await openMirrorFor(intent, config);
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
