import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { rows } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { configure, syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates and PATCHes with nested arrays (which the service appends): killed after the send,
 * or answered 504 while the backend carries them out, they are never sent twice; and the outbox
 * keeps no personal data it does not need, nor prints any, nor echoes terminal escapes.
 */
describe.each(engines)('nested writes and personal data (%s)', { timeout: 300_000 }, (engine) => {
  // A sandbox per engine: the tests count what they made by name and by operation.
  const sim = withSim({ scale: 0.05 });
  const target = withTargets(engine);

  it('person create with nested staff and user, killed after the send: the rerun finds it, no second person', async () => {
    const { dir, db } = workdir(sim().url, await target());
    configure(dir, { writeback: { settleMs: 500 } });
    const org = sim().truth().Org[0];
    const file = writeCsv(
      join(dir, 'person.csv'),
      ['nameFirst', 'nameLast', 'OrgId', 'dateOfBirth', 'staff', 'user'],
      [
        [
          'Kilda',
          'Aftersend',
          String(org?.id),
          '1980-04-02',
          JSON.stringify([{ jobTitle: 'Driver' }]),
          JSON.stringify([{ email: 'kilda.aftersend@mail.example', RoleId: 1 }]),
        ],
      ],
    );
    await withMirror(db, async () => {}); // plan refuses a missing mirror (a mistyped --db)
    expect((await runOhs(['plan', file, '--op', 'person.create'], { cwd: dir, env })).code).toBe(0);
    sim().resetStats();
    // The backend makes the person at once and holds the answer: the apply is killed meanwhile.
    sim().configure({ slowWriteRate: 1, slowWriteOps: ['createPerson'], slowWriteMs: 15_000 });
    const child = spawn(process.execPath, [OHS_BIN, 'apply'], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    const made = () =>
      sim()
        .tables.Person.all()
        .filter((p) => p.nameLast === 'Aftersend');
    while (made().length === 0) await sleep(50);
    child.kill('SIGKILL');
    await once(child, 'exit');
    sim().configure({ slowWriteRate: 0 });
    const [killed] = await withMirror(db, (m) => listOutbox(m));
    expect(killed?.state).toBe('sending');

    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('1 left sending by a stopped apply, now unknown');
    expect(made()).toHaveLength(1);
    expect(sim().stats.byOperation.createPerson).toBe(1);
    const [item] = await withMirror(db, (m) => listOutbox(m));
    expect(item).toMatchObject({
      state: 'applied',
      resolution: 'reconciled',
      result_id: String(made()[0]?.id),
    });
    const reads = JSON.parse(item?.evidence ?? '[]') as { verdict: string }[];
    expect(reads.map((x) => x.verdict)).toEqual(['applied']);
  });

  it('a PATCH with nested arrays answered 504 is not resent; an applicant info PATCH is settled by its info count', async () => {
    const { dir, db } = workdir(sim().url, await target());
    configure(dir, { writeback: { settleMs: 1500 } });
    const person = sim().truth().Person[1];
    const applicant = sim().truth().Applicant[0];
    const infoBefore = (applicant?.info as unknown[] | undefined)?.length ?? 0;
    const staffFile = writeCsv(
      join(dir, 'staff.csv'),
      ['id', 'staff'],
      [[String(person?.id), JSON.stringify([{ jobTitle: 'Nested Once' }])]],
    );
    const infoFile = writeCsv(
      join(dir, 'info.csv'),
      ['id', 'info'],
      [[String(applicant?.id), JSON.stringify([{ descrip: 'Late info' }])]],
    );
    await withMirror(db, async () => {}); // plan refuses a missing mirror (a mistyped --db)
    expect((await runOhs(['plan', staffFile, '--op', 'person.update'], { cwd: dir, env })).code).toBe(0);
    expect((await runOhs(['plan', infoFile, '--op', 'applicant.update'], { cwd: dir, env })).code).toBe(0);
    sim().resetStats();
    sim().configure({
      lateWriteRate: 1,
      lateWriteOps: ['updatePerson', 'updateApplicant'],
      lateWriteMinMs: 200,
      lateWriteMaxMs: 400,
    });
    const first = await runOhs(['apply'], { cwd: dir, env });
    sim().configure({ lateWriteRate: 0 });
    expect(first.code).toBe(5);
    expect(first.stdout).toMatch(/person\.update\s+unknown .*decide with ohs outbox resolve/);
    expect(first.stdout).toMatch(/applicant\.update\s+applied .*reconciled: info records/);
    const second = await runOhs(['apply'], { cwd: dir, env });
    expect(second.code).toBe(5);
    await sleep(500);
    expect(sim().stats.byOperation.updatePerson).toBe(1);
    expect(sim().stats.byOperation.updateApplicant).toBe(1);
    expect(
      sim()
        .tables.Staff.all()
        .filter((s) => s.PersonId === person?.id && s.jobTitle === 'Nested Once'),
    ).toHaveLength(1);
    const info = sim().tables.Applicant.get(Number(applicant?.id))?.info as { descrip?: string }[];
    expect(info).toHaveLength(infoBefore + 1);
    const items = await withMirror(db, (m) => listOutbox(m));
    expect(items.map((i) => i.state)).toEqual(['unknown', 'applied']);
  });

  it('the outbox masks personal data once sent and never prints it; control characters are printed escaped', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['applicant']);
    const applicant = sim().truth().Applicant[2];
    const org = sim().truth().Org[0];
    const ssn = '123-45-6789';
    const upd = writeCsv(join(dir, 'ssn.csv'), ['id', 'ssn'], [[String(applicant?.id), ssn]]);
    const person = writeCsv(
      join(dir, 'dob.csv'),
      ['nameFirst', 'nameLast', 'OrgId', 'dateOfBirth'],
      [['\u001b[31mRed', 'Escape\u0007', String(org?.id), '1975-08-09']],
    );
    expect((await runOhs(['plan', upd, '--op', 'applicant.update'], { cwd: dir, env })).code).toBe(0);
    const planned = await runOhs(['plan', person, '--op', 'person.create'], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).not.toContain('\u001b');
    expect(planned.stdout).toContain('\\x1b[31mRed Escape\\x07');
    const queued = await runOhs(['outbox', '--json'], { cwd: dir, env });
    const r = await runOhs(['apply'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const listed = await runOhs(['outbox'], { cwd: dir, env });
    const json = await runOhs(['outbox', '--json'], { cwd: dir, env });
    for (const out of [queued.stdout, r.stdout, r.stderr, listed.stdout, json.stdout]) {
      expect(out).not.toContain(ssn);
      expect(out).not.toContain('1975-08-09');
      expect(out).not.toContain('\u001b');
    }
    expect(listed.stdout).toContain('\\x1b[31mRed');
    // At rest: the sent bodies and the answers are masked (the answer's birth dates too).
    const stored = await withMirror(db, (m) =>
      rows(m, sql`SELECT body, request, response, verify FROM outbox`),
    );
    const text = JSON.stringify(stored);
    expect(text).not.toContain(ssn);
    expect(text).not.toContain('1975-08-09');
    expect(text).toContain('***6789');
    for (const rec of (stored as { response: string }[]).map(
      (x) => JSON.parse(x.response) as Record<string, unknown>,
    ))
      for (const key of ['dateOfBirth', 'id_birthdate', 'ssn'])
        if (typeof rec[key] === 'string') expect(rec[key]).toMatch(/\*/);
  });
});
