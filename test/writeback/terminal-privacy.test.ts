import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

/** The personal values the changes carry, in every spelling a stored byte could hold them. */
const SSN = '987-65-4321';
const values = [SSN, '987654321', '1961-07-04', '1955-12-31', '1971-02-03'];

/**
 * A terminal outbox item (applied, failed, held, abandoned) keeps the names of its fields and
 * masks of its personal values (`***4321`, `1961-**-**`), not the values: checked in the rows on
 * both engines and, on SQLite, in the mirror file's bytes (freed space included).
 */
describeEngines('terminal outbox items keep no personal values (%s)', { timeout: 300_000 }, (engine) => {
  const sim = withSim({ scale: 0.05 });
  const target = withTargets(engine);

  it('failed, applied, held and abandoned items: fields named, values masked, none in the mirror', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice']);
    const org = String(sim().truth().Org[0]?.id);
    const plan = async (name: string, op: string, header: string[], rows: string[][]) => {
      const file = writeCsv(join(dir, `${name}.csv`), header, rows);
      const r = await runOhs(['plan', file, '--op', op, '--yes'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(0);
    };
    // Refused by the service (an org and an applicant it does not have): failed.
    await plan(
      'create',
      'person.create',
      ['nameFirst', 'nameLast', 'OrgId', 'dateOfBirth'],
      [
        ['Ada', 'Refused', '999999', '1961-07-04'],
        ['Bea', 'Made', org, '1971-02-03'],
      ],
    );
    await plan('applicant', 'applicant.update', ['id', 'ssn'], [['999999', SSN]]);
    const first = await runOhs(['apply'], { cwd: dir, env });
    expect(first.code, first.stdout).toBe(5);
    const made = (await withMirror(db, (m) => listOutbox(m))).find((i) => i.state === 'applied');
    const person = String(made?.result_id);
    // A delete, then an update planned before it: the update is held (its person is gone).
    await plan('delete', 'person.delete', ['id'], [[person]]);
    await plan('update', 'person.update', ['id', 'dateOfBirth'], [[person, '1955-12-31']]);
    const second = await runOhs(['apply', '--yes'], { cwd: dir, env });
    expect(second.code, second.stdout).toBe(5);
    expect(second.stderr).toMatch(/APPLY_HELD: 1 held/);
    // A change not wanted any more, abandoned while queued.
    await plan('again', 'applicant.update', ['id', 'ssn'], [['999998', SSN]]);
    const queued = (await withMirror(db, (m) => listOutbox(m))).at(-1);
    const abandon = await runOhs(['outbox', 'resolve', String(queued?.id), '--abandon'], { cwd: dir, env });
    expect(abandon.code, abandon.stderr).toBe(0);

    const items = await withMirror(db, (m) => listOutbox(m));
    expect(items.map((i) => `${i.op} ${i.state}`)).toEqual([
      'person.create failed',
      'person.create applied',
      'applicant.update failed',
      'person.delete applied',
      'person.update held',
      'applicant.update abandoned',
    ]);
    expect(items[4]?.hold_reason).toContain(`person ${person} was deleted`);
    const bodies = items.map((i) => JSON.parse(i.body) as Record<string, unknown>);
    expect(bodies[0]).toMatchObject({ nameLast: 'Refused', dateOfBirth: '1961-**-**' });
    expect(bodies[2]).toEqual({ ssn: '***4321' });
    expect(bodies[4]).toEqual({ dateOfBirth: '1955-**-**' });
    expect(bodies[5]).toEqual({ ssn: '***4321' });
    for (const i of [0, 2, 4, 5]) expect(items[i]?.redacted_at).not.toBeNull();
    const stored = JSON.stringify(items);
    for (const v of values) expect(stored).not.toContain(v);
    // A failed item whose values are gone is planned again, not retried as it is.
    const retry = await runOhs(['outbox', 'resolve', String(items[2]?.id), '--retry'], { cwd: dir, env });
    expect(retry.code).toBe(2);
    expect(retry.stderr).toMatch(/personal values were removed when it failed; plan its row again/);

    if (engine !== 'sqlite') return;
    // The file as a disk holds it: no value in a live row, a freed cell or the write-ahead log.
    for (const file of [db, `${db}-wal`].filter((f) => existsSync(f))) {
      const bytes = readFileSync(file).toString('latin1');
      for (const v of values) expect(bytes.includes(v), `${v} in ${file}`).toBe(false);
    }
  });
});
