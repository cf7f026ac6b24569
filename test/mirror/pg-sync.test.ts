import { beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/index.js';
import { engines, withTargets } from '../helpers/engines.js';
import { expectMirrorEqualsTruth, streamTables, syncInto, withMirror } from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * A full sync of the sandbox into a PostgreSQL mirror, through faults and a rate limit, equals
 * the truth as on SQLite; an incremental sync after live changes follows them; a second sync
 * on the mirror while one holds its lock is refused.
 */
/** PostgreSQL is under test in this run (OHS_TEST_ENGINES); its one server is the run's. */
const noPg = !engines.includes('postgres');
const newDatabase = withTargets('postgres');
beforeAll(async () => {});

describe.skipIf(noPg)('sync into PostgreSQL', () => {
  const sim = withSim({
    scale: 0.03,
    faultRate: 0.15,
    faultKinds: ['503', '500', 'drop', 'truncate'],
    rateLimit: 800,
    rateBurst: 4,
    retryAfter: 0,
  });

  it('a full sync equals the truth; a second one writes nothing new', async () => {
    const url = await newDatabase();
    const report = await syncInto(sim(), url, { full: true }, { maxRetries: 12 });
    expect(report.error, String(report.error)).toBeUndefined();
    expect(report.outcome).toBe('ok');
    expect(report.streams.map((s) => s.outcome)).toEqual(streamTables.map(() => 'ok'));
    await withMirror(url, async (m) => {
      expect(m.engine).toBe('postgres');
      await expectMirrorEqualsTruth(m, sim().truth());
    });
    const again = await syncInto(sim(), url, { full: true }, { maxRetries: 12 });
    expect(again.outcome).toBe('ok');
    const written = again.streams.reduce(
      (n, s) => n + s.stats.inserted + s.stats.updated + s.stats.deleted,
      0,
    );
    expect(written).toBe(0);
    await withMirror(url, (m) => expectMirrorEqualsTruth(m, sim().truth()));
  });

  it('the sync lock is held across connections: a second sync is refused while one runs', async () => {
    const url = await newDatabase();
    const holder = await openMirror(url);
    const lock = await holder.lock('sync');
    try {
      const err = await syncInto(sim(), url, { full: true }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'LOCKED' });
      expect(String((err as Error).message)).toMatch(
        /another sync is running on postgres:\/\/ohs@127\.0\.0\.1:\d+\/t_\w+ \(pid \d+ on /,
      );
    } finally {
      await lock.release();
      await holder.close();
    }
  });
});
