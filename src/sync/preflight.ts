import { NetworkError, NotFoundError, type OhsClient, type RequestCounter } from '../api/index.js';
import { OhsError } from '../errors.js';
import type { Logger } from '../log.js';
import { displayBaseUrl, type Mirror } from '../mirror/index.js';
import { nowIso } from './passes.js';
import type { QueryStreamDecl, StreamDecl } from './types.js';

/**
 * The service is not at the base URL: a query route every service has answered 404. Nothing was
 * read, written or deleted; the message names the URL tried and the key to fix.
 */
export class ServiceNotFoundError extends OhsError {
  override name = 'ServiceNotFoundError';
  override readonly exitCode = 2;
  constructor(baseUrl: string, request: string) {
    super(
      'SERVICE_NOT_FOUND',
      `no service at ${baseUrl}: ${request} answered 404 (check baseUrl / OHS_BASE_URL: the URL before /v2/...); nothing was read or deleted`,
    );
  }
}

/**
 * One request before any stream runs (one record of a query stream of the run, roles first), so that a service
 * that is not there stops the run with one error before any stream reads, writes or deletes:
 * - a 404 is no record gone but a service not found at this URL (a wrong base URL or path
 *   prefix), which would otherwise answer 404 to every id an id stream asks;
 * - a network failure after the client's retries (no connection, or no whole answer within the
 *   request deadline twice: a trickling service) would fail every stream the same way, each
 *   after its own retries.
 * Returns the stream whose route was asked, and that error (none when the route answered; any
 * other failure, a refused token say, is left to the streams, which report it as before).
 */
export async function checkService(
  client: OhsClient,
  chosen: readonly StreamDecl[],
  counter: RequestCounter,
): Promise<{ stream?: string; error?: OhsError }> {
  // A query stream of the run (the smallest first): its route must answer on a right base URL.
  // A run of id streams alone has no such route; their deletions rest on a witness instead.
  const query = chosen
    .filter((s): s is QueryStreamDecl => s.kind === 'query')
    .sort((a, b) => (a.resource === 'Role' ? -1 : b.resource === 'Role' ? 1 : 0))[0];
  if (query === undefined) return {};
  const stream = query.name;
  try {
    // Counted as that stream's requests, so the streams' requests add up to the run's.
    await client.scoped({ counter }).query(query.resource, { pageSize: 1, return: ['id'] });
    return { stream };
  } catch (err) {
    if (err instanceof NotFoundError) {
      const where = `${err.method} ${err.path}`;
      return { stream, error: new ServiceNotFoundError(displayBaseUrl(client.baseUrl), where) };
    }
    if (err instanceof NetworkError) return { stream, error: err };
    return { stream };
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
