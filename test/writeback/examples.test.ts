import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RawBuilder, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { listOutbox } from '../../src/writeback/index.js';
import { runOhs } from '../helpers/cli.js';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { one } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir } from '../helpers/writeback.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const env = { OHS_TOKEN: WRITE_TOKEN };

/**
 * Each example file, planned and applied against the sandbox's default data as `ohs sim` starts it
 * (anchored today, not the tests' fixed day), and its effect read back.
 */
describeEngines('examples/ (%s)', {}, (engine) => {
  // A sandbox per engine: the examples pay, update and delete fixed ids of the default data.
  const sim = withSim({ scale: 1, anchorDate: undefined });
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

    // payment.csv: 25.00 on 240019, 10.50 on 240032, both open invoices, neither overpaid.
    expect(balance(before, '240019')).toBeGreaterThan(25);
    expect(balance(before, '240032')).toBeGreaterThan(10.5);
    expect(balance(after, '240019')).toBeCloseTo(balance(before, '240019') - 25, 2);
    expect(balance(after, '240032')).toBeCloseTo(balance(before, '240032') - 10.5, 2);
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
      expect((await q(sql`SELECT balance FROM invoice WHERE id = ${'240019'}`)).balance).toBeCloseTo(
        balance(after, '240019'),
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
        before: { balance: balance(before, '240019') },
        check: { expected: balance(after, '240019') },
      });
    });

    // Applied once: a second apply sends nothing, and the outbox lists it all as applied.
    const again = await runOhs(['apply'], { cwd: dir, env });
    expect(again.stdout).toContain('nothing to send');
    const listed = await runOhs(['outbox', '--state', 'applied', '--json'], { cwd: dir, env });
    expect((JSON.parse(listed.stdout) as unknown[]).length).toBe(7);
  }, 300_000);
});

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The README's block of sandbox steps: the first ```sh block after "Rehearse first". */
function readmeSandboxSteps(): string[] {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const from = readme.indexOf('Rehearse first against the built-in sandbox');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  return (block?.[1] ?? '').split('\n');
}

/**
 * Every `node bin/ohs.js ...` line of the docs that names a file of examples/, with the `ohs apply` of
 * the same block, in the order written (the README's own block is run as the steps above).
 */
function documentedExampleLines(): string[] {
  const lines: string[] = [];
  for (const doc of readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(REPO, 'docs', doc), 'utf8');
    for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
      const ohs = (block[1] ?? '').split('\n').filter((l) => l.startsWith('node bin/ohs.js '));
      if (ohs.some((l) => l.includes('examples/')))
        lines.push(...ohs.filter((l) => l.includes('examples/') || l.startsWith('node bin/ohs.js apply')));
    }
  }
  return lines;
}

/** `node bin/ohs.js a b  # comment` as the arguments of ohs (no quoting in these lines). */
const ohsArgs = (line: string) =>
  line
    .replace(/\s+#.*$/, '')
    .replace(/^node bin\/ohs\.js /, '')
    .trim()
    .split(/\s+/);

/**
 * The README's sandbox steps and every documented example line, run word for word against `ohs sim`
 * as the README starts it (its tokens, its anchor: today), in a folder holding a copy of
 * examples/. The only thing not as written is the base URL: the test's sandbox listens on a free
 * port, given as OHS_BASE_URL, where the README's listens on the default 8787.
 */
describe('the README and docs, as written', () => {
  const sim = withSim({ anchorDate: undefined, token: 'sim-write-token', readonlyToken: 'sim-read-token' });

  it('sandbox steps, then each example planned and applied, each change made once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ohs-readme-'));
    cpSync(join(REPO, 'examples'), join(dir, 'examples'), { recursive: true });
    mkdirSync(join(dir, 'config')); // a clone has config/ (default.json)
    const env: NodeJS.ProcessEnv = { OHS_BASE_URL: sim().url, OHS_DB: '', OHS_TOKEN: '', OHS_TOKEN_FILE: '' };
    const steps = readmeSandboxSteps();
    const ran: string[] = [];
    for (let i = 0; i < steps.length; i++) {
      const line = (steps[i] ?? '').trim();
      const heredoc = /^cat > (\S+) <<'(\w+)'$/.exec(line);
      if (heredoc !== null) {
        const end = steps.indexOf(heredoc[2] ?? '', i + 1);
        writeFileSync(join(dir, heredoc[1] ?? ''), `${steps.slice(i + 1, end).join('\n')}\n`);
        i = end;
        continue;
      }
      const exported = /^export (\w+)=(\S+)$/.exec(line);
      if (exported !== null) env[exported[1] ?? ''] = exported[2];
      // `node bin/ohs.js sim ... &` is the test's sandbox; `sqlite3` is a tool of the reader's own.
      if (!line.startsWith('node bin/ohs.js ') || line.startsWith('node bin/ohs.js sim ')) continue;
      const r = await runOhs(ohsArgs(line), { cwd: dir, env, timeoutMs: 240_000 });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      ran.push(line);
    }
    expect(ran.some((l) => l.startsWith('node bin/ohs.js plan examples/payment.csv'))).toBe(true);
    const before = sim().truth();
    const docs = documentedExampleLines();
    expect(docs.length).toBeGreaterThanOrEqual(8);
    for (const line of docs) {
      const r = await runOhs(ohsArgs(line), { cwd: dir, env });
      expect(r.code, `${line}\n${r.stderr}`).toBe(0);
      // Persons have no read: the mirror knows only those written back, so their updates are flagged.
      if (!line.includes('person-'))
        expect(r.stdout, line).not.toMatch(/not in the mirror|above balance|cancelled/);
    }
    const after = sim().truth();
    const paid = (t: typeof before, id: string) => Number(t.Invoice.find((i) => i.id === id)?.balance);
    // The README's apply paid payment.csv; planning it again in the docs' lines queued nothing new.
    expect(paid(after, '240019')).toBeCloseTo(paid(before, '240019'), 2);
    expect(after.Person.find((p) => p.id === 70001)?.city).toBe('Evanston');
    expect(after.Person.some((p) => p.id === 70008)).toBe(false);
    expect(after.Org.some((o) => o.name === 'Example Freight LLC')).toBe(true);
    const listed = await runOhs(['outbox', '--json'], { cwd: dir, env });
    const items = JSON.parse(listed.stdout) as { op: string; state: string }[];
    expect(items.map((i) => i.state)).toEqual(Array(7).fill('applied'));
    expect(items.filter((i) => i.op === 'payment')).toHaveLength(2);
  }, 600_000);
});
