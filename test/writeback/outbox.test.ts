import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };

describe.each(engines)('ohs outbox and the push job (%s)', (engine) => {
  // A sandbox per engine: both tests look for what they made by name, and delete a person.
  const sim = withSim({ scale: 0.05 });
  const target = withTargets(engine);

  it('an org create whose reply is lost stays unknown, is listed, and is resolved by hand', async () => {
    const { dir, db } = workdir(sim().url, await target());
    const file = writeCsv(join(dir, 'org.csv'), ['name', 'zip'], [['Lost Reply Ltd', '10001']]);
    await withMirror(db, async () => {}); // plan refuses a missing mirror (a mistyped --db)
    expect((await runOhs(['plan', file, '--op', 'org.create'], { cwd: dir, env })).code).toBe(0);
    // The create's reply only: apply checks the service first (a query of one role), which answers.
    sim().configure({ faultRate: 1, faultKinds: ['lostReply'], faultOps: ['createOrg'] });
    const r = await runOhs(['apply'], { cwd: dir, env });
    sim().configure({ faultRate: 0, faultOps: [] });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('APPLY_INCOMPLETE');
    expect(
      sim()
        .truth()
        .Org.filter((o) => o.name === 'Lost Reply Ltd'),
    ).toHaveLength(1);
    const listed = await runOhs(['outbox', '--state', 'unknown', '--json'], { cwd: dir, env });
    const [item] = JSON.parse(listed.stdout) as { id: number; op: string; state: string }[];
    expect(item).toMatchObject({ op: 'org.create', state: 'unknown' });
    // Another apply does not resend it.
    await runOhs(['apply'], { cwd: dir, env });
    expect(
      sim()
        .truth()
        .Org.filter((o) => o.name === 'Lost Reply Ltd'),
    ).toHaveLength(1);
    const bad = await runOhs(['outbox', 'resolve', String(item?.id)], { cwd: dir, env });
    expect(bad.code).toBe(2);
    const ok = await runOhs(['outbox', 'resolve', String(item?.id), '--applied'], { cwd: dir, env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('is now applied');
    const [after] = await withMirror(db, (m) => listOutbox(m));
    expect(after).toMatchObject({ state: 'applied', resolution: 'manual-applied' });
  });

  it('the push job applies the outbox but leaves unconfirmed person deletions queued', async () => {
    const { dir, db } = workdir(sim().url, await target());
    const person = sim().truth().Person[0];
    const del = writeCsv(join(dir, 'del.csv'), ['id'], [[String(person?.id)]]);
    const upd = writeCsv(join(dir, 'upd.csv'), ['id', 'city'], [[String(person?.id), 'Pushville']]);
    await withMirror(db, async () => {}); // plan refuses a missing mirror (a mistyped --db)
    expect((await runOhs(['plan', del, '--op', 'person.delete'], { cwd: dir, env })).code).toBe(0);
    expect((await runOhs(['plan', upd, '--op', 'person.update'], { cwd: dir, env })).code).toBe(0);
    const r = await runOhs(['run', 'push'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const items = await withMirror(db, (m) => listOutbox(m));
    expect(items.map((i) => [i.op, i.state])).toEqual([
      ['person.delete', 'queued'],
      ['person.update', 'applied'],
    ]);
    expect(
      sim()
        .truth()
        .Person.find((p) => p.id === person?.id)?.city,
    ).toBe('Pushville');
  });
});
