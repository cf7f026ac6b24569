import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { asOfNow, reportTime } from '../../src/dates.js';
import { historyStart } from '../../src/mirror/index.js';
import { changesReport } from '../../src/reports/changes/index.js';
import { periodOf } from '../../src/reports/changes/since.js';
import { reportInput } from '../../src/reports/core/runner.js';
import { ReportRun, reportNamed } from '../../src/reports/index.js';
import { syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The changes report's period on a mirror whose history began within the run's own second (the
 * first nightly job: its sync ended at 12.345, its reports ran at 12.900). The run's instant, read
 * down to the second, fell before the history's start and the start, rounded up, after it: the
 * report failed the job (exit 2) on a fast machine. The run's instant is now rounded up, once, for
 * the whole run (dates.ts ReportTime): the period is empty there, and whole seconds elsewhere.
 */
const sim = withSim({ scale: 0.02 });
const dir = mkdtempSync(join(tmpdir(), 'ohs-changes-period-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BEGAN = '2026-11-29T00:58:12.345Z';

describe("the changes period when the history began in the run's own second", () => {
  it('is empty from the exact start, never inverted; a second later it starts at the next whole second', async () => {
    const db = join(dir, 'm.sqlite');
    await syncInto(sim(), db);
    await withMirror(db, async (m) => {
      // The first successful sync ended at BEGAN: the history answers from there.
      await sql`UPDATE sync_run SET ended_at = ${BEGAN}`.execute(m.db);
      expect(await historyStart(m.db)).toBe(BEGAN);
      const at = (now: number) =>
        reportInput(changesReport, {
          db: m.db,
          params: { time: reportTime(asOfNow('UTC', now)), orgIds: [], options: {} },
          run: new ReportRun(),
        });
      const sameSecond = Date.parse('2026-11-29T00:58:12.900Z');
      const p = await periodOf(await at(sameSecond));
      const next = '2026-11-29T00:58:13.000Z';
      expect(p).toMatchObject({ since: next, to: next, how: 'history-start', unknown: null });
      const later = Date.parse('2026-11-29T00:58:17.250Z');
      const q = await periodOf(await at(later));
      expect(q).toMatchObject({
        since: '2026-11-29T00:58:13.000Z',
        to: '2026-11-29T00:58:18.000Z',
        how: 'history-start',
        unknown: null,
      });
    });
  });

  it('the report itself, run within the second its history began: nothing changed, OK', async () => {
    const db = join(dir, 'n.sqlite');
    await syncInto(sim(), db);
    await withMirror(db, async (m) => {
      // The history begins now, to the millisecond (not a whole second, or the race is not run).
      const now = Date.now();
      const began = new Date(now % 1000 === 0 ? now + 1 : now).toISOString();
      await sql`UPDATE sync_run SET ended_at = ${began}`.execute(m.db);
      const result = await reportNamed('changes').run({
        db: m.db,
        params: { time: reportTime(asOfNow('UTC')), orgIds: [], options: {} },
      });
      const rows: unknown[] = [];
      for await (const r of result.detail.rows) rows.push(r);
      expect(rows).toEqual([]);
      expect(result.warnings().filter((w) => /NO CHANGES|not known/i.test(w))).toEqual([]);
    });
  });
});
