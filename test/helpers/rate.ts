import { type ClientOptions, NotFoundError, type OhsClient } from '../../src/api/index.js';
import { createLogger } from '../../src/log.js';
import type { RunningSim } from '../../src/sim/index.js';
import { clientFor } from './client.js';

/** `n` Staff GETs (ids the sandbox holds), `workers` at a time, through `client`. */
export async function loadStaff(sim: RunningSim, client: OhsClient, n: number, workers = 8): Promise<void> {
  const ids = sim.tables.Staff.all().map((s) => Number(s.id));
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let i = next++; i < n; i = next++) {
        await client.get('Staff', ids[i % ids.length] ?? 1, 'all').catch((err: unknown) => {
          if (!(err instanceof NotFoundError)) throw err;
        });
      }
    }),
  );
}

/** An adaptive client of the sandbox (rate 'auto', concurrency 8), patient with 429s. */
export const adaptiveClient = (sim: RunningSim, extra: Partial<ClientOptions> = {}) =>
  clientFor(sim, {
    concurrency: 8,
    requestsPerSecond: 'auto',
    maxRateLimitRetries: 100,
    retryMaxMs: 2000,
    ...extra,
  });

/** A logger that keeps the rate of each 'rate cut' line, in order. */
export function cutLog() {
  const cuts: number[] = [];
  const logger = createLogger({
    level: 'info',
    pretty: false,
    destination: {
      write: (line: string) => {
        const l = JSON.parse(line) as { msg?: string; rate?: number };
        if (l.msg === 'rate cut' && l.rate !== undefined) cuts.push(l.rate);
      },
    },
  });
  return { cuts, logger };
}
