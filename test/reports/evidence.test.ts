import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import ExcelJS from 'exceljs';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runOhs } from '../helpers/cli.js';
import { engines } from '../helpers/engines.js';
import { withMirror } from '../helpers/mirror.js';
import { TEST_ANCHOR, withSim } from '../helpers/sim.js';
import { expectPlanFromCompliance } from './catch-up-check.js';
import { csv, env, SYNC_TIME, syncedSandbox } from './synced-sandbox.js';

/**
 * Reports that state evidence, not assumptions: each point through the real CLI on
 * a synced sandbox, the files read back (exceljs for the workbooks: sheets, statuses, print
 * view, print area, row heights; csv-parse for the CSVs), on every engine.
 */
const sim = withSim({ scale: 0.1 });
const synced = syncedSandbox(sim);

async function book(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
}

/** A sheet's rows as objects keyed by its header titles. */
function rowsOf(ws: ExcelJS.Worksheet): Record<string, unknown>[] {
  const titles = (ws.getRow(1).values as unknown[]).map((v) => String(v ?? ''));
  const out: Record<string, unknown>[] = [];
  ws.eachRow((row, n) => {
    if (n === 1) return;
    const o: Record<string, unknown> = {};
    (row.values as unknown[]).forEach((v, i) => {
      if (titles[i]) o[titles[i] as string] = v;
    });
    out.push(o);
  });
  return out;
}

function about(wb: ExcelJS.Workbook): Map<string, string> {
  const ws = wb.getWorksheet('About') as ExcelJS.Worksheet;
  return new Map(rowsOf(ws).map((r) => [String(r.Item), String(r.Value)]));
}

/** `ohs ARGS` in the synced folder; it must succeed. */
async function ohs(dir: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const r = await runOhs(args, { cwd: dir, env });
  expect(r.code, r.stderr).toBe(0);
  return r;
}

const FAILING = /^(NOT_MET|BEHIND|AT_RISK)( \(assumed rate\))?$/;
const file = (dir: string, out: string, name: string, ext: string) =>
  join(dir, out, `${name}-${TEST_ANCHOR}.${ext}`);

/** The warnings a report logged: JSON log lines (level 40) naming the report. */
function logged(stderr: string, report: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level?: number; report?: string; msg?: string })
    .filter((o) => o.level === 40 && o.report === report)
    .map((o) => o.msg ?? '');
}
describe.each(engines)('%s: reports state evidence, not assumptions', (engine) => {
  it('compliance without policies: every status says "assumed rate", warned with the count, counted first', async () => {
    const { dir, stderr } = await synced(engine);
    const rows = csv(file(dir, 'out', 'compliance', 'csv'));
    const orgs = new Set(rows.map((r) => r.orgId));
    for (const r of rows) {
      expect(r.rateSource).toBe('default:FMCSA');
      if (r.drugStatus !== 'N/A') expect(r.drugStatus).toMatch(/ \(assumed rate\)$/);
    }
    expect(logged(stderr, 'compliance')).toContainEqual(
      expect.stringMatching(new RegExp(`^${orgs.size} org\\(s\\) scored on an assumed rate`)),
    );
    const wb = await book(file(dir, 'out', 'compliance', 'xlsx'));
    expect(wb.worksheets[0]?.name).toBe('Problems');
    const problems = rowsOf(wb.worksheets[0] as ExcelJS.Worksheet);
    expect(String(problems[0]?.Problem)).toContain('assumed rate');
    expect(problems[0]?.Count).toBe(orgs.size);
    // Not coloured as a measured failure: the red rules match the bare statuses only.
    const detail = wb.getWorksheet('Compliance') as ExcelJS.Worksheet;
    expect(
      JSON.stringify((detail as unknown as { conditionalFormattings: unknown }).conditionalFormattings),
    ).not.toContain('assumed rate');
    expect(about(wb).get('Orgs on an assumed rate')).toMatch(new RegExp(`^${orgs.size} of ${orgs.size}:`));
  }, 300_000);

  it('catch-up without policies: each figure recomputed by hand from the compliance CSV, every verdict assumed; the compliance workbook holds the same plan', async () => {
    const { dir } = await synced(engine);
    const compliance = csv(file(dir, 'out', 'compliance', 'csv'));
    const plan = csv(file(dir, 'out', 'catch-up', 'csv'));
    expectPlanFromCompliance(compliance, plan, 'monthly');
    for (const p of plan) if (p.verdict !== 'N/A') expect(p.verdict).toMatch(/ \(assumed rate\)$/);
    expect(
      plan.some((p) => p.verdict?.startsWith('NEEDS_MORE') || p.verdict?.startsWith('CANNOT_MEET')),
    ).toBe(true);
    const sheet = rowsOf(
      (await book(file(dir, 'out', 'compliance', 'xlsx'))).getWorksheet('Catch-up') as ExcelJS.Worksheet,
    );
    expect(
      sheet.map((r) => `${r['Org id']} ${r['Test type']} ${r.Verdict} ${r['Picks still needed'] ?? ''}`),
    ).toEqual(plan.map((p) => `${p.orgId} ${p.testType} ${p.verdict} ${p.needed}`));
    const rules = about(await book(file(dir, 'out', 'catch-up', 'xlsx')));
    expect(rules.get('Needed')).toBe('needed = max(0, annual target − completed YTD − pending)');
    expect(rules.get('Verdict')).toContain('CANNOT_MEET: needed > 0 with no period left');
  }, 300_000);

  it('catch-up of a past year as of a month inside it (year=2025 throughMonth=6): planned as of June, each employer as compliance scores it', async () => {
    const { dir } = await synced(engine);
    const past = String(Number(TEST_ANCHOR.slice(0, 4)) - 1);
    const args = ['--as-of', TEST_ANCHOR, '--present', '--format', 'csv', '--out', 'out-past'];
    const opts = ['--option', `year=${past}`, '--option', 'throughMonth=6'];
    await ohs(dir, 'report', 'catch-up', ...args, ...opts);
    await ohs(dir, 'report', 'compliance', ...args, ...opts);
    const compliance = csv(file(dir, 'out-past', 'compliance', 'csv'));
    const plan = csv(file(dir, 'out-past', 'catch-up', 'csv'));
    expect(new Set(compliance.map((r) => r.year))).toEqual(new Set([past]));
    // Each figure as the test recomputes it from compliance's June rows (a year open at June).
    expectPlanFromCompliance(compliance, plan, 'monthly');
    const bare = (s: string | undefined) => (s ?? '').replace(/ \(assumed rate\)$/, '');
    let shortButOnTrack = 0;
    for (const r of compliance.filter((x) => x.month === '6'))
      for (const kind of ['drug', 'alcohol']) {
        const where = `org ${r.orgId} ${kind}`;
        const status = bare(r[`${kind}Status`]);
        const got = plan.find((p) => p.orgId === r.orgId && p.testType === kind);
        const verdict = bare(got?.verdict);
        // Compliance scores June of a past year as an open year: so does the plan.
        expect(['MET', 'NOT_MET'], where).not.toContain(verdict);
        expect(got?.periodsLeft, where).toBe('6');
        expect(verdict === 'N/A', where).toBe(status === 'N/A');
        // Compliance's MET is the plan's nothing needed (on pace, or on pace but for a data problem).
        if (status === 'MET') {
          expect(['ON_PACE', 'NEEDS_REVIEW'], where).toContain(verdict);
          expect(got?.needed, where).toBe('0');
        }
        // The case of the review: short of the annual target in June, yet on track to date.
        if (status === 'ON_TRACK' && Number(r[`${kind}CompletedYtd`]) < Number(r[`${kind}AnnualTarget`]))
          shortButOnTrack++;
      }
    expect(shortButOnTrack).toBeGreaterThan(0);
  }, 300_000);

  it('compliance evidence: picks never completed, quarters with no selection, documents by name, covered-list months, failing first', async () => {
    const { dir } = await synced(engine);
    const rows = csv(file(dir, 'out', 'compliance', 'csv'));
    const truth = new Map(
      sim()
        .truth()
        .OrgMonth.map((r) => [String(r.id), r]),
    );
    const byOrg = new Map<string, Record<string, string>[]>();
    for (const r of rows) byOrg.set(r.orgId ?? '', [...(byOrg.get(r.orgId ?? '') ?? []), r]);
    let notCompleted = 0;
    let flaggedMonths = 0;
    let quarters = 0;
    const through = Math.max(...rows.map((r) => Number(r.month)));
    for (const r of rows) {
      const open =
        Math.max(0, Number(r.drugPicked) - Number(r.drugCompleted)) +
        Math.max(0, Number(r.alcoholPicked) - Number(r.alcoholCompleted));
      expect(r.flags?.includes('PICKS_NOT_COMPLETED'), `org ${r.orgId} month ${r.month}`).toBe(open > 0);
      expect(Number(r.picksNotCompleted)).toBe(open);
      // The through-month's picks may still be collected: the months before it count as never completed.
      if (open > 0 && Number(r.month) < through) notCompleted++;
      if (open > 0) flaggedMonths++;
      // Documents by name, as the service holds them.
      const t = truth.get(r.orgMonthId ?? '');
      expect(r.randomPickDocument).toBe(t?.dropRandomPick ? String(t.dropRandomPick) : '');
      expect(r.coveredEmployeeDocument).toBe(t?.dropCoveredEmployee ? String(t.dropCoveredEmployee) : '');
    }
    for (const list of byOrg.values())
      for (let q = 1; q * 3 <= list.length; q++) {
        const months = list.slice(q * 3 - 3, q * 3);
        const picks = months.reduce((s, r) => s + Number(r.drugPicked) + Number(r.alcoholPicked), 0);
        const pool = months.reduce((s, r) => s + Number(r.pool), 0);
        const flagged = (months[2]?.flags ?? '').includes(`NO_SELECTION_Q${q}`);
        expect(flagged).toBe(picks === 0 && pool > 0);
        if (flagged) quarters++;
      }
    expect(flaggedMonths).toBeGreaterThan(0);
    const wb = await book(file(dir, 'out', 'compliance', 'xlsx'));
    const problems = rowsOf(wb.getWorksheet('Problems') as ExcelJS.Worksheet);
    expect(
      problems.find((p) => String(p.Problem).startsWith(`Org-months before month ${through} whose picks`))
        ?.Count,
    ).toBe(notCompleted);
    expect(problems.find((p) => String(p.Problem).startsWith('Quarters with no'))?.Count).toBe(quarters);
    const ytd = rowsOf(wb.getWorksheet('YTD by org') as ExcelJS.Worksheet).filter((r) => r['Org id'] != null);
    for (const r of ytd) {
      const list = byOrg.get(String(r['Org id'])) ?? [];
      // Months with an OrgMonth row and no list (a month before the employer joined needs none).
      expect(r['Months with no covered-employee list']).toBe(
        list.filter((x) => x.orgMonthId !== '' && x.coveredEmployeeDocument === '').length,
      );
    }
    // Failing employers first: once a row is not failing, none after it is.
    const failing = ytd.map(
      (r) => FAILING.test(String(r['Drug status'])) || FAILING.test(String(r['Alcohol status'])),
    );
    expect(failing.indexOf(false)).toBeGreaterThan(0);
    expect(failing.slice(failing.indexOf(false))).not.toContain(true);
  }, 300_000);

  it('compliance print view, About row heights, print areas, stable mirror identity and sync runs', async () => {
    const { dir } = await synced(engine);
    const wb = await book(file(dir, 'out', 'compliance', 'xlsx'));
    const detail = wb.getWorksheet('Compliance') as ExcelJS.Worksheet;
    expect(detail.views[0]).toMatchObject({ state: 'frozen', xSplit: 2, ySplit: 1 });
    expect(detail.pageSetup.printTitlesColumn).toBe('A:B');
    expect(detail.pageSetup.printTitlesRow).toBe('1:1');
    expect(detail.pageSetup.printArea).toMatch(/^A1:[A-Z]+\d+$/);
    const titles = (detail.getRow(1).values as unknown[]).map(String);
    const col = (title: string) => detail.getColumn(titles.indexOf(title));
    for (const t of ['Org', 'Drug status', 'Alcohol status', 'Drug annual target'])
      expect(col(t).hidden, t).toBe(false);
    for (const t of ['Drug shortfall', 'Eligible, all', 'OrgMonth label']) {
      expect(col(t).hidden, t).toBe(true);
      expect(col(t).outlineLevel, t).toBe(1);
    }
    const problems = wb.getWorksheet('Problems') as ExcelJS.Worksheet;
    expect(problems.pageSetup.printArea).toBe(`A1:C${problems.rowCount}`);
    // The one-page list wraps its long cells, each row as tall as its lines.
    problems.eachRow((row, n) => {
      const text = String(row.getCell(3).value ?? '');
      const lines = Math.ceil(text.length / ((problems.getColumn(3).width ?? 70) - 1));
      if (n > 1 && lines > 1) expect(row.height, `Problems row ${n}`).toBeGreaterThanOrEqual(15 * lines);
    });
    // Wrapped text has the height of its lines: no About line overprints the next.
    const aboutSheet = wb.getWorksheet('About') as ExcelJS.Worksheet;
    const width = aboutSheet.getColumn(2).width ?? 100;
    let tall = 0;
    aboutSheet.eachRow((row, n) => {
      if (n === 1) return;
      const lines = String(row.getCell(2).value ?? '')
        .split('\n')
        .reduce((s, part) => s + Math.max(1, Math.ceil(part.length / (width - 1))), 0);
      if (lines > 1) {
        tall++;
        expect(row.height, `About row ${n}`).toBeGreaterThanOrEqual(15 * lines);
      }
    });
    expect(tall).toBeGreaterThan(2);
    const lines = about(wb);
    expect(lines.get('Mirror')).toContain(`mirror of ${sim().url.replace(/\/+$/, '')}`);
    expect(lines.get('Mirror')).toMatch(/first synced .* \(sync run #\d+\)/);
    expect(lines.get('Last sync of orgmonth')).toMatch(/sync run #\d+ \(full, /);
  }, 300_000);

  it('compliance with policies: measured failures bare, combined-pool rollups name their weakest members, MIS per employer', async () => {
    const { dir } = await synced(engine);
    const rows = csv(file(dir, 'out', 'compliance', 'csv')).filter((r) => r.month === '5');
    const chosen = rows.slice(0, 12);
    const [parent, ...members] = chosen as [Record<string, string>, ...Record<string, string>[]];
    writeFileSync(
      join(dir, 'policy.csv'),
      [
        'orgId,agency,dotRegistrationNumber,parentOrgId',
        `${parent.orgId},FMCSA,1000001,`,
        ...members.map((r, i) => `${r.orgId},FMCSA,${1000002 + i},${parent.orgId}`),
      ].join('\n'),
    );
    await ohs(dir, 'policy', 'import', 'policy.csv');
    const r = await ohs(
      dir,
      ...[
        'report',
        'compliance',
        '--as-of',
        TEST_ANCHOR,
        '--present',
        '--out',
        'out-policy',
        '--option',
        'rollupMode=combinedPool',
      ],
    );
    const all = csv(file(dir, 'out-policy', 'compliance', 'csv'));
    const orgs = new Set(all.map((x) => x.orgId));
    expect(logged(r.stderr, 'compliance')).toContainEqual(
      expect.stringMatching(new RegExp(`^${orgs.size - chosen.length} org\\(s\\) scored on an assumed rate`)),
    );
    const own = all.filter((x) => chosen.some((c) => c.orgId === x.orgId));
    for (const x of own) expect(x.drugStatus).not.toContain('assumed');
    const wb = await book(file(dir, 'out-policy', 'compliance', 'xlsx'));
    // The combined pool's rollup still names every member below ON_TRACK on its own rate.
    const rollups = rowsOf(wb.getWorksheet('Rollups') as ExcelJS.Worksheet);
    const may = rollups.find((x) => x['Parent org id'] === Number(parent.orgId) && x.Month === 5);
    expect(may?.['Rollup mode']).toBe('combinedPool');
    const below = own.filter(
      (x) => x.month === '5' && /BEHIND|AT_RISK|PENDING_RESULTS/.test(x.drugStatus ?? ''),
    );
    expect(below.length).toBeGreaterThan(0);
    for (const x of below)
      expect(String(may?.['Drug: members below ON_TRACK or with no pool'])).toContain(
        `(${x.orgId}) ${x.drugStatus}`,
      );
    // MIS: one row per DOT employer, and a total named for what it is with the failing ones beside it.
    const mis = rowsOf(wb.getWorksheet('MIS random by employer') as ExcelJS.Worksheet);
    const employers = mis.filter((x) => x['Employer id'] != null);
    expect(employers.map((x) => String(x['Employer id'])).sort()).toEqual(chosen.map((c) => c.orgId).sort());
    const total = mis.find((x) => String(x.Employer).startsWith('Total FMCSA'));
    expect(String(total?.Employer)).toContain('information only');
    const failingCount = employers.filter(
      (x) => FAILING.test(String(x['Drug status'])) || FAILING.test(String(x['Alcohol status'])),
    ).length;
    expect(String(total?.['Failing employers (total rows)'])).toMatch(
      new RegExp(`^${failingCount} of ${chosen.length} failing`),
    );
  }, 300_000);

  it("catch-up with policies, quarterly: measured verdicts bare, recomputed by hand; the audit packet byte for byte, the reports' own CSVs, nothing written on bad input", async () => {
    const { dir } = await synced(engine);
    const own = new Set(
      csv(file(dir, 'out', 'compliance', 'csv'))
        .filter((r) => r.month === '5')
        .slice(0, 12)
        .map((r) => r.orgId),
    );
    const args = [
      '--as-of',
      TEST_ANCHOR,
      '--present',
      '--format',
      'csv',
      '--out',
      'out-cu',
      '--option',
      'selectionPeriod=quarterly',
    ];
    await ohs(dir, 'report', 'catch-up', ...args);
    await ohs(dir, 'report', 'compliance', ...args);
    const plan = csv(file(dir, 'out-cu', 'catch-up', 'csv'));
    expectPlanFromCompliance(csv(file(dir, 'out-cu', 'compliance', 'csv')), plan, 'quarterly');
    for (const p of plan)
      expect(p.verdict?.includes('assumed')).toBe(!own.has(p.orgId ?? '') && p.verdict !== 'N/A');

    // The packet of an employer with a policy, twice: the same bytes; its CSVs are the reports'.
    const org = [...own][0] ?? '';
    const other = plan.find((p) => !own.has(p.orgId ?? ''))?.orgId ?? '';
    const at = new Date().toISOString();
    const packet = async (id: string, out: string) =>
      join(
        dir,
        (
          await ohs(dir, 'packet', '--org', id, '--year', '2026', '--as-of-time', at, '--out', out)
        ).stdout.trim(),
      );
    const first = await packet(org, 'pk-1');
    const single = ['--org', org, '--as-of-time', at, '--format', 'csv', '--out', 'pk-reports'];
    await ohs(dir, 'report', 'compliance', ...single);
    await ohs(dir, 'report', 'catch-up', ...single);
    const second = await packet(org, 'pk-2');
    // Named for its instant rounded up to the second (the instant its data holds).
    const up = new Date(Math.ceil(Date.parse(at) / 1000) * 1000).toISOString();
    expect(basename(first)).toBe(`packet-org${org}-2026-at-${up.slice(0, 19).replace(/[-:]/g, '')}Z`);
    expect(statSync(first).mode & 0o777).toBe(0o700);
    const names = readdirSync(first).sort();
    expect(names).toEqual([
      'MANIFEST.sha256',
      'catch-up.csv',
      'compliance.csv',
      'evidence.csv',
      'index.html',
      'policy.csv',
      'sync-runs.csv',
      'verdicts.csv',
      'warnings.csv',
      'ytd.csv',
    ]);
    expect(readdirSync(second).sort()).toEqual(names);
    for (const n of names) {
      expect(readFileSync(join(second, n)).equals(readFileSync(join(first, n))), n).toBe(true);
      expect(statSync(join(first, n)).mode & 0o777, n).toBe(0o600);
    }
    const manifest = readFileSync(join(first, 'MANIFEST.sha256'), 'utf8');
    expect(manifest).toBe(
      names
        .filter((n) => n !== 'MANIFEST.sha256')
        .map(
          (n) =>
            `${createHash('sha256')
              .update(readFileSync(join(first, n)))
              .digest('hex')}  ${n}\n`,
        )
        .join(''),
    );
    const day = at.slice(0, 10);
    const stem = `${day}-at-${at.slice(0, 19).replace(/[-:]/g, '')}Z`;
    expect(readFileSync(join(first, 'compliance.csv'), 'utf8')).toBe(
      readFileSync(join(dir, 'pk-reports', `compliance-${stem}.csv`), 'utf8'),
    );
    expect(readFileSync(join(first, 'catch-up.csv'), 'utf8')).toBe(
      readFileSync(join(dir, 'pk-reports', `catch-up-${stem}.csv`), 'utf8'),
    );
    const rows = csv(join(first, 'compliance.csv'));
    const evidence = csv(join(first, 'evidence.csv'));
    expect(evidence.map((e) => e.month)).toEqual(rows.map((r) => r.month));
    for (const [i, e] of evidence.entries()) {
      const r = rows[i] as Record<string, string>;
      expect([e.pool, e.drugPicked, e.drugCompleted, e.randomPickDocument, e.flags]).toEqual([
        r.pool,
        r.drugPicked,
        r.drugCompleted,
        r.randomPickDocument,
        r.flags,
      ]);
      expect(e.dataCheck).toBe(String((r.flags ?? '').split(';').includes('DATA_CHECK')));
    }
    const policy = csv(join(first, 'policy.csv'));
    expect(policy.map((p) => [p.orgId, p.agency, p.inForce])).toEqual([[org, 'FMCSA', 'true']]);
    expect(csv(join(first, 'ytd.csv')).map((y) => y.drugCompletedYtd)).toEqual([
      rows.at(-1)?.drugCompletedYtd,
    ]);
    expect(csv(join(first, 'sync-runs.csv')).some((r) => r.outcome === 'ok')).toBe(true);
    const cover = readFileSync(join(first, 'index.html'), 'utf8');
    expect(cover).toContain(`In force since ${policy[0]?.validFrom}`);
    // A verdict per test type, measured, with its rate's source and the rate achieved to date.
    const verdicts = csv(join(first, 'verdicts.csv'));
    expect(verdicts.map((v) => [v.testType, v.basis])).toEqual([
      ['drug', 'measured (own rate)'],
      ['alcohol', 'measured (own rate)'],
    ]);
    const ytdRow = csv(join(first, 'ytd.csv'))[0] as Record<string, string>;
    expect(Number(verdicts[0]?.rateAchievedToDate)).toBeCloseTo(
      (Number(ytdRow.drugCompletedYtd) / Number(ytdRow.avgPoolYtd)) * 100,
      1,
    );
    expect(verdicts[0]?.rateBasis).toContain('FMCSA minimum for 2026: 49 CFR 382.305');
    expect(cover).toContain('What the service does not give');
    expect(cover).toContain('Clearinghouse queries');
    expect(cover).toContain('Rate achieved to date');
    // Every month says when the mirror first observed it.
    for (const e of evidence)
      if (e.orgMonthId !== '') expect(e.firstObservedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Made without --as-of-time, then with the instant of its name: the same bytes.
    const made = (args: string[], out: string) =>
      ohs(dir, 'packet', '--org', org, '--year', '2026', ...args, '--out', out).then((r) =>
        join(dir, r.stdout.trim()),
      );
    const latest = await made([], 'pk-4');
    const named = /-at-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(latest);
    expect(named).not.toBeNull();
    const [, y, mo, d, h, mi, se] = named as RegExpExecArray;
    const again = await made(['--as-of-time', `${y}-${mo}-${d}T${h}:${mi}:${se}Z`], 'pk-5');
    expect(basename(again)).toBe(basename(latest));
    for (const n of names)
      expect(
        readFileSync(join(again, n)).equals(readFileSync(join(latest, n))),
        `${n} made with the name's instant`,
      ).toBe(true);
    // Two instants within one second (.500 and .699): rounded up to the whole second before
    // anything is read, so one name and the same bytes in every file.
    const second0 = Math.floor(Date.parse(at) / 1000) * 1000;
    const within = (ms: number) => new Date(second0 + ms).toISOString();
    expect([within(500), within(699)].map((t) => t.slice(19))).toEqual(['.500Z', '.699Z']);
    const early = await made(['--as-of-time', within(500)], 'pk-6');
    const late = await made(['--as-of-time', within(699)], 'pk-7');
    const whole = new Date(second0 + 1000).toISOString().slice(0, 19).replace(/[-:]/g, '');
    expect(basename(early)).toBe(`packet-org${org}-2026-at-${whole}Z`);
    expect(basename(late)).toBe(basename(early));
    expect(readdirSync(late).sort()).toEqual(readdirSync(early).sort());
    for (const n of readdirSync(early))
      expect(readFileSync(join(late, n)).equals(readFileSync(join(early, n))), `${n} at .500 and .699`).toBe(
        true,
      );
    expect(cover).not.toMatch(/<script/i);
    for (const n of names)
      expect(readFileSync(join(first, n), 'utf8'), n).not.toMatch(/\b\d{3}-\d{2}-\d{4}\b/);
    // An employer without a policy: no version, the cover says the rate is assumed.
    const assumed = await packet(other, 'pk-3');
    expect(csv(join(assumed, 'policy.csv'))).toEqual([]);
    expect(readFileSync(join(assumed, 'index.html'), 'utf8')).toContain('an assumed rate');

    // Bad input: one line with its code, exit 2, nothing written.
    for (const [flags, code] of [
      [['--org', '999999', '--year', '2026'], 'ORG_UNKNOWN'],
      [['--org', org, '--year', '1990'], 'YEAR_NOT_IN_MIRROR'],
      [['--org', org, '--year', '2026', '--as-of-time', '2020-01-01T00:00:00Z'], 'AS_OF_BEFORE_HISTORY'],
    ] as const) {
      const r = await runOhs(['packet', ...flags, '--out', 'pk-bad'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^ohs: ${code}: `));
      expect(existsSync(join(dir, 'pk-bad'))).toBe(false);
    }
  }, 300_000);

  it('unpaid invoices: cancelled in the CSV with a status, reconciling; oldest days blank; the As-of evidence', async () => {
    const { dir, db, stderr } = await synced(engine);
    const rows = csv(file(dir, 'out', 'unpaid-invoices', 'csv'));
    expect(Object.keys(rows[0] ?? {})).toContain('status');
    expect(Object.keys(rows[0] ?? {})).not.toContain('documentPresent');
    const cents = (v: string | undefined) => Math.round(Number(v) * 100);
    const sum = (list: Record<string, string>[]) => list.reduce((s, x) => s + cents(x.totalDue), 0);
    const cancelled = rows.filter((x) => x.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    for (const x of cancelled) expect(x.bucket).toBe('VOID');
    const wb = await book(file(dir, 'out', 'unpaid-invoices', 'xlsx'));
    const buckets = rowsOf(wb.getWorksheet('Buckets') as ExcelJS.Worksheet);
    const amount = (label: string) =>
      Math.round(Number(buckets.find((b) => b.Bucket === label)?.Amount) * 100);
    expect(sum(rows)).toBe(amount('Total with cancelled'));
    expect(sum(rows.filter((x) => x.status === 'open'))).toBe(amount('Total'));
    // Oldest days past due: blank when nothing is overdue, never negative.
    const byOrg = rowsOf(wb.getWorksheet('By org') as ExcelJS.Worksheet);
    let blanks = 0;
    for (const o of byOrg.filter((x) => x['Org id'] != null)) {
      const overdue = rows.filter(
        (x) =>
          x.orgId === String(o['Org id']) &&
          x.status === 'open' &&
          Number(x.daysPastDue) > 0 &&
          cents(x.balance) > 0,
      );
      const oldest = o['Oldest days past due'];
      if (overdue.length === 0) {
        expect(oldest).toBeUndefined();
        blanks++;
      } else expect(oldest).toBe(Math.max(...overdue.map((x) => Number(x.daysPastDue))));
    }
    expect(blanks).toBeGreaterThan(0);
    const lines = about(wb);
    expect(lines.get('Not given by the service')).toMatch(/original invoice amount, payments.*no DSO/);
    // The balances were read at the sync (02:00 of the as-of day): they are of that date.
    expect(stderr).not.toContain('BALANCES NEWER');
    expect(lines.get('Balances as of')).toContain('those known at the as-of date');
    // An as-of date before the mirror's first sync, and balances read after the as-of date: loud.
    const before = await ohs(
      dir,
      'report',
      'unpaid-invoices',
      '--as-of',
      '2026-06-14',
      '--present',
      '--out',
      'out-past',
      '--format',
      'csv',
    );
    expect(logged(before.stderr, 'unpaid-invoices')).toContainEqual(
      expect.stringContaining(
        "AS-OF BEFORE THE MIRROR: the as-of date 2026-06-14 is before the mirror's first sync",
      ),
    );
    await withMirror(db, (m) =>
      sql`UPDATE invoice SET synced_at = ${'2026-06-20T02:00:00.000Z'}`.execute(m.db),
    );
    try {
      const newer = await ohs(
        dir,
        'report',
        'unpaid-invoices',
        '--as-of',
        TEST_ANCHOR,
        '--present',
        '--out',
        'out-newer',
      );
      expect(logged(newer.stderr, 'unpaid-invoices')).toContainEqual(
        expect.stringContaining('BALANCES NEWER THAN THE AS-OF DATE'),
      );
      expect(
        about(await book(file(dir, 'out-newer', 'unpaid-invoices', 'xlsx'))).get('Balances as of'),
      ).toContain('NOT those of the as-of date');
    } finally {
      await withMirror(db, (m) => sql`UPDATE invoice SET synced_at = ${SYNC_TIME}`.execute(m.db));
    }
  }, 300_000);

  it('order ageing: every open order, staged by status code, On Hold its own stage, unknown not zero, days', async () => {
    const { dir, db } = await synced(engine);
    const rows = csv(file(dir, 'out', 'order-ageing', 'csv'));
    const truth = new Map(
      sim()
        .truth()
        .OrderItem.map((o) => [String(o.id), o]),
    );
    const byCode: Record<string, string> = {
      ORD: 'ORDERED',
      SCH: 'ORDERED',
      COL: 'COLLECTED',
      LAB: 'AT_LAB',
      MRO: 'MRO',
    };
    expect(rows.some((r) => r.family === 'generic')).toBe(true);
    for (const r of rows)
      expect(r.stage).toBe(byCode[String(truth.get(r.orderItemId ?? '')?.c_currentStatusCodeId)]);
    const wb = await book(file(dir, 'out', 'order-ageing', 'xlsx'));
    const byOrg = rowsOf(wb.getWorksheet('By org') as ExcelJS.Worksheet);
    const total = byOrg.find((x) => x.Org === 'Total');
    expect(total?.COLLECTED).toBe(rows.filter((r) => r.stage === 'COLLECTED').length);
    expect(total?.AT_LAB).toBe(rows.filter((r) => r.stage === 'AT_LAB').length);
    expect(Number(total?.COLLECTED)).toBeGreaterThan(0);
    // Ages in days in the workbook; the hour columns grouped away.
    const detail = wb.getWorksheet('Order ageing') as ExcelJS.Worksheet;
    const titles = (detail.getRow(1).values as unknown[]).map(String);
    expect(detail.getColumn(titles.indexOf('Age (days)')).hidden).toBe(false);
    expect(detail.getColumn(titles.indexOf('Age (hours)')).hidden).toBe(true);
    const first = rowsOf(detail)[0] as Record<string, unknown>;
    const csvFirst = rows[0] as Record<string, string>;
    expect(first['Age (days)']).toBeCloseTo(Number(csvFirst.ageHours) / 24, 1);
    // On Hold, by its code, is a stage of its own.
    const held = rows[rows.length - 1]?.orderItemId ?? '';
    await withMirror(db, (m) =>
      sql`UPDATE orderitem SET ${sql.ref('c_currentStatusCodeId')} = 'ON_HOLD', ${sql.ref('c_currentStatusCodeName')} = 'On Hold' WHERE id = ${Number(held)}`.execute(
        m.db,
      ),
    );
    // As of 01:00, before the sync saw any status (02:00): time in status unknown, never 0.
    await ohs(
      dir,
      'report',
      'order-ageing',
      '--as-of-time',
      `${TEST_ANCHOR}T01:00:00Z`,
      '--present',
      '--out',
      'out-early',
      '--format',
      'csv',
    );
    // The file name carries the --as-of-time instant.
    const earlyRows = csv(
      join(dir, 'out-early', `order-ageing-${TEST_ANCHOR}-at-${TEST_ANCHOR.replace(/-/g, '')}T010000Z.csv`),
    );
    expect(earlyRows.find((r) => r.orderItemId === held)?.stage).toBe('ON_HOLD');
    const unknown = earlyRows.filter((r) => r.statusBucket === 'unknown');
    expect(unknown.length).toBeGreaterThan(0);
    for (const r of unknown) {
      expect(r.timeInStatusHours).toBe('');
      expect(r.dataFlags).toContain('SINCE_AFTER_AS_OF');
    }
    expect(
      earlyRows.filter((r) => Number(r.timeInStatusHours) === 0 && r.timeInStatusHours !== ''),
    ).toHaveLength(0);
    // An item 30 days old or more is never OK.
    const old = earlyRows.filter((r) => Number(r.ageHours) >= 720);
    expect(old.length).toBeGreaterThan(0);
    for (const r of old) {
      expect(r.flag).not.toBe('OK');
      expect(r.ageFlag).toBe('30d+');
    }
  }, 300_000);

  it('warnings counted by kind on the report line, each a log line of its report, all on the Warnings sheet; --quiet', async () => {
    const { dir, stderr } = await synced(engine);
    const head =
      /^compliance: \d+ detail rows, (\d+) warnings of (\d+) kinds \(all on the Warnings sheet\): /m.exec(
        stderr,
      );
    expect(head).not.toBeNull();
    const [total, kinds] = [Number(head?.[1]), Number(head?.[2])];
    expect(kinds).toBeLessThan(total);
    // Each warning is a log line of its report (JSON here; the text terminal groups them by kind).
    expect(logged(stderr, 'compliance')).toHaveLength(total);
    const wb = await book(file(dir, 'out', 'compliance', 'xlsx'));
    expect((wb.getWorksheet('Warnings') as ExcelJS.Worksheet).rowCount - 1).toBe(total);
    const quiet = await ohs(
      dir,
      'report',
      'all',
      '--as-of',
      TEST_ANCHOR,
      '--present',
      '--out',
      'out-quiet',
      '--quiet',
    );
    // --quiet means quiet: the files are written, nothing is printed.
    expect(quiet).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(readdirSync(join(dir, 'out-quiet')).length).toBeGreaterThan(0);
  }, 300_000);
});
