import { afterAll, beforeAll } from 'vitest';
import { type RunningSim, type StartSimOptions, startSim } from '../../src/sim/index.js';
import { testSimOptions, WRITE_TOKEN } from './sim-options.js';

export { READ_TOKEN, TEST_ANCHOR, WRITE_TOKEN } from './sim-options.js';

/**
 * Starts one sandbox for the test file (real HTTP on port 0, hooks on) and closes it after.
 * Returns a getter, since the sandbox exists only once `beforeAll` has run.
 */
/**
 * A small sandbox that fails 20% of the requests it lets through (503, 500, connection dropped,
 * body cut short) behind a token bucket of 800 requests/s answering 429 (Retry-After 0) beyond
 * it; callers choose the bucket's depth (`rateBurst`).
 */
export const FAULTY_AND_LIMITED: StartSimOptions = {
  scale: 0.05,
  faultRate: 0.2,
  faultKinds: ['503', '500', 'drop', 'truncate'],
  rateLimit: 800,
  retryAfter: 0,
};

export function withSim(options: StartSimOptions = {}): () => RunningSim {
  let sim: RunningSim | undefined;
  beforeAll(async () => {
    sim = await startSim(testSimOptions(options));
  });
  afterAll(async () => {
    await sim?.close();
  });
  return () => {
    if (sim === undefined) throw new Error('sandbox not started yet');
    return sim;
  };
}

/** A request to the sandbox with the write token (or another), JSON in and out. */
export async function call(
  sim: RunningSim,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = WRITE_TOKEN,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}
