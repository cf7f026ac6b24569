import { type OhsClient, type RequestCounter, verifyService } from '../api/index.js';
import { OhsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Mirror } from '../mirror/index.js';
import { nowIso } from './passes.js';
import type { StreamDecl } from './types.js';

/**
 * The service check (src/api/service-check.ts) at the start of a run, for a caller that did not
 * run it before opening the mirror (the jobs, in-process callers), so that a service that is not
 * there, or refuses the token, stops the run with one error before any stream reads, writes or
 * deletes: a 404 would otherwise look like every id gone, a refused token fail every stream with
 * the same line. Its requests count as a stream's (a role stream's when the run has one), so the
 * streams' requests add up to the run's. Returns that stream and the check's error, if any; a
 * failure the check does not judge (a 5xx after retries, say) is left to the streams.
 */
export async function checkService(
  client: OhsClient,
  chosen: readonly StreamDecl[],
  counter: RequestCounter,
): Promise<{ stream?: string; error?: OhsError }> {
  const stream = (chosen.find((s) => s.kind === 'query' && s.resource === 'Role') ?? chosen[0])?.name;
  try {
    await verifyService(client, counter);
    return stream === undefined ? {} : { stream };
  } catch (err) {
    if (err instanceof OhsError) return stream === undefined ? { error: err } : { stream, error: err };
    throw err;
  }
}

/**
 * `--restart-passes`: drops the unfinished passes of the streams (their checkpoints, the ids they
 * noted, the records they staged), so this run starts its passes afresh and re-reads instead of
 * resuming a pass whose notes came from another run (a MASS_DELETE left pending, say).
 */
export async function restartPasses(
  mirror: Mirror,
  chosen: readonly StreamDecl[],
  logger: Logger,
): Promise<void> {
  const now = nowIso();
  await mirror.write(async (w) => {
    for (const decl of chosen) {
      await w.clearPassIds(decl.name);
      await w.setPass(decl.name, null, now);
    }
  });
  logger.info({ streams: chosen.length }, 'unfinished passes dropped: this run re-reads');
}
