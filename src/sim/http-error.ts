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
