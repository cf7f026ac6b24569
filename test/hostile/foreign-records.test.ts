import { dirname } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import {
  cliConfig,
  cliEnv,
  expectMirrorEqualsTruth,
  one,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * A service answering 200 with a foreign record for every id (the sandbox's `foreignReads`: every
 * read by id of one resource answered, held or not, with the first record of another resource
 * under the id asked, as a service routing the read to the wrong table does). A record read by id
 * must be one of its resource (src/api/client.ts get, validate-record.ts foreignProblem): the
 * first such answer ends probing, the stream is recorded incomplete naming the field refused,
 * nothing of it is stored, and `ohs status --check` answers WARNING. Through the real CLI over
 * real HTTP, on each engine, for each resource read by id; then the service mends and the next
 * run reads every record; foreign again, a run over the mirror holding them changes nothing.
 */
const cases = [
  // The form: a staff read answered with an invoice's fields (balance, OrgId, ...).
  { op: 'getStaff', stream: 'staff', resource: 'Staff', table: 'staff' },
  { op: 'getInvoice', stream: 'invoice', resource: 'Invoice', table: 'invoice' },
  { op: 'getApplicant', stream: 'applicant', resource: 'Applicant', table: 'applicant' },
] as const;

describe('a service answering every read by id with a record of another resource', () => {
  const sim = withSim({ scale: 0.02 });
  const tmp = withTmpDir('ohs-foreign-');
  afterEach(() => {
    sim().configure({ foreignReads: [] });
  });

  describe.each(engines)('%s', (engine) => {
    const target = withTargets(engine);

    it('0 rows stored from it, each stream incomplete naming the field refused, status WARNING; read whole once it answers its own', async () => {
      const file = await target();
      const config = cliConfig(dirname(tmp()));
      // A whole sync of a fresh mirror: the other streams complete, so the status is the id streams'.
      const sync = () =>
        runOhs(['sync', '--db', file, '--config', config], { env: cliEnv(sim()), timeoutMs: 180_000 });
      sim().configure({ foreignReads: cases.map((c) => c.op) });
      sim().resetStats();
      const r = await sync();
      expect(r.code, r.stderr).toBe(0);
      for (const { op, stream, resource, table } of cases) {
        const asked = sim().stats.byOperation[op] ?? 0;
        if (process.env.OHS_TEST_FIGURES !== undefined) console.info(JSON.stringify({ engine, op, asked }));
        expect(r.stdout).toMatch(
          new RegExp(
            `${stream} incomplete: ids above \\d+ not asked: the service answered id \\d+ wrongly \\(a record carrying \\w+, a field its resource does not declare: no ${resource} record, not stored\\)`,
          ),
        );
        // Probing ended at the first answer: the ids in flight, not a search of hundreds.
        expect(asked).toBeGreaterThan(0);
        expect(asked).toBeLessThan(100);
        const rows = await withMirror(file, (m) =>
          one<{ n: number }>(m, sql`SELECT count(*) AS n FROM ${sql.table(table)}`),
        );
        expect(Number(rows?.n), table).toBe(0);
      }
      const check = await runOhs(['status', '--check', '--db', file], { env: cliEnv(sim()) });
      expect(check.code, check.stdout).toBe(1);
      expect(check.stdout).toMatch(/^OHS WARNING - /);
      for (const { stream, resource } of cases)
        expect(check.stdout).toMatch(new RegExp(`${stream} incomplete: .*not answering for ${resource}`));

      sim().configure({ foreignReads: [] });
      const mended = await sync();
      expect(mended.code, mended.stderr).toBe(0);
      expect(mended.stdout).not.toMatch(/incomplete/);
      await withMirror(file, (m) =>
        expectMirrorEqualsTruth(m, sim().truth(), { tables: cases.map((c) => c.table) }),
      );
      const ok = await runOhs(['status', '--check', '--db', file], { env: cliEnv(sim()) });
      expect(ok.code, ok.stdout).toBe(0);

      // Foreign again, on a mirror holding the records: the next run stores nothing of it and
      // deletes nothing; each stream is incomplete again.
      sim().configure({ foreignReads: cases.map((c) => c.op) });
      const again = await sync();
      expect(again.code, again.stderr).toBe(0);
      for (const { stream } of cases) expect(again.stdout).toMatch(new RegExp(`${stream} incomplete: `));
      await withMirror(file, (m) =>
        expectMirrorEqualsTruth(m, sim().truth(), { tables: cases.map((c) => c.table) }),
      );
      const warned = await runOhs(['status', '--check', '--db', file], { env: cliEnv(sim()) });
      expect(warned.code, warned.stdout).toBe(1);
    });
  });
});
