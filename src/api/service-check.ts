import { OhsError } from '../errors.js';
import type { OhsClient } from './client.js';
import { NetworkError, NotFoundError, ProtocolError, UnauthorizedError } from './errors.js';
import type { RequestCounter } from './transport.js';

/** The base URL as shown: origin and path, never credentials or a query string. */
function shown(baseUrl: string): string {
  try {
    const u = new URL(baseUrl);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * The service is not at the base URL: its first query answered 404 (a wrong base URL or path
 * prefix). Nothing was read, written or deleted; the message names the URL tried and the key to fix.
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
 * A server answers at the base URL, but not as the service does: a web page (HTML) or JSON of
 * another shape where the service answers a list of records, twice. Another web server, or a
 * base URL one level off (a portal in front of the service, say).
 */
export class NotTheServiceError extends OhsError {
  override name = 'NotTheServiceError';
  override readonly exitCode = 2;
  constructor(baseUrl: string, request: string, what: string) {
    super(
      'NOT_THE_SERVICE',
      `the server at ${baseUrl} is not the service: ${request} answered ${what} where the service answers a JSON list (check baseUrl / OHS_BASE_URL points at the service's API, not a web site); nothing was read or deleted`,
    );
  }
}

/** What an answer that is no list was, for the message: a web page, other JSON, something else. */
function answerKind(err: ProtocolError): string {
  if (isHtml(err)) return 'an HTML page';
  if (/^not a list response/.test(err.message) || /without an id/.test(err.message))
    return 'JSON of another shape';
  return 'a body that is not JSON';
}

/** Whether the answer was an HTML page (a web site, a portal, a proxy's page). */
function isHtml(err: ProtocolError): boolean {
  const body = typeof err.detail === 'string' ? err.detail.trimStart() : undefined;
  return body !== undefined && /^<(!doctype|html|head|body|\?xml|!--)/i.test(body);
}

/**
 * Whether the answer was the service's own, broken: a body that is neither JSON nor a web page
 * (cut short or garbled in transit: a fault, retried by the command like any other), a list
 * longer than asked, a body cut off at `api.maxResponseBytes`, or JSON carrying an error member. Another web server does not answer
 * so, and calling it NOT_THE_SERVICE would send the user to check a base URL that is right; it is
 * left to the command, which meets it as a protocol error of the stream (recorded, exit 4).
 */
function brokenAnswer(err: ProtocolError): boolean {
  if (isHtml(err)) return false;
  return (
    answerKind(err) === 'a body that is not JSON' ||
    /maxResponseBytes|^a page of \d+ records where pageSize|answered with an error member/.test(err.message)
  );
}

/**
 * The one service check of every command that talks to the service (sync, probe, apply, the jobs
 * that sync or push), run before anything is opened or created: one query of one role (the
 * smallest list of the interface), and a second only when the first answered something that is
 * not a list (a one-off fault is then told from a server that always answers so). It throws, each
 * with its own code and one line saying what to check:
 * - nothing listening: `UNREACHABLE` (from the client: connection refused, unknown host);
 * - a 404: `SERVICE_NOT_FOUND` (a wrong base URL or path prefix);
 * - a web server that is not this service (HTML, or JSON of another shape, twice): `NOT_THE_SERVICE`;
 *   the service's own broken answer (a page longer than asked, a body over `api.maxResponseBytes`,
 *   an error member) is no such sign and is left to the command;
 * - a refused token: `UNAUTHORIZED` (from the client);
 * - no answer within the client's retries: `NETWORK` (from the client).
 * Any other failure (a 5xx after retries, a 400, a broken answer) is left to the command, which
 * meets it as before.
 */
export async function verifyService(client: OhsClient, counter?: RequestCounter): Promise<void> {
  const scoped = counter === undefined ? client : client.scoped({ counter });
  const ask = () => scoped.query('Role', { pageSize: 1, return: ['id'] }, { notJsonIsFinal: true });
  try {
    try {
      await ask();
    } catch (err) {
      // Once more before concluding: a body cut or garbled once is a fault, not another server.
      if (err instanceof ProtocolError && !brokenAnswer(err)) await ask();
      else throw err;
    }
  } catch (err) {
    const where = (e: { method: string; path: string }) => `${e.method} ${e.path}`;
    if (err instanceof NotFoundError) throw new ServiceNotFoundError(shown(client.baseUrl), where(err));
    if (err instanceof ProtocolError && !brokenAnswer(err))
      throw new NotTheServiceError(shown(client.baseUrl), where(err), answerKind(err));
    if (err instanceof UnauthorizedError || err instanceof NetworkError) throw err;
  }
}
