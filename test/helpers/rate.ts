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

/** One 'rate cut' log line: the rate set, and what it started from (src/api/rate/control.ts). */
export interface CutLine {
  rate: number;
  from: number | null;
  answered: number | null;
  floor: number | null;
}

/** A logger that keeps the rate of each 'rate cut' line (and the whole lines), in order. */
export function cutLog() {
  const cuts: number[] = [];
  const lines: CutLine[] = [];
  const logger = createLogger({
    level: 'info',
    pretty: false,
    destination: {
      write: (line: string) => {
        const l = JSON.parse(line) as { msg?: string } & Partial<CutLine>;
        if (l.msg !== 'rate cut' || l.rate === undefined) return;
        cuts.push(l.rate);
        lines.push({
          rate: l.rate,
          from: l.from ?? null,
          answered: l.answered ?? null,
          floor: l.floor ?? null,
        });
      },
    },
  });
  return { cuts, lines, logger };
}

/**
 * Cuts that started from what the service answered, below the rate in force (the 429s held the
 * client, so the rate in force had climbed above what was sent), and whether each landed at 0.7 x
 * what was answered, or on the floor of rates the service took cleanly, and never at 0.7 x the
 * rate in force. A cut from the rate in force would log an answered rate equal to it.
 */
export function cutsFromAnswered(lines: readonly CutLine[]): { below: CutLine[]; wrong: CutLine[] } {
  const below = lines.filter((l) => l.from !== null && l.answered !== null && l.answered < l.from - 1);
  const wrong = below.filter((l) => {
    const fromAnswered = Math.max(0.7 * (l.answered ?? 0), l.floor ?? 0);
    return Math.abs(l.rate - fromAnswered) > 0.6 && l.rate > 1;
  });
  return { below, wrong };
}
