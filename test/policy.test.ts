import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type Database, openMirror, type PolicyVersion, policiesAsOf } from '../src/mirror/index.js';
import { importPolicies } from '../src/policy/import.js';
import { runOhs } from './helpers/cli.js';
import { defaults } from './helpers/defaults.js';
import { engines, withTargets } from './helpers/engines.js';

async function policiesHistory(db: Kysely<Database>, orgId: number): Promise<PolicyVersion[]> {
  const r =
    await sql<PolicyVersion>`SELECT * FROM h_org_policy WHERE org_id = ${orgId} ORDER BY valid_from`.execute(
      db,
    );
  return r.rows;
}

function dir(): string {
  return mkdtempSync(join(tmpdir(), 'ohs-policy-'));
}

describe.each(engines)('%s: ohs policy import', (engine) => {
  const target = withTargets(engine);
  /** An empty mirror (policy import refuses a missing file, as a mistyped --db). */
  const newMirror = async (): Promise<string> => {
    const db = await target();
    await (await openMirror(db)).close();
    return db;
  };

  it('imports a CSV with interface or camelCase column names, deriving the program', async () => {
    const d = dir();
    const file = join(d, 'policy.csv');
    writeFileSync(
      file,
      'OrgId,agency,rpMinDrug,rpMinAlc,rpDotRegistrationNumber,Parent~OrgId\r\n1001,FMCSA,50,10,123456,\r\n1002,,25,0,,1001\r\n',
    );
    const db = await newMirror();
    const r = await runOhs(['policy', 'import', file, '--db', db]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('imported 2 org policies');
    const mirror = await openMirror(db);
    try {
      const rows = await mirror.db.selectFrom('org_policy').selectAll().orderBy('org_id').execute();
      expect(rows.map(({ updated_at: _u, ...p }) => p)).toEqual([
        {
          org_id: 1001,
          program: 'DOT',
          agency: 'FMCSA',
          rp_min_drug: 50,
          rp_min_alc: 10,
          dot_registration_number: '123456',
          parent_org_id: null,
          source: 'import',
          // No effectiveFrom: the first day of the year it is imported in (UTC here).
          effective_from: `${new Date().getUTCFullYear()}-01-01`,
        },
        {
          org_id: 1002,
          program: 'NON_DOT',
          agency: null,
          rp_min_drug: 25,
          rp_min_alc: 0,
          dot_registration_number: null,
          parent_org_id: 1001,
          source: 'import',
          effective_from: `${new Date().getUTCFullYear()}-01-01`,
        },
      ]);
    } finally {
      await mirror.close();
    }
  });

  it('imports XLSX, and a second import replaces an org policy', async () => {
    const d = dir();
    const file = join(d, 'policy.xlsx');
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Policies');
    ws.addRow(['orgId', 'program', 'agency', 'rpMinDrug', 'rpMinAlc', 'effectiveFrom']);
    // A spreadsheet date cell: the policy scores the months from 1 March 2026.
    ws.addRow([2001, 'dot', 'faa', 25, 10, new Date(Date.UTC(2026, 2, 1))]);
    await wb.xlsx.writeFile(file);
    const mirror = await openMirror(await target());
    try {
      expect(await importPolicies(mirror.db, file, defaults.input)).toBe(1);
      const csv = join(d, 'again.csv');
      writeFileSync(csv, 'orgId,program,rpMinDrug\n2001,NON_DOT,10\n');
      await importPolicies(mirror.db, csv, defaults.input);
      const row = await mirror.db
        .selectFrom('org_policy')
        .selectAll()
        .where('org_id', '=', 2001)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ program: 'NON_DOT', rp_min_drug: 10, agency: null });
      // The first policy is kept as a version, closed when the second took effect.
      const versions = await policiesHistory(mirror.db, 2001);
      expect(versions.map((v) => [v.program, v.agency, v.valid_to === null])).toEqual([
        ['DOT', 'FAA', false],
        ['NON_DOT', null, true],
      ]);
      expect(versions[0]?.valid_to).toBe(versions[1]?.valid_from);
      expect(versions.map((v) => v.effective_from)).toEqual([
        '2026-03-01',
        `${new Date().getUTCFullYear()}-01-01`,
      ]);
      expect((await policiesAsOf(mirror.db, versions[0]?.valid_from))[0]).toMatchObject({ agency: 'FAA' });
      expect((await policiesAsOf(mirror.db, undefined))[0]).toMatchObject({ program: 'NON_DOT' });
      // The same file again changes nothing: no new version.
      await importPolicies(mirror.db, csv, defaults.input);
      expect(await policiesHistory(mirror.db, 2001)).toHaveLength(2);
    } finally {
      await mirror.close();
    }
  });

  it('rejects a file with bad rows whole, listing every problem by file, row and field', async () => {
    const d = dir();
    const file = join(d, 'bad.csv');
    writeFileSync(
      file,
      'orgId,program,agency,rpMinDrug,color,effectiveFrom\n1001,DOT,FMCSA,50,red,\nabc,MAYBE,NASA,150,,1 March\n1001,,,,,\n',
    );
    const db = await newMirror();
    const r = await runOhs(['policy', 'import', file, '--db', db]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(`ohs: INPUT_INVALID: ${file}: 7 problem(s), nothing imported`);
    expect(lines.slice(1).map((l) => l.trim())).toEqual([
      `${file}:1: unknown column(s) color (expected orgId, program, agency, rpMinDrug, rpMinAlc, dotRegistrationNumber, parentOrgId, effectiveFrom)`,
      `${file}:3: orgId: required, a whole number`,
      `${file}:3: program: expected DOT or NON_DOT`,
      `${file}:3: agency: expected one of FMCSA, FTA, FAA, FRA, PHMSA, USCG`,
      `${file}:3: rpMinDrug: expected a percent from 0 to 100`,
      `${file}:3: effectiveFrom: expected a date YYYY-MM-DD`,
      `${file}:4: orgId: 1001 is already on row 2`,
    ]);
    const mirror = await openMirror(db);
    try {
      expect(await mirror.db.selectFrom('org_policy').selectAll().execute()).toEqual([]);
    } finally {
      await mirror.close();
    }
  });

  it('says what is wrong with an unreadable file', async () => {
    const db = await newMirror();
    const r = await runOhs(['policy', 'import', '/nonexistent/p.csv', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('ohs: INPUT_INVALID: /nonexistent/p.csv: cannot read: ENOENT');
    const odd = join(dir(), 'p.txt');
    writeFileSync(odd, 'x');
    const r2 = await runOhs(['policy', 'import', odd, '--db', db]);
    expect(r2.stderr.trim()).toBe(
      `ohs: INPUT_INVALID: ${odd}: unknown file type '.txt': use .csv, .xlsx, .json or .ndjson`,
    );
  });
});
