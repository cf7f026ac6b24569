import { createClient, type OhsClient, verifyService } from '../api/index.js';
import type { JobEnv } from '../app/jobs.js';
import type { Config } from '../config/index.js';
import { type AsOf, asOfNow } from '../dates.js';
import type { Logger } from '../log.js';
import { type MirrorIntent, openMirrorFor, shareRateBudget } from './context.js';

/**
 * A job's environment from the configuration, its mirror opened for `intent` (`fill` for the
 * jobs that sync); `close()` releases the client and the mirror. With `checkService` (a job that
 * talks to the service, run once: `ohs run`), the service check runs first, so that a wrong URL
 * or token creates nothing, not even an empty mirror.
 */
export async function openJobEnv(
  config: Config,
  logger: Logger,
  signal: AbortSignal,
  intent: Exclude<MirrorIntent, 'read'>,
  asOf?: AsOf,
  checkService = false,
): Promise<JobEnv & { close: () => Promise<void> }> {
  let client: OhsClient | undefined;
  if (checkService) {
    const checking = createClient(config, logger);
    client = checking;
    await verifyService(checking).catch(async (err: unknown) => {
      await checking.close();
      throw err;
    });
  }
  const mirror = await openMirrorFor(intent, config).catch(async (err: unknown) => {
    await client?.close();
    throw err;
  });
  if (client !== undefined) shareRateBudget(client, mirror);
  return {
    config,
    logger,
    mirror,
    signal,
    // Absent: the clock now (the job's start; its reports take the clock again once its sync is in).
    asOf: asOf ?? asOfNow(config.timezone),
    serviceChecked: checkService,
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
