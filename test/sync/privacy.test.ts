import { existsSync, readFileSync, statSync } from 'node:fs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/index.js';
import { runSync } from '../../src/sync/index.js';
import { clientFor } from '../helpers/client.js';
import { defaults } from '../helpers/defaults.js';
import {
  expectMirrorEqualsTruth,
  ID_START,
  one,
  silentLogger,
  withMirror,
  withTmpDir,
} from '../helpers/mirror.js';
import { withSim } from '../helpers/sim.js';

/**
 * The mirror holds personal data: its file (and SQLite's -wal and -shm beside it) is mode 0600,
 * and by default no SSN, birth date or licence number of the service reaches its bytes, in typed
 * columns, in `raw`, in free pages or in the write-ahead log.
 */
// SQLite-only: about the bytes and the file modes of the SQLite file and its -wal/-shm.
describe('the mirror file and personal data', () => {
  const sim = withSim({ scale: 0.1 });
  const tmp = withTmpDir();

  /** Syncs into `file` and returns the bytes of the file and its -wal, read before closing. */
  async function syncAndRead(file: string, storeSensitive: boolean) {
    const mirror = await openMirror(file, { storeSensitive });
    const client = clientFor(sim(), { concurrency: 8, requestsPerSecond: 5000 });
    try {
      const report = await runSync(client, mirror, silentLogger, {
        ...defaults.sync,
        idStart: { ...ID_START },
        progress: false,
      });
      expect(report.outcome).toBe('ok');
      const files = [file, `${file}-wal`, `${file}-shm`];
      // WAL mode: while the mirror is open, recent pages live in the -wal file.
      expect(existsSync(`${file}-wal`)).toBe(true);
      const modes = files.map((f) => statSync(f).mode & 0o777);
      const open = Buffer.concat([readFileSync(file), readFileSync(`${file}-wal`)]);
      return { modes, open };
    } finally {
      await client.close();
      await mirror.close();
    }
  }

  /** Every SSN, birth date and licence number of the truth (applicants and persons). */
  function secrets(): string[] {
    const truth = sim().truth();
    const out = new Set<string>();
    for (const a of truth.Applicant) {
      for (const f of ['ssn', 'id_birthdate', 'id_licenseNumber']) {
        if (typeof a[f] === 'string' && a[f] !== '') out.add(a[f] as string);
      }
    }
    for (const p of truth.Person) if (typeof p.dateOfBirth === 'string') out.add(p.dateOfBirth);
    return [...out];
  }

  /**
   * The shapes of the sandbox's SSNs, ISO dates and licence numbers. Every string searched for must
   * have one (asserted), so collecting every substring of these shapes, overlapping ones too,
   * finds each occurrence: one pass over the bytes instead of one per value.
   */
  const shapes = ['\\d{3}-\\d{2}-\\d{4}', '\\d{4}-\\d{2}-\\d{2}', '[A-Z]\\d{7}'];
  const whole = shapes.map((s) => new RegExp(`^${s}$`));
  const anywhere = shapes.map((s) => new RegExp(`(?=(${s}))`, 'g'));

  function found(bytes: Buffer, needles: readonly string[]): string[] {
    for (const n of needles)
      expect(
        whole.some((re) => re.test(n)),
        `${n} has a known shape`,
      ).toBe(true);
    const text = bytes.toString('latin1');
    const present = new Set<string>();
    for (const re of anywhere) for (const m of text.matchAll(re)) present.add(m[1] ?? '');
    return needles.filter((n) => present.has(n));
  }

  it('is mode 0600 with its -wal and -shm, and holds no SSN, birth date or licence number', async () => {
    const file = tmp();
    const { modes, open } = await syncAndRead(file, false);
    expect(modes).toEqual([0o600, 0o600, 0o600]);
    const needles = secrets();
    expect(needles.length).toBeGreaterThan(400);
    expect(found(open, needles)).toEqual([]);
    // After close (WAL checkpointed into the file), still none.
    const closed = Buffer.concat([
      readFileSync(file),
      ...(existsSync(`${file}-wal`) ? [readFileSync(`${file}-wal`)] : []),
    ]);
    expect(found(closed, needles)).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The data is there, masked: each applicant's SSN keeps its last four digits, birth dates their year.
    await withMirror(file, async (m) => {
      await expectMirrorEqualsTruth(m, sim().truth(), { tables: ['applicant'] });
      const a = sim().truth().Applicant[0]!;
      const row = (await one(m, sql`SELECT ssn, id_birthdate FROM applicant WHERE id = ${a.id}`)) as {
        ssn: string;
        id_birthdate: string;
      };
      expect(row.ssn).toBe(`***${String(a.ssn).replace(/-/g, '').slice(-4)}`);
      expect(row.id_birthdate).toBe(`${String(a.id_birthdate).slice(0, 4)}-**-**`);
    });
  });

  it('the same search finds them when the configuration opts in (mirror.storeSensitive)', async () => {
    // The control of the test above: the byte search does see the values when they are stored.
    const { modes, open } = await syncAndRead(tmp(), true);
    expect(modes).toEqual([0o600, 0o600, 0o600]);
    const ssns = sim()
      .truth()
      .Applicant.map((a) => a.ssn as string);
    expect(found(open, ssns)).toEqual(ssns);
  });
});
