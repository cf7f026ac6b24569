import { dirname } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { anyId, type Hostile, pathIs, startHostile } from '../helpers/hostile-server.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { call, withSim } from '../helpers/sim.js';

/**
 * Probing for new invoices ends on evidence, not on a count (src/sync/id-probe.ts). A service
 * answering 200 for ids it does not hold (test/helpers/hostile-server.ts `anyId`, in front of the
 * sandbox: its records where it has them, a made-up answer where it answers 404) ends the sync in
 * seconds with the stream recorded incomplete, saying which id answered what, and nothing made
 * up stored; a real run of thousands of new invoices between two syncs is read whole over the
 * next runs, each reaching as far again as the span of ids the stream holds. Both through the
 * real CLI.
 */
const INVOICE = '/v2/action/core/invoice/';

describe('probing for new ids ends on evidence', () => {
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-probe-evidence-');
  let hostile: Hostile;
  let config = '';
  beforeAll(async () => {
    hostile = await startHostile(sim().url);
    config = cliConfig(dirname(tmp()));
  });
  afterAll(async () => {
    await hostile?.close();
  });

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);
    let file = '';
    const sync = (via: string, ...args: string[]) =>
      runOhs(['sync', ...args, '--db', file, '--config', config], {
        env: { ...cliEnv(sim()), OHS_BASE_URL: via },
        timeoutMs: 240_000,
      });
    const check = () => runOhs(['status', '--check', '--db', file], { env: cliEnv(sim()) });
    beforeAll(async () => {
      file = await target();
      const first = await sync(sim().url);
      expect(first.code, first.stderr).toBe(0);
    });

    it.each([
      ['a bare record', (id: string) => ({ id }), /a record with no field but its id/],
      [
        'the record of another id',
        () => sim().truth().Invoice[0],
        /asked for id \d+, got the record of id \d+/,
      ],
    ] as const)(
      '%s for every id it does not hold: ends in seconds, invoice incomplete, nothing stored',
      async (_, answer, why) => {
        const behaviour = anyId(pathIs(INVOICE), answer);
        hostile.use(behaviour);
        const started = Date.now();
        const r = await sync(hostile.url, 'invoice');
        const seconds = (Date.now() - started) / 1000;
        hostile.use(undefined);
        if (process.env.OHS_TEST_FIGURES !== undefined)
          console.info(JSON.stringify({ engine, case: _, seconds, madeUp: behaviour.made() }));
        expect(r.code, r.stderr).toBe(0);
        // Before: probing went on to sync.probeMaxIds (1,000,000 ids), for hours.
        expect(seconds).toBeLessThan(120);
        expect(behaviour.made()).toBeLessThan(200);
        expect(r.stdout).toMatch(
          /invoice incomplete: ids above \d+ not asked: the service answered id \d+ wrongly/,
        );
        expect(r.stdout).toMatch(why);
        const warned = await check();
        expect(warned.code).toBe(1);
        expect(warned.stdout).toMatch(
          /^OHS WARNING - invoice incomplete: .*evidence that it is not answering for Invoice/,
        );
        await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['invoice'] }));
      },
    );

    it('a real run of 3,000 new invoices between two syncs is read whole, as far again as the stream holds per run', async () => {
      const org = sim().truth().Invoice[0]?.OrgId;
      const held = await withMirror(file, (m) =>
        one<{ n: number }>(m, sql`SELECT count(*) AS n FROM invoice`),
      );
      const made = await call(sim(), 'POST', '/__sim/invoice', {
        action: 'create',
        OrgId: org,
        amount: 120,
        date: '2026-06-14',
        count: 3000,
      });
      expect(made.status).toBe(200);
      // The first engine's mirror holds about 60 invoices over about 100 ids (the next one's also
      // the 3,000 the first made): each run reaches as far again as the span it holds, so the
      // 3,000 take a few runs on the first, each but the last saying it is incomplete.
      const runs: boolean[] = [];
      for (let k = 0; k < 8; k++) {
        const r = await sync(sim().url, 'invoice');
        expect(r.code, r.stderr).toBe(0);
        const incomplete = /invoice incomplete: ids above \d+ not asked: probing stopped after/.test(
          r.stdout,
        );
        runs.push(incomplete);
        if (!incomplete) break;
      }
      if (process.env.OHS_TEST_FIGURES !== undefined) console.info(JSON.stringify({ engine, runs }));
      expect(runs.at(-1)).toBe(false);
      if (Number(held?.n) < 1000) expect(runs.length).toBeGreaterThan(1);
      await withMirror(file, (m) => expectMirrorEqualsTruth(m, sim().truth(), { tables: ['invoice'] }));
      const ok = await check();
      expect(ok.code, ok.stdout).toBe(0);
    });
  });
});
