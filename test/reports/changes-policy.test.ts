import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeEngines, withTargets } from '../helpers/engines.js';
import { TEST_ANCHOR, WRITE_TOKEN, withSim } from '../helpers/sim.js';
import { workdir } from '../helpers/writeback.js';
import { type CsvRow, fileOf, ohsAt, readCsv } from './changes-helpers.js';

/**
 * What changed when rate policies are imported, end to end on the sandbox (clocks set by
 * libfaketime): nothing happens in the world between the two instants but a policy import, so
 * each imported policy is one line of its own (whose, which rates, in force from when), and every
 * status and verdict that moved is re-scored, never "fell behind" or "recovered"; a measured
 * failure that appears is still Action needed and says why. The statuses that moved are found
 * independently from the compliance and catch-up CSVs at both instants. The headline leads with
 * what got worse, and each line of the verdict is one of the headline's own.
 */
const D = TEST_ANCHOR;
const SYNC1 = `${D}T20:00:00Z`;
const T1 = `${D}T20:30:00.000Z`;
const IMPORT = `${D}T20:40:00Z`;
const T2 = `${D}T21:00:00.000Z`;
const LATER = `${D}T21:30:00Z`;
const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };
const code = (s: string | undefined) => (s ?? '').split(' (')[0] ?? '';

describeEngines('%s: what changed after a policy import', {}, (engine) => {
  const sim = withSim({ scale: 0.02 });
  const target = withTargets(engine);

  async function ohs(args: string[], dir: string, at = LATER) {
    const r = await ohsAt(at, args, { cwd: dir, env });
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  }

  /** The YTD status per employer and test type (the through-month's row), and the catch-up verdicts. */
  async function standingAt(dir: string, at: string, out: string) {
    await ohs(['report', 'all', '--as-of-time', at, '--format', 'csv', '--out', out], dir);
    const compliance = readCsv(fileOf(join(dir, out), 'compliance-2', '.csv'));
    const through = Math.max(...compliance.map((r) => Number(r.month)));
    const status = new Map<string, string>();
    for (const r of compliance.filter((x) => Number(x.month) === through)) {
      status.set(`${r.orgId}|drug`, r.drugStatus ?? '');
      status.set(`${r.orgId}|alcohol`, r.alcoholStatus ?? '');
    }
    const verdict = new Map<string, string>();
    for (const r of readCsv(fileOf(join(dir, out), 'catch-up-2', '.csv')))
      verdict.set(`${r.orgId}|${r.testType}`, r.verdict ?? '');
    return { status, verdict, compliance, through };
  }

  const moved = (a: Map<string, string>, b: Map<string, string>) =>
    [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();

  it('a policy import: one policy line per employer, every status and verdict it moves re-scored (a measured failure Action needed, saying why); the headline leads with what got worse, the verdict its own lines', async () => {
    const { dir } = workdir(sim().url, await target());
    await ohs(['sync'], dir, SYNC1);
    const before = await standingAt(dir, T1, 'b1');
    const rows = before.compliance.filter((r) => Number(r.month) === before.through);
    // Every status is assumed before (no policy imported): pick one on track and one behind.
    const onTrack = rows.find((r) => ['ON_TRACK', 'MET'].includes(code(r.drugStatus)));
    const behind = rows.find((r) => ['BEHIND', 'NOT_MET'].includes(code(r.drugStatus)));
    const third = rows.find((r) => r.orgId !== onTrack?.orgId && r.orgId !== behind?.orgId);
    expect(onTrack?.drugStatus, 'an assumed status').toMatch(/\(assumed rate\)$/);
    expect(behind, 'an employer behind').toBeDefined();
    // X, behind on the assumed FMCSA rates, gets the FMCSA rates as its own: measured behind now.
    const [X, Y, Z] = [behind?.orgId, onTrack?.orgId, third?.orgId] as [string, string, string];
    const file = join(dir, 'policies.csv');
    writeFileSync(
      file,
      [
        'orgId,program,agency,rpMinDrug,rpMinAlc,dotRegistrationNumber',
        `${X},DOT,FMCSA,,,1234567`,
        `${Y},NON_DOT,,1,1,`,
        `${Z},NON_DOT,,100,100,`,
      ].join('\n'),
    );
    await ohs(['policy', 'import', file], dir, IMPORT);
    const after = await standingAt(dir, T2, 'b2');

    const r = await ohs(
      ['report', 'changes', '--since', T1, '--as-of-time', T2, '--format', 'csv,html', '--out', 'c'],
      dir,
    );
    const csv = fileOf(join(dir, 'c'), 'changes-', '.csv');
    const lines: CsvRow[] = readCsv(csv);

    // One policy line per employer, with the rates and the months it scores.
    const policies = lines.filter((l) => (l.kind ?? '').startsWith('POLICY_'));
    expect(policies.map((l) => `${l.kind} ${l.orgId}`).sort()).toEqual(
      [X, Y, Z].map((o) => `POLICY_IMPORTED ${o}`).sort(),
    );
    const px = policies.find((l) => l.orgId === Z);
    expect(px?.after).toMatch(
      /^NON_DOT: drug 100%, alcohol 100%; in force from \d{4}-\d{2}-\d{2} \(recorded /,
    );
    expect(px?.before).toMatch(/^no policy: assumed rates/);
    expect(policies.find((l) => l.orgId === X)?.after).toMatch(/^DOT FMCSA: drug FMCSA's rate/);

    // Every status and verdict that moved (read from the base reports' CSVs) is re-scored, once.
    const keyOf = (l: CsvRow) => `${l.orgId}|${l.subject}`;
    const statusLines = lines.filter((l) => /^COMPLIANCE_/.test(l.kind ?? ''));
    const verdictLines = lines.filter((l) => /^CATCH_UP_/.test(l.kind ?? ''));
    expect(statusLines.map(keyOf).sort()).toEqual(moved(before.status, after.status));
    expect(verdictLines.map(keyOf).sort()).toEqual(moved(before.verdict, after.verdict));
    const rescored = [...statusLines, ...verdictLines];
    expect(rescored.length).toBeGreaterThan(0);
    const failing = new Set(['BEHIND', 'NOT_MET', 'CANNOT_MEET']);
    for (const l of rescored) {
      expect(l.kind, keyOf(l)).toMatch(/_RESCORED$/);
      expect([X, Y, Z]).toContain(l.orgId);
      expect(l.after, keyOf(l)).toContain('re-scored: policy imported');
      // Before: assumed; after: measured. A measured failure is Action needed and says why.
      const measuredFailure =
        failing.has(code(l.after)) && !(l.after ?? '').startsWith(`${code(l.after)} (assumed`);
      expect(l.severity, `${keyOf(l)}: ${l.before} → ${l.after}`).toBe(
        measuredFailure ? 'action' : 'changed',
      );
      if (measuredFailure) expect(l.after).toContain('measured for the first time');
    }
    // X's drug status: measured behind for the first time, Action needed.
    const xDrug = statusLines.find((l) => l.orgId === X && l.subject === 'drug');
    expect(xDrug?.severity).toBe('action');
    expect(xDrug?.after).toMatch(
      /^(BEHIND|NOT_MET) \(re-scored: policy imported; measured for the first time: (behind|not met)\)$/,
    );

    // The headline: no employer fell behind or recovered; it leads with what got worse, and
    // each line of the verdict is one of its own.
    const summary = JSON.parse(readFileSync(csv.replace(/\.csv$/, '.summary.json'), 'utf8')) as {
      headline: string;
      verdict: string;
      problems: string[];
      level: string;
    };
    expect(summary.headline).not.toMatch(/fell behind|recovered/);
    expect(summary.headline).toMatch(/3 policies imported/);
    expect(summary.level).toBe('bad');
    expect(summary.problems.length).toBeGreaterThan(0);
    const [, said = ''] = /^since [^:]+:\d\d:\d\d UTC: (.*)$/.exec(summary.headline) ?? [];
    expect(said.startsWith(summary.problems[0] as string), summary.headline).toBe(true);
    for (const p of summary.problems) expect(summary.headline).toContain(p);
    expect(summary.verdict).toBe(`Action needed: ${summary.problems.join('; ')}`);
    expect(r.stderr).toMatch(/^changes: \d+ detail rows, 0 warnings: Action needed: /m);
  }, 300_000);
});
