import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localeSpellings } from '../../src/sim/http-error.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { engines, withTargets } from '../helpers/engines.js';
import { mirrorBytes } from '../helpers/secrets.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { syncStreams, withMirror, workdir, writeCsv } from '../helpers/writeback.js';

const env = { OHS_TOKEN: WRITE_TOKEN };
const SSN = '987-65-4321';
const BIRTH = '1961-07-04';

/** The values refused, each quoted by the sandbox in its locales' spellings (src/sim/http-error.ts). */
// A first name with accents that no sandbox record holds (the sandbox's applicants hold `JOSÉ`:
// the masking of `JOSÉ` for José is test/util/mask-text.test.ts's).
const FIRST = 'Thérèse';
const VALUES = [BIRTH, SSN, FIRST, "O'Quill", "Coeur d'Alene"];
/** Every form the service quotes them in, and the forms the issue named: none may reach any output. */
const FORMS = [
  ...VALUES.flatMap(localeSpellings),
  '4 juillet 1961',
  '4. Juli',
  '7月4日',
  "Jul 4th, '61",
  'Coeur%20d%27Alene',
  'O%27Quill',
  'THÉRÈSE',
];
/** The forms found in `text`, read as UTF-8 or as the latin1 of a file's bytes. */
const found = (text: string) =>
  FORMS.filter((f) => text.includes(f) || text.includes(Buffer.from(f, 'utf8').toString('latin1')));

/**
 * The service's text is withheld by default (src/util/refusal.ts): a service quoting the values
 * it refuses in five locales' spellings and three encodings (`ohs sim` `localeRefusals`: French,
 * German, Spanish, Japanese and American dates, fullwidth and Arabic-Indic SSN digits, HTML
 * character references, percent-encoding, upper case) gets none of them into what `ohs apply`
 * prints, `ohs outbox --json`, the log file, or the mirror's bytes (the SQLite file read raw, the
 * PostgreSQL database as pg_dump writes it); what is kept is the status, the service's code and
 * the field names. `--show-service-text` is refused where stdout is no terminal, and on a
 * terminal shows the text masked, never the forms.
 */
describe.each(engines)("the service's text withheld (%s)", { timeout: 300_000 }, (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  it("a refusal quoting values in five locales' spellings: status, code and field names kept, no form anywhere", async () => {
    const db = await target();
    const { dir } = workdir(sim().url, db);
    await syncStreams(sim(), db, ['applicant']);
    const applicant = sim().truth().Applicant[0];
    const org = sim().truth().Org[0];
    const file = writeCsv(
      join(dir, 'changes.csv'),
      ['op', 'id', 'ssn', 'nameFirst', 'nameLast', 'OrgId', 'dateOfBirth', 'city'],
      [
        ['applicant.update', String(applicant?.id), SSN, '', '', '', '', ''],
        ['person.create', '', '', FIRST, "O'Quill", String(org?.id), BIRTH, "Coeur d'Alene"],
      ],
    );
    const planned = await runOhs(['plan', file], { cwd: dir, env });
    expect(planned.code, planned.stderr).toBe(0);

    // Not on a terminal: refused before anything is sent.
    const piped = await runOhs(['apply', '--show-service-text'], { cwd: dir, env });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toMatch(
      /^ohs: USAGE: --show-service-text shows the service's text on a terminal only/,
    );

    const log = join(dir, 'ohs.log');
    sim().configure({ localeRefusals: true });
    const applied = await runOhs(['apply', '--log-level', 'debug', '--log-file', log], { cwd: dir, env });
    sim().configure({ localeRefusals: false });
    const printed = applied.stdout + applied.stderr;
    expect(printed).toContain(
      'INVALID_REQUEST 422: refused: status 422, service code VALIDATION_FAILED, names',
    );
    expect(found(printed)).toEqual([]);
    const logged = readFileSync(log, 'utf8');
    expect(logged).toContain('service code VALIDATION_FAILED');
    expect(found(logged)).toEqual([]);

    const outbox = await runOhs(['outbox', '--json'], { cwd: dir, env });
    expect(outbox.code, outbox.stderr).toBe(0);
    const items = JSON.parse(outbox.stdout) as { state: string; error: string | null }[];
    expect(items.map((i) => i.state)).toEqual(['failed', 'failed']);
    expect(items[0]?.error).toMatch(/names ssn; its text withheld: /);
    expect(items[1]?.error).toMatch(/names nameFirst, nameLast, city, dateOfBirth; its text withheld: /);
    expect(found(outbox.stdout)).toEqual([]);

    // The mirror's bytes: the SQLite file and its siblings read raw; PostgreSQL's rows as dumped.
    expect(found(mirrorBytes(db))).toEqual([]);
    const stored = await withMirror(db, async (m) =>
      JSON.stringify(await m.db.selectFrom('outbox').selectAll().execute()),
    );
    expect(found(stored)).toEqual([]);

    // On a terminal (a pseudo-terminal made by script(1)): the text, masked, none of the forms.
    if (engine !== 'sqlite') return;
    const more = writeCsv(
      join(dir, 'again.csv'),
      ['op', 'nameFirst', 'nameLast', 'OrgId', 'dateOfBirth', 'city'],
      [['person.create', FIRST, "O'Quill", String(org?.id), BIRTH, "Coeur d'Alene"]],
    );
    expect((await runOhs(['plan', more], { cwd: dir, env })).code).toBe(0);
    sim().configure({ localeRefusals: true });
    const shown = await viaTerminal(dir, ['apply', '--show-service-text']);
    sim().configure({ localeRefusals: false });
    expect(shown).toContain("the service's text (masked; shown here only, never kept):");
    expect(shown).toMatch(/#3: .*valeur refus.*« \[number\] juillet \[number\] »/);
    expect(found(shown)).toEqual([]);
  });
});

/**
 * Runs the CLI on a pseudo-terminal (script(1)), returning what it printed whatever its exit
 * status (the sandbox answers from this process: nothing here may block it).
 */
function viaTerminal(dir: string, args: string[]): Promise<string> {
  const command = [process.execPath, OHS_BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
}
