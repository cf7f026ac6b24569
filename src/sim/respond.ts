import type { IncomingMessage, ServerResponse } from 'node:http';
import { unquoteRawNumbers } from './hostile.js';
import { SimHttpError } from './http-error.js';
import type { SimOptions } from './options.js';

const MAX_BODY = 16 * 1024 * 1024; // 16 MiB: larger bodies answer 413.

/** A JSON answer (none for 204 or no body); hostile mode writes its raw numbers unquoted. */
export function send(
  res: ServerResponse,
  options: Pick<SimOptions, 'hostile'>,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = options.hostile ? unquoteRawNumbers(JSON.stringify(body)) : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** The service's error body: `{"error":{"status","code","message"}}`, with the error's headers. */
export function sendError(
  res: ServerResponse,
  options: Pick<SimOptions, 'hostile'>,
  err: SimHttpError,
): void {
  send(
    res,
    options,
    err.status,
    { error: { status: err.status, code: err.code, message: err.message } },
    err.headers,
  );
}

/** The trickle mode: the body `bytes` at a time every `everyMs`, until it is sent or the client leaves. */
export function trickle(
  res: ServerResponse,
  status: number,
  body: unknown,
  everyMs: number,
  bytes: number,
): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(text.length),
  });
  let at = 0;
  const timer = setInterval(() => {
    if (res.destroyed || at >= text.length) {
      clearInterval(timer);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(text.subarray(at, at + bytes));
    at += bytes;
  }, everyMs);
  res.once('close', () => clearInterval(timer));
}

/** The answer cut short: status and full Content-Length, half the body, then the connection closes. */
export function truncate(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.socket?.destroy();
    return;
  }
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(text.length) });
  res.write(text.subarray(0, Math.floor(text.length / 2)));
  setImmediate(() => res.socket?.destroy());
}

/** A list answer in the configured envelope: a bare array, or an object holding it and a total. */
export function listBody(
  options: Pick<SimOptions, 'envelope' | 'envelopeKey' | 'totalKey'>,
  records: unknown[],
  total: number,
): unknown {
  return options.envelope === 'array'
    ? records
    : { [options.envelopeKey]: records, [options.totalKey]: total };
}

/** The request body, whole; 413 over 16 MiB. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) reject(new SimHttpError(413, 'PAYLOAD_TOO_LARGE', 'request body over 16 MiB'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
