import { connect as tlsConnect } from 'node:tls';
import { OhsError } from '../errors.js';
import { undici } from '../util/undici.js';
import type { CheckTarget, OhsClient } from './client.js';
import { errorMember, unwrapList } from './envelope.js';
import { NetworkError, NotFoundError, ProtocolError, UnauthorizedError, UnreachableError } from './errors.js';
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

/**
 * The scheme of the base URL is not what the server speaks: `https://` to a plain-HTTP server
 * (OpenSSL's "wrong version number"), or `http://` to a server that speaks TLS (it closes the
 * connection, or answers nginx's "plain HTTP request was sent to HTTPS port"). Nothing is retried.
 */
export class WrongSchemeError extends OhsError {
  override name = 'WrongSchemeError';
  override readonly exitCode = 2;
  constructor(baseUrl: string, found: 'plain' | 'tls') {
    const [used, fix] = found === 'plain' ? ['https://', 'http://'] : ['http://', 'https://'];
    const speaks = found === 'plain' ? 'plain HTTP' : 'TLS (HTTPS)';
    super(
      'WRONG_SCHEME',
      `${used} but the server at ${baseUrl} speaks ${speaks}: use ${fix} in baseUrl / OHS_BASE_URL; nothing was read or deleted`,
    );
  }
}

/** The server speaks TLS, but its certificate is not trusted here (self-signed, expired, another name). */
export class TlsUntrustedError extends OhsError {
  override name = 'TlsUntrustedError';
  override readonly exitCode = 2;
  constructor(baseUrl: string, why: string) {
    super(
      'TLS_UNTRUSTED',
      `the TLS certificate of ${baseUrl} is not trusted (${why}): check the host name in baseUrl, or give the certificate's CA in NODE_EXTRA_CA_CERTS; nothing was read or deleted`,
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
  const body = err.serviceText?.trimStart();
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

/** What one look at the base URL found. */
type Look =
  | { kind: 'service' }
  /** Decided at once: the error to throw. */
  | { kind: 'decided'; error: OhsError }
  /** Another server's sign (asked once more before concluding): what was found, for the message. */
  | { kind: 'other'; what: string }
  /** A fault or the service's own odd answer: left to the client's retries. */
  | { kind: 'unclear' };

/** OpenSSL's words for a TLS handshake that met plain HTTP. */
const PLAIN_HTTP_TLS =
  /wrong version number|packet length too long|unknown protocol|ERR_SSL_(WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG)/i;
/** Certificate errors (Node's codes of the X.509 checks). */
const CERT_CODES =
  /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/;
/** A connection closed or answered with bytes that are not HTTP: what a TLS server does to plain HTTP. */
const CLOSED = /^(UND_ERR_SOCKET|ECONNRESET|EPIPE|HPE_[A-Z_]+|UND_ERR_CLOSED)$/;
const STATUS_TEXT: Record<number, string> = { 405: 'Method Not Allowed', 501: 'Not Implemented' };
const BODY_BYTES = 64 * 1024;

function errCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return 'UNKNOWN';
}

/** Whether a TLS handshake succeeds at host:port (any certificate): the server speaks TLS. */
function speaksTls(url: URL, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tlsConnect({
      host,
      port: Number(url.port || 80),
      rejectUnauthorized: false,
      ...(/^[\d.]+$|:/.test(host) ? {} : { servername: host }),
    });
    const end = (yes: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(yes);
    };
    const timer = setTimeout(() => end(false), ms);
    socket.once('secureConnect', () => end(true));
    socket.once('error', () => end(false));
  });
}

/** A connection that failed before any answer, judged: the scheme, the certificate, nothing there. */
async function lookAtFault(t: CheckTarget, url: URL, err: unknown): Promise<Look> {
  const code = errCode(err);
  const message = err instanceof Error ? err.message : String(err);
  const where = { method: 'POST', path: t.path };
  const base = shown(t.baseUrl);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND') {
    const why = code === 'ECONNREFUSED' ? 'connection refused' : 'unknown host';
    return { kind: 'decided', error: new UnreachableError(`${url.protocol}//${url.host}`, why, where) };
  }
  if (url.protocol === 'https:' && PLAIN_HTTP_TLS.test(`${code} ${message}`))
    return { kind: 'decided', error: new WrongSchemeError(base, 'plain') };
  if (url.protocol === 'https:' && CERT_CODES.test(code))
    return { kind: 'decided', error: new TlsUntrustedError(base, code) };
  if (url.protocol === 'http:' && CLOSED.test(code) && (await speaksTls(url, Math.min(t.timeoutMs, 5_000))))
    return { kind: 'decided', error: new WrongSchemeError(base, 'tls') };
  return { kind: 'unclear' };
}

/** An answer judged: the service's list, a decided failure, another server's sign, or unclear. */
function lookAtAnswer(t: CheckTarget, status: number, location: string | undefined, text: string): Look {
  const where = { method: 'POST', path: t.path, status };
  const base = shown(t.baseUrl);
  const html = /^<(!doctype|html|head|body|\?xml|!--)/i.test(text.trimStart());
  if (status === 401) return { kind: 'decided', error: new UnauthorizedError(where) };
  if (status === 404) return { kind: 'decided', error: new ServiceNotFoundError(base, `POST ${t.path}`) };
  if (/plain HTTP request was sent to HTTPS port/i.test(text))
    return { kind: 'decided', error: new WrongSchemeError(base, 'tls') };
  if (status === 405 || status === 501)
    return {
      kind: 'other',
      what: `${status} ${STATUS_TEXT[status]} (a server that takes no POST there: a static file server?)`,
    };
  if (status >= 300 && status < 400) {
    if (t.baseUrl.startsWith('http:') && location?.startsWith('https:') === true)
      return { kind: 'decided', error: new WrongSchemeError(base, 'tls') };
    return { kind: 'other', what: `a redirect (${status})` };
  }
  if (html && status !== 429 && status < 500) return { kind: 'other', what: 'an HTML page' };
  if (status < 200 || status >= 300) return { kind: 'unclear' };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'unclear' };
  }
  const list = unwrapList(body, t.envelope);
  if (typeof list === 'string') {
    const object = typeof body === 'object' && body !== null && !Array.isArray(body);
    if (object && errorMember(body as Record<string, unknown>) !== undefined) return { kind: 'unclear' };
    return { kind: 'other', what: 'JSON of another shape' };
  }
  if (list.records.length > 1) return { kind: 'unclear' };
  if (list.records.some((r) => r.id === undefined)) return { kind: 'other', what: 'JSON of another shape' };
  return { kind: 'service' };
}

/**
 * A look's whole time, the answer read included: a service that trickles its answer must not hold
 * the check (the idle timeouts never trip on a byte every few seconds). Past it the look is
 * unclear and the client's own request, with its deadlines and retries, decides.
 */
const LOOK_MS = 10_000;

/** One request of the check, by hand: no retry, its body read up to 64 KiB, then judged. */
async function look(t: CheckTarget, client: OhsClient): Promise<Look> {
  const url = new URL(t.baseUrl);
  const { Client } = undici();
  const http = new Client(url.origin, { connect: { timeout: Math.min(t.timeoutMs, 10_000) } });
  client.transport.metrics.requests++;
  if (t.counter !== undefined) t.counter.requests++;
  try {
    const res = await http.request({
      method: 'POST',
      path: `${url.pathname.replace(/\/+$/, '')}${t.path}`,
      headers: {
        authorization: `Bearer ${t.token}`,
        accept: 'application/json',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ pageSize: 1, return: ['id'] }),
      headersTimeout: t.timeoutMs,
      bodyTimeout: t.timeoutMs,
      signal: AbortSignal.timeout(Math.min(t.timeoutMs, LOOK_MS)),
    });
    let text = '';
    for await (const chunk of res.body) {
      text += (chunk as Buffer).toString('utf8');
      if (text.length >= BODY_BYTES) break;
    }
    const location = res.headers.location;
    return lookAtAnswer(t, res.statusCode, typeof location === 'string' ? location : undefined, text);
  } catch (err) {
    return lookAtFault(t, url, err);
  } finally {
    await http.destroy().catch(() => undefined);
  }
}

/**
 * The one service check of every command that talks to the service (sync, probe, apply, the jobs
 * that sync or push), run before anything is opened or created. It sends one query of one role
 * (the smallest list of the interface) by hand, outside the transport's retries, and a second only
 * when the first found another server's sign (a one-off fault is then told from a server that
 * always answers so); each failure throws with its own code and one line saying what to check:
 * - nothing listening: `UNREACHABLE` (connection refused, unknown host);
 * - `https://` to a plain-HTTP server, or `http://` to a TLS server: `WRONG_SCHEME`;
 * - a certificate not trusted here: `TLS_UNTRUSTED`;
 * - a 404: `SERVICE_NOT_FOUND` (a wrong base URL or path prefix);
 * - another web server (405 or 501 to the POST, a redirect, HTML, JSON of another shape, twice):
 *   `NOT_THE_SERVICE`;
 * - a refused token: `UNAUTHORIZED`.
 * Anything else (a 5xx, a 429, a timeout, a 400, the service's own broken answer: a page longer
 * than asked, an error member, a body cut short) is no sign of another server: the check asks once
 * more through the client, whose retries and errors decide as they do for any request (a network
 * failure throws `NETWORK`; a 5xx after retries is left to the command).
 */
export async function verifyService(client: OhsClient, counter?: RequestCounter): Promise<void> {
  const scoped = counter === undefined ? client : client.scoped({ counter });
  const target = scoped.checkTarget();
  let seen = await look(target, client);
  if (seen.kind === 'other') {
    const first = seen.what;
    seen = await look(target, client);
    if (seen.kind === 'other')
      throw new NotTheServiceError(shown(client.baseUrl), `POST ${target.path}`, first);
  }
  if (seen.kind === 'service') return;
  if (seen.kind === 'decided') throw seen.error;
  await throughClient(scoped, client.baseUrl);
}

/** The check's unclear case asked through the client, with its retries (the check as it was). */
async function throughClient(scoped: OhsClient, baseUrl: string): Promise<void> {
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
    if (err instanceof NotFoundError) throw new ServiceNotFoundError(shown(baseUrl), where(err));
    if (err instanceof ProtocolError && !brokenAnswer(err))
      throw new NotTheServiceError(shown(baseUrl), where(err), answerKind(err));
    if (err instanceof UnauthorizedError || err instanceof NetworkError) throw err;
  }
}
