import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kindOf } from '../../src/terminal.js';
import { OHS_BIN, runOhs } from '../helpers/cli.js';
import { ID_START } from '../helpers/mirror.js';
import { WRITE_TOKEN, withSim } from '../helpers/sim.js';

/**
 * What the terminal shows, in the text log format a user gets: `ohs run nightly` ends with a
 * short summary (at most 40 lines, every report's verdict) in which every kind of warning the log
 * file holds is counted; `--quiet` prints nothing; a failed command's first line is what was
 * wrong. And `status --check` on the BI snapshot the nightly job takes mid-run says what the
 * snapshot is, not CRITICAL.
 */
const sim = withSim({ scale: 0.05 });
const dir = mkdtempSync(join(tmpdir(), 'ohs-terminal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '', OHS_BASE_URL: '', OHS_LOG_FORMAT: '' };
const snapshot = join(dir, 'bi.sqlite');

describe('the terminal of the nightly job', () => {
  it('a short summary with every warning kind counted; the snapshot says what it is; --quiet; a failure first', async () => {
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({
        baseUrl: sim().url,
        db: join(dir, 'ohs.sqlite'),
        api: { requestsPerSecond: 5000 },
        sync: { idStart: ID_START },
        monitor: { snapshot: { path: snapshot, mode: '0600', group: null } },
      }),
    );
    const log = join(dir, 'nightly.log');
    const r = await runOhs(['run', 'nightly', '--log-file', log], { cwd: dir, env, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    // The reports as the registry lists them (not a fixed six), and room for one more report's line.
    const reports = (await runOhs(['report', '--list'], { cwd: dir, env })).stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/\s+/)[0] ?? '');
    expect(reports.length).toBeGreaterThanOrEqual(6);
    const room = Math.max(0, 7 - reports.length);
    expect(lines.length + room, r.stdout).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(/^nightly job run 1 ok in [\d.]+ s$/);
    expect(r.stdout).toMatch(/^sync run 1 ok \(full\): 9 of 9 streams complete, /m);
    // The next step as it was invoked here (node and the bin's path; npx ohs under npx).
    expect(r.stdout).toMatch(new RegExp(`^next: .*node ${OHS_BIN} status$`, 'm'));
    // Every report's verdict, whatever the formats (xlsx and csv here: no summary.json).
    // An OK verdict is among what the job did; any other is indented under attention.
    for (const name of reports) {
      const m = new RegExp(`^( {2})?report ${name}: (Action needed|Needs attention|OK)`, 'm').exec(r.stdout);
      expect(m, `${name} in\n${r.stdout}`).not.toBeNull();
      expect(m?.[1] === undefined, name).toBe(m?.[2] === 'OK');
    }

    // Every warning in the log file (level 40) is counted, and every kind has its line.
    const logged = readFileSync(log, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: number; msg: string; code?: string });
    // A warning logged again by a report run within another (accounts-at-risk runs compliance)
    // is counted once: the same text after the name of the report that logged it.
    const once = new Map<string, { level: number; msg: string }>();
    for (const l of logged.filter((w) => w.level === 40))
      once.set(
        `${l.msg.replace(/^[a-z][a-z0-9]*(?:-[a-z0-9]+)*: /, '')}${l.code === undefined ? '' : ` (${l.code})`}`,
        l,
      );
    const warnings = [...once.values()];
    expect(warnings.length).toBeGreaterThan(0);
    // Counted once: a warning a report quotes from a report it joins is, word for word, the one
    // that report logged itself (never the same warning over another count: ×2 … (also: NAME)).
    const own = new Set(
      logged.filter((l) => l.level === 40).map((l) => `${(l as { report?: string }).report}: ${l.msg}`),
    );
    for (const l of logged.filter((w) => w.level === 40)) {
      const quoted = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*): /.exec(l.msg);
      if (
        quoted?.[1] !== undefined &&
        reports.includes(quoted[1]) &&
        quoted[1] !== (l as { report?: string }).report
      )
        expect(own.has(l.msg), `${l.msg} logged by ${quoted[1]} itself`).toBe(true);
    }
    expect(r.stdout).not.toMatch(/\(also: [a-z-]+\)/);
    expect(r.stdout).toContain(
      `(${warnings.length} warning(s); every log line is in the log file (logFile)):`,
    );
    const kinds = new Set(warnings.map((w) => kindOf(w.msg))).size;
    const shown = lines.filter((l) => /^ {2}warning( ×\d+)?: /.test(l)).length;
    const rest = /^ {2}… and \d+ more of (\d+) other kinds/m.exec(r.stdout);
    expect(shown + Number(rest?.[1] ?? 0)).toBe(kinds);
    // Counts per kind add up to the warnings logged.
    const counted = lines
      .map((l) => /^ {2}warning(?: ×(\d+))?: /.exec(l))
      .filter((m) => m !== null)
      .reduce((a, m) => a + Number(m[1] ?? 1), 0);
    const more = Number(/^ {2}… and (\d+) more/m.exec(r.stdout)?.[1] ?? 0);
    expect(counted + more).toBe(warnings.length);

    // The snapshot was taken while the job ran: said so, and no CRITICAL after a success.
    const check = await runOhs(['status', '--check', '--db', snapshot], { cwd: dir, env });
    expect(check.stdout).toMatch(
      /^OHS OK - .*; BI snapshot taken \d{4}-\d\d-\d\dT[\d:.]+Z during nightly job run 1 \(its outcome is in the live mirror\)/,
    );
    expect(check.code).toBe(0);
    const live = await runOhs(['status', '--check'], { cwd: dir, env });
    expect(live.stdout).toMatch(/^OHS OK - /);

    // `ohs report all`: a line per report (its verdict), the warnings grouped by kind across the
    // reports (accounts at risk's quoted ones keep their kinds), at most 40 lines in all.
    const all = await runOhs(['report', 'all'], { cwd: dir, env });
    expect(all.code, all.stderr).toBe(0);
    const printed = `${all.stdout}${all.stderr}`.trimEnd().split('\n');
    expect(`${all.stdout}${all.stderr}`).not.toMatch(/\(also: [a-z-]+\)/);
    expect(printed.length + room, `${all.stdout}${all.stderr}`).toBeLessThanOrEqual(40);
    for (const name of reports)
      expect(all.stderr, name).toMatch(
        new RegExp(`^${name}: \\d+ detail rows?, .*: (Action needed|Needs attention|OK)`, 'm'),
      );
    const kindsLine = /^accounts-at-risk: \d+ detail rows, (\d+) warnings of (\d+) kinds/m.exec(all.stderr);
    if (kindsLine !== null) expect(Number(kindsLine[2])).toBeLessThan(20);

    // --quiet means quiet.
    const quiet = await runOhs(['run', 'reports', '--quiet'], { cwd: dir, env });
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // As docs/reports.md says: `ohs report --quiet` prints nothing but a failure.
    const quietReport = await runOhs(['report', 'all', '--quiet'], { cwd: dir, env });
    expect(quietReport).toMatchObject({ code: 0, stdout: '', stderr: '' });

    // A wrong token: the first line says so, and what to do.
    const wrong = await runOhs(['run', 'nightly'], { cwd: dir, env: { ...env, OHS_TOKEN: 'a-wrong-token' } });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr.split('\n')[0]).toMatch(/^ohs: UNAUTHORIZED: .*token/);
  });
});
