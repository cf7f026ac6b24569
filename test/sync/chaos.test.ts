import { describe, expect, it } from 'vitest';
import type { RequestInfo } from '../../src/sim/server.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

let onRequest: ((info: RequestInfo) => void) | undefined;

/** An error with what the service said (a sandbox's 500 names the exception it threw). */
function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const detail = (err as { detail?: unknown }).detail;
  return detail === undefined ? String(err) : `${String(err)}; the service said ${JSON.stringify(detail)}`;
}

/**
 * Everything at once, several times over: 20% faults, live mutation every 40 requests, and each
 * sync stopped (SIGINT) at a different point, some of them --full; once the changes stop, one
 * incremental sync brings the mirror to the truth.
 */
describe.each([1, 2, 3])('chaos, seed %s', (seed) => {
  const sim = withSim({
    seed,
    scale: 0.05,
    faultRate: 0.2,
    faultKinds: ['503', '500', 'drop', 'truncate'],
    mutateEveryRequests: 40,
    mutationSize: 3,
    onRequest: (info) => onRequest?.(info),
  });
  // One sandbox per seed for both engines: each test turns the changes on, and counts its own.
  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('six stopped syncs under faults and live changes, then one incremental sync: equal to the truth', async () => {
      sim().configure({ mutateEveryRequests: 40 });
      const mutationsAtStart = sim().stats.mutations;
      const file = await target();
      for (let round = 0; round < 6; round++) {
        const abort = new AbortController();
        const start = sim().stats.requests;
        const stopAt = 30 + ((seed * 97 + round * 131) % 400);
        onRequest = () => {
          if (sim().stats.requests - start >= stopAt) abort.abort();
        };
        try {
          const report = await syncInto(
            sim(),
            file,
            // The churn here is by design, so the mass-delete guard (tested on its own) is set aside.
            { signal: abort.signal, full: round % 3 === 2, massDeleteMinRows: 1000 },
            { maxRetries: 12 },
          );
          expect(
            ['ok', 'interrupted'],
            `${describeError(report.error)}; the sandbox's own exceptions: ${JSON.stringify(sim().stats.internalErrors)}`,
          ).toContain(report.outcome);
        } finally {
          onRequest = undefined;
        }
      }
      sim().configure({ mutateEveryRequests: 0 });
      const mutations = sim().stats.mutations;
      expect(mutations - mutationsAtStart).toBeGreaterThan(10);
      const last = await syncInto(sim(), file, {}, { maxRetries: 12 });
      expect(last.outcome, String(last.error)).toBe('ok');
      expect(sim().stats.mutations).toBe(mutations);
      await withMirror(file, async (m) => {
        expect(m.engine).toBe(engine);
        await expectMirrorEqualsTruth(m, sim().truth());
      });
    });
  });
});
