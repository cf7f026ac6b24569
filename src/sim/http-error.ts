import type { IncomingMessage } from 'node:http';

/** An error the sandbox answers with: `{"error":{"status","code","message"}}` and the status. */
export class SimHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SimHttpError(400, 'INVALID_REQUEST', message);
export const notFound = (message: string) => new SimHttpError(404, 'NOT_FOUND', message);

/** A refusal quoting the request's body and Authorization header (`quoteRefusals`), as some services do. */
export const quotedRefusal = (raw: Buffer, authorization: string | undefined) =>
  badRequest(`rejected ${raw.toString('utf8')} auth=${authorization ?? ''}`);

/** A request body parsed as JSON (undefined when empty); 415 without a JSON type where one is needed. */
export function parseJsonBody(raw: Buffer, req: IncomingMessage, needsJsonType: boolean): unknown {
  if (raw.length === 0) return undefined;
  const type = req.headers['content-type'] ?? '';
  if (needsJsonType && !/^application\/json\b/i.test(type)) {
    throw new SimHttpError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'request body needs Content-Type: application/json',
    );
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('body: not valid JSON');
  }
}
