import { fileURLToPath } from 'node:url';
import { type RawBuilder, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { one } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir } from '../helpers/writeback.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const env = { OHS_TOKEN: WRITE_TOKEN };

/** Each example file, planned and applied against the sandbox's default data, and its effect read back. */
describe.each(engines)('examples/ (%s)', (engine) => {
  // A sandbox per engine: the examples pay, update and delete fixed ids of the default data.
  const sim = withSim({ scale: 1 });
  const target = withTargets(engine);

  it('every example applies, and the service and the mirror show the change', async () => {
    const { dir, db } = workdir(sim().url, await target());
    await syncStreams(sim(), db, ['invoice', 'applicant']);
    const before = sim().truth();
    const balance = (t: typeof before, id: string) => Number(t.Invoice.find((i) => i.id === id)?.balance);
    for (const [file, op] of [
      ['payment.csv', 'payment'],
      ['person-create.csv', 'person.create'],
      ['person-update.csv', 'person.update'],
      ['person-delete.csv', 'person.delete'],
      ['applicant-update.csv', 'applicant.update'],
      ['org-create.csv', 'org.create'],
    ] as const) {
      const r = await runOhs(['plan', example(file), '--op', op], { cwd: dir, env });
      expect(r.code, `${file}: ${r.stderr}`).toBe(0);
      // Planned cleanly: nothing flagged (no overpayment, no cancelled invoice, nothing missing).
      if (op !== 'person.update' && op !== 'person.delete')
        expect(r.stdout, file).not.toMatch(/above balance|cancelled|not in the mirror/);
    }
    const refused = await runOhs(['apply'], { cwd: dir, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(sim().stats.writesApplied).toEqual({});

    const r = await runOhs(['apply', '--yes'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('7 applied, 0 failed, 0 unknown');
    const after = sim().truth();

    // payment.csv: 25.00 on 240007, 10.50 on 240011, both open invoices, neither overpaid.
    expect(balance(before, '240007')).toBeGreaterThan(25);
    expect(balance(before, '240011')).toBeGreaterThan(10.5);
    expect(balance(after, '240007')).toBeCloseTo(balance(before, '240007') - 25, 2);
    expect(balance(after, '240011')).toBeCloseTo(balance(before, '240011') - 10.5, 2);
    // person-create.csv: a person with its staff record and user.
    const dana = after.Person.find((p) => p.nameFirst === 'Dana' && p.nameLast === 'Example');
    expect(dana?.OrgId).toBe(1001);
    expect(after.Staff.some((s) => s.PersonId === dana?.id && s.jobTitle === 'Driver')).toBe(true);
    expect(after.User.find((u) => u.email === 'dana.example@mail.example')?.PersonId).toBe(dana?.id);
    // person-update.csv, person-delete.csv.
    expect(after.Person.find((p) => p.id === 70001)?.city).toBe('Evanston');
    expect(after.Person.some((p) => p.id === 70008)).toBe(false);
    // applicant-update.csv: the field and one more info record.
    const app = after.Applicant.find((a) => a.id === 9001);
    expect(app?.priorAddressCity).toBe('Springfield');
    const infos = (a: unknown) => ((a as { info?: unknown[] } | undefined)?.info ?? []).length;
    expect(infos(app)).toBe(infos(before.Applicant.find((a) => a.id === 9001)) + 1);
    // org-create.csv.
    const org = after.Org.find((o) => o.name === 'Example Freight LLC');
    expect(org?.zip).toBe('60601');

    await withMirror(db, async (m) => {
      const items = await listOutbox(m);
      expect(items.map((i) => i.state)).toEqual(Array(7).fill('applied'));
      const q = async (query: RawBuilder<unknown>) => (await one(m, query)) as Record<string, unknown>;
      expect((await q(sql`SELECT balance FROM invoice WHERE id = ${'240007'}`)).balance).toBeCloseTo(
        balance(after, '240007'),
        2,
      );
      expect((await q(sql`SELECT count(*) AS n FROM payment`)).n).toBe(2);
      expect((await q(sql`SELECT city FROM person WHERE id = 70001`)).city).toBe('Evanston');
      expect((await q(sql`SELECT "nameFirst" FROM person WHERE id = ${dana?.id}`)).nameFirst).toBe('Dana');
      expect((await q(sql`SELECT count(*) AS n FROM staff WHERE "PersonId" = ${dana?.id}`)).n).toBe(1);
      expect((await q(sql`SELECT "priorAddressCity" FROM applicant WHERE id = 9001`)).priorAddressCity).toBe(
        'Springfield',
      );
      expect((await q(sql`SELECT name FROM org WHERE id = ${org?.id}`)).name).toBe('Example Freight LLC');
      expect(await q(sql`SELECT rp_min_drug, source FROM org_policy WHERE org_id = ${org?.id}`)).toEqual({
        rp_min_drug: 50,
        source: 'writeback',
      });
      // Kept as a version, in force from the write (policy history).
      expect(
        await q(sql`SELECT rp_min_drug, source, valid_to FROM org_policy_history WHERE org_id = ${org?.id}`),
      ).toEqual({ rp_min_drug: 50, source: 'writeback', valid_to: null });
      const payment = items.find((i) => i.op === 'payment');
      expect(JSON.parse(payment?.verify ?? '{}')).toMatchObject({
        before: { balance: balance(before, '240007') },
        check: { expected: balance(after, '240007') },
      });
    });

    // Applied once: a second apply sends nothing, and the outbox lists it all as applied.
    const again = await runOhs(['apply'], { cwd: dir, env });
    expect(again.stdout).toContain('nothing to send');
    const listed = await runOhs(['outbox', '--state', 'applied', '--json'], { cwd: dir, env });
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(7);
  }, 300_000);
});
