import { describe, expect, it } from 'vitest';
import { resolveAsOf } from '../../src/dates.js';
import type { Mirror } from '../../src/mirror/index.js';
import type { Row } from '../../src/render/types.js';
import { catchUpHtml } from '../../src/reports/catch-up/html.js';
import { complianceFacts, planFacts } from '../../src/reports/compliance/figures.js';
import { complianceHtml } from '../../src/reports/compliance/html.js';
import { annualTarget, rateUnits } from '../../src/reports/compliance/math.js';
import { ReportParamError } from '../../src/reports/core/errors.js';
import { reportNamed } from '../../src/reports/index.js';
import { engines } from '../helpers/engines.js';
import {
  aboutValue,
  params,
  policy,
  runReport,
  softDelete,
  syncState,
  tempMirrors,
  upsert,
} from './fixture.js';

const compliance = reportNamed('compliance');

/**
 * Compliance (docs/reports.md, Compliance): worked examples whose figures are written out below
 * (drug / alcohol rates 50 / 10 unless stated), and the edge cases.
 */
let nextId = 900001;

interface MonthSpec {
  pool?: number | null;
  drugPicked?: number;
  drugCompleted?: number;
  alcoholPicked?: number;
  alcoholCompleted?: number;
  label?: string;
}

async function orgMonths(
  m: Mirror,
  orgId: number,
  year: number,
  months: Record<number, MonthSpec>,
): Promise<void> {
  const records = Object.entries(months).map(([month, s]) => ({
    id: nextId++,
    OrgId: orgId,
    label: s.label ?? `${year}-${String(month).padStart(2, '0')}`,
    countEligibleAll: s.pool ?? 0,
    countEligibleRandomPool: s.pool,
    countPickedDrug: s.drugPicked ?? 0,
    countPickedDrugResult: s.drugCompleted ?? 0,
    countPickedAlcohol: s.alcoholPicked ?? 0,
    countPickedAlcoholResult: s.alcoholCompleted ?? 0,
  }));
  await upsert(m, 'OrgMonth', records);
}

/** Months from..to with the same spec. */
function range(from: number, to: number, spec: MonthSpec): Record<number, MonthSpec> {
  const out: Record<number, MonthSpec> = {};
  for (let i = from; i <= to; i++) out[i] = { ...spec };
  return out;
}

/** An org name, as the mirror learns it: the c_org of an invoice. */
async function named(m: Mirror, orgId: number, name: string, now?: string): Promise<void> {
  await upsert(
    m,
    'Invoice',
    [{ id: `N${orgId}-${name.length}-${now ?? ''}`, OrgId: orgId, c_org: name, balance: 0 }],
    now,
  );
}

const at = (rows: Row[], orgId: number, month: number) => {
  const r = rows.find((x) => x.orgId === orgId && x.month === month);
  if (r === undefined) throw new Error(`no row for org ${orgId} month ${month}`);
  return r;
};

describe.each(engines)('%s', (engine) => {
  const mirror = tempMirrors(engine);

  describe('compliance: worked examples', () => {
    it('1. six months at pool 20: on track, target 10, 0.83 a month, 50% annualized', async () => {
      const m = await mirror();
      await named(m, 1, 'Acme Haulage');
      await orgMonths(m, 1, 2025, {
        ...range(1, 5, { pool: 20, drugPicked: 1, drugCompleted: 1 }),
        6: { pool: 20, drugPicked: 1, drugCompleted: 0 },
        3: { pool: 20, drugPicked: 1, drugCompleted: 1, alcoholPicked: 1, alcoholCompleted: 1 },
      });
      const ran = await runReport(compliance, m, params('2025-06-30'));
      expect(ran.detail).toHaveLength(6);
      const jun = at(ran.detail, 1, 6);
      expect(jun).toMatchObject({
        org: 'Acme Haulage',
        year: 2025,
        pool: 20,
        exposure: 120,
        drugRate: 50,
        drugPicked: 1,
        drugCompleted: 0,
        drugPickedYtd: 6,
        drugCompletedYtd: 5,
        drugExpectedToDate: 5,
        drugAnnualTarget: 10,
        // No policy: the default rates are assumed, and the status says so.
        drugStatus: 'ON_TRACK (assumed rate)',
        drugRemaining: 5,
        drugShortfall: 0,
        drugAnnualizedRate: 0.5,
        projectedAvg: 20,
        avgPoolYtd: 20,
        alcoholRate: 10,
        alcoholPickedYtd: 1,
        alcoholCompletedYtd: 1,
        alcoholExpectedToDate: 1,
        alcoholAnnualTarget: 2,
        alcoholStatus: 'ON_TRACK (assumed rate)',
        rateSource: 'default:FMCSA',
        // No policy row: the default rates, but not DOT (docs/reports.md, Compliance: rates).
        program: 'UNKNOWN',
        // June's one drug pick has no result yet.
        flags: 'PICKS_NOT_COMPLETED;NO_POLICY',
      });
      expect(jun.drugNeededPerMonth as number).toBeCloseTo(0.83, 2);
      // Each month row is the state at the end of that month: January expects 0.83 tests.
      expect(at(ran.detail, 1, 1)).toMatchObject({
        exposure: 20,
        drugCompletedYtd: 1,
        drugStatus: 'ON_TRACK (assumed rate)',
      });
      const ytd = await ran.summary('YTD by org');
      expect(ytd).toHaveLength(2);
      expect(ytd[0]).toMatchObject({
        orgId: 1,
        throughMonth: 6,
        exposure: 120,
        drugAnnualTarget: 10,
        drugStatus: 'ON_TRACK (assumed rate)',
      });
      expect(ytd[1]).toMatchObject({
        org: 'Total without policy',
        program: 'UNKNOWN',
        exposure: 120,
        drugAnnualTarget: 10,
        drugCompletedYtd: 5,
        alcoholAnnualTarget: 2,
      });
      expect(aboutValue(ran, 'Year and months')).toContain(
        'month 6: the last full month before the as-of date',
      );
    });

    it('throughMonth defaults to the last full month before the as-of date', async () => {
      const m = await mirror();
      await orgMonths(m, 1, 2025, range(1, 6, { pool: 20 }));
      expect((await runReport(compliance, m, params('2025-06-29'))).detail.map((r) => r.month)).toEqual([
        1, 2, 3, 4, 5,
      ]);
      expect((await runReport(compliance, m, params('2025-07-01'))).detail).toHaveLength(6);
      // A past year runs to December; in January (no full month yet) the year before is reported.
      expect((await runReport(compliance, m, params('2026-03-01', { year: 2025 }))).detail).toHaveLength(12);
      const january = await runReport(compliance, m, params('2026-01-20'));
      expect(january.detail.map((r) => [r.year, r.month])).toContainEqual([2025, 12]);
      expect(aboutValue(january, 'Year and months')).toContain('the year before is reported');
      await expect(
        compliance.run({ db: m.db, params: params('2025-01-20', { year: 2025 }) }),
      ).rejects.toMatchObject({
        code: 'REPORT_PARAM_INVALID',
        param: 'options.year',
      });
    });

    it('2. small pool of 11 all year: targets ceil(5.5) = 6 and ceil(1.1) = 2', async () => {
      const m = await mirror();
      await orgMonths(m, 2, 2025, range(1, 12, { pool: 11, drugPicked: 1, drugCompleted: 1 }));
      const ran = await runReport(compliance, m, params('2026-02-01', { year: 2025 }));
      const dec = at(ran.detail, 2, 12);
      expect(dec).toMatchObject({
        exposure: 132,
        drugAnnualTarget: 6,
        alcoholAnnualTarget: 2,
        drugStatus: 'MET (assumed rate)',
      });
      expect(dec.alcoholStatus).toBe('NOT_MET (assumed rate)');
    });

    it('targets use exact arithmetic: 7% of 100 is 7 (floating point says 8)', async () => {
      expect(annualTarget(rateUnits(7), 1200, 100, 12)).toBe(7);
      const m = await mirror();
      await policy(m, [{ org_id: 7, program: 'NON_DOT', rp_min_drug: 7, rp_min_alc: 0 }]);
      await orgMonths(m, 7, 2025, range(1, 12, { pool: 100 }));
      const ran = await runReport(compliance, m, params('2026-01-31', { year: 2025 }));
      expect(at(ran.detail, 7, 12)).toMatchObject({
        drugRate: 7,
        drugAnnualTarget: 7,
        alcoholRate: 0,
        alcoholStatus: 'N/A',
        alcoholAnnualTarget: null,
        rateSource: 'policy:import',
        program: 'NON_DOT',
      });
    });

    it('3. joined in July: at m = 12 exposure 60, targets 3 and 1; at m = 9 expected 1.25, target 3', async () => {
      const m = await mirror();
      await orgMonths(m, 3, 2025, range(7, 12, { pool: 10 }));
      const year = await runReport(compliance, m, params('2025-12-31'));
      expect(at(year.detail, 3, 12)).toMatchObject({
        exposure: 60,
        avgPoolYtd: 5,
        drugAnnualTarget: 3,
        alcoholAnnualTarget: 1,
      });
      // Before the org's first row its pool is 0: no DATA_GAP, only NO_POOL.
      // A month with no pool is N/A (never MET on a target of 0).
      expect(at(year.detail, 3, 6)).toMatchObject({
        pool: 0,
        exposure: 0,
        flags: 'NO_POOL;NO_POLICY',
        drugStatus: 'N/A',
        alcoholStatus: 'N/A',
      });
      const sep = await runReport(compliance, m, params('2025-12-31', { throughMonth: 9 }));
      expect(sep.detail).toHaveLength(9);
      expect(at(sep.detail, 3, 9)).toMatchObject({
        exposure: 30,
        drugExpectedToDate: 1.25,
        projectedAvg: 5,
        drugAnnualTarget: 3,
        drugStatus: 'BEHIND (assumed rate)',
      });
    });

    it('4. picks without results: pending results, shortfall 1, annualized 40%', async () => {
      const m = await mirror();
      await orgMonths(m, 4, 2025, {
        1: { pool: 40, drugPicked: 2, drugCompleted: 2 },
        2: { pool: 40, drugPicked: 2, drugCompleted: 2 },
        3: { pool: 40, drugPicked: 2, drugCompleted: 0 },
      });
      const ran = await runReport(compliance, m, params('2025-04-15'));
      expect(ran.detail).toHaveLength(3);
      expect(at(ran.detail, 4, 3)).toMatchObject({
        exposure: 120,
        drugPickedYtd: 6,
        drugCompletedYtd: 4,
        drugExpectedToDate: 5,
        drugStatus: 'PENDING_RESULTS (assumed rate)',
        drugShortfall: 1,
        drugAnnualizedRate: 0.4,
        drugCompletionRatio: 4 / 6,
      });
    });

    describe('5. parent rollup: X (50%) pool 30 completes 15, Y (25%) pool 10 completes 3', () => {
      async function family(): Promise<Mirror> {
        const m = await mirror();
        await named(m, 100, 'Consortium');
        await named(m, 101, 'X Trucking');
        await named(m, 102, 'Y Rail');
        await policy(m, [
          { org_id: 100, agency: 'FMCSA' },
          { org_id: 101, rp_min_drug: 50, rp_min_alc: 10, parent_org_id: 100 },
          { org_id: 102, agency: 'FRA', rp_min_drug: 25, rp_min_alc: 10, parent_org_id: 100 },
        ]);
        await orgMonths(m, 101, 2025, {
          ...range(1, 12, { pool: 30, drugPicked: 1, drugCompleted: 1 }),
          12: { pool: 30, drugPicked: 4, drugCompleted: 4 },
        });
        await orgMonths(m, 102, 2025, {
          ...range(1, 12, { pool: 10 }),
          12: { pool: 10, drugPicked: 3, drugCompleted: 3 },
        });
        return m;
      }

      it('sumOfChildren: targets 15 + 3 = 18, met', async () => {
        const m = await family();
        const ran = await runReport(compliance, m, params('2026-01-15', { year: 2025 }));
        expect(at(ran.detail, 101, 12)).toMatchObject({
          drugAnnualTarget: 15,
          drugCompletedYtd: 15,
          drugStatus: 'MET',
        });
        expect(at(ran.detail, 102, 12)).toMatchObject({
          drugAnnualTarget: 3,
          drugCompletedYtd: 3,
          drugStatus: 'MET',
        });
        const rollups = await ran.summary('Rollups');
        expect(rollups).toHaveLength(12);
        expect(at(rollups, 100, 12)).toMatchObject({
          org: 'Consortium',
          program: 'DOT',
          rollupMode: 'sumOfChildren',
          members: '101;102',
          pool: 40,
          exposure: 480,
          drugRate: null,
          drugAnnualTarget: 18,
          drugCompletedYtd: 18,
          drugStatus: 'MET',
        });
        // Grand totals add the orgs (never the rollups).
        const ytd = await ran.summary('YTD by org');
        expect(ytd.at(-1)).toMatchObject({
          org: 'Total DOT',
          exposure: 480,
          drugAnnualTarget: 18,
          drugCompletedYtd: 18,
        });
      });

      it('combinedPool: 50% of 40 = 20, not met', async () => {
        const m = await family();
        const ran = await runReport(
          compliance,
          m,
          params('2026-01-15', { year: 2025, rollupMode: 'combinedPool' }),
        );
        expect(at(await ran.summary('Rollups'), 100, 12)).toMatchObject({
          rollupMode: 'combinedPool',
          drugRate: 50,
          drugAnnualTarget: 20,
          drugCompletedYtd: 18,
          drugStatus: 'NOT_MET',
          alcoholRate: 10,
          alcoholAnnualTarget: 4,
        });
      });

      it('the parent and its children are chosen by orgIds + includeChildren', async () => {
        const m = await family();
        const withChildren = await runReport(
          compliance,
          m,
          params('2026-01-15', { year: 2025, includeChildren: true }, { orgIds: [100] }),
        );
        expect(new Set(withChildren.detail.map((r) => r.orgId))).toEqual(new Set([101, 102]));
        expect(at(await withChildren.summary('Rollups'), 100, 12)).toMatchObject({ drugAnnualTarget: 18 });
        const alone = await runReport(compliance, m, params('2026-01-15', { year: 2025 }, { orgIds: [100] }));
        expect(alone.detail).toHaveLength(0);
        expect(alone.summaries.map((s) => s.name)).toEqual(['Problems', 'YTD by org', 'Trend']);
        expect(alone.warnings).toContain('Org 100 has no OrgMonth row for 2025 through month 12');
      });

      it('never combines DOT and non-DOT orgs', async () => {
        const m = await family();
        await policy(m, [
          { org_id: 103, program: 'NON_DOT', rp_min_drug: 10, rp_min_alc: 0, parent_org_id: 100 },
        ]);
        await orgMonths(m, 103, 2025, range(1, 12, { pool: 50 }));
        const ran = await runReport(compliance, m, params('2026-01-15', { year: 2025 }));
        const dec = (await ran.summary('Rollups')).filter((r) => r.month === 12);
        expect(dec.map((r) => [r.program, r.members, r.pool])).toEqual([
          ['DOT', '101;102', 40],
          ['NON_DOT', '103', 50],
        ]);
        const dot = await runReport(compliance, m, params('2026-01-15', { year: 2025, program: 'DOT' }));
        expect(new Set(dot.detail.map((r) => r.orgId))).toEqual(new Set([101, 102]));
        const nonDot = await runReport(
          compliance,
          m,
          params('2026-01-15', { year: 2025, program: 'non-dot' }),
        );
        expect(new Set(nonDot.detail.map((r) => r.orgId))).toEqual(new Set([103]));
      });
    });

    it('gap rule: Jan, Feb, Apr at pool 10, Mar missing: Mar is 10 (DATA_GAP), exposure 40 at m = 4', async () => {
      const m = await mirror();
      await orgMonths(m, 5, 2025, { 1: { pool: 10 }, 2: { pool: 10 }, 4: { pool: 10 } });
      const ran = await runReport(compliance, m, params('2025-04-30'));
      expect(at(ran.detail, 5, 3)).toMatchObject({
        pool: 10,
        exposure: 30,
        // No pick in January to March while the pool is 10: a quarter with no selection.
        flags: 'DATA_GAP;NO_SELECTION_Q1;NO_POLICY',
        orgMonthId: null,
      });
      expect(at(ran.detail, 5, 4)).toMatchObject({ pool: 10, exposure: 40, flags: 'NO_POLICY' });
      expect(
        ran.warnings.some((w) => w.includes('2025-03: no OrgMonth row; pool 10 carried forward (DATA_GAP)')),
      ).toBe(true);
    });
  });

  describe('compliance: inputs and edge cases', () => {
    it('reads every label form, lists unparseable labels and duplicates, ignores soft-deleted rows', async () => {
      const m = await mirror();
      await orgMonths(m, 6, 2025, {
        1: { pool: 10, label: '2025-01' },
        2: { pool: 10, label: '02/2025' },
        3: { pool: 10, label: '2025-3' },
        4: { pool: 99, label: 'n/a' },
      });
      await upsert(m, 'OrgMonth', [{ id: 1, OrgId: 6, label: '2025-04', countEligibleRandomPool: 12 }]);
      await upsert(m, 'OrgMonth', [{ id: 2, OrgId: 6, label: '04/2025', countEligibleRandomPool: 14 }]);
      await upsert(m, 'OrgMonth', [{ id: 3, OrgId: 6, label: '2025-05', countEligibleRandomPool: 500 }]);
      await softDelete(m, 'orgmonth', 3);
      const ran = await runReport(compliance, m, params('2025-05-31'));
      expect(ran.detail.map((r) => r.pool)).toEqual([10, 10, 10, 14, 14]);
      expect(at(ran.detail, 6, 5).flags).toBe('DATA_GAP;NO_POLICY');
      expect(ran.warnings.some((w) => w.includes('label "n/a" is not a month'))).toBe(true);
      expect(ran.warnings.some((w) => w.includes('are both 2025-04; row 2 is used'))).toBe(true);
    });

    it('flags DATA_CHECK when results exceed picks or picks have no pool', async () => {
      const m = await mirror();
      await orgMonths(m, 8, 2025, {
        1: { pool: 5, drugPicked: 1, drugCompleted: 2 },
        2: { pool: 0, alcoholPicked: 1 },
      });
      const ran = await runReport(compliance, m, params('2025-02-28'));
      expect(at(ran.detail, 8, 1).flags).toBe('DATA_CHECK;NO_POLICY');
      // February's alcohol pick has no result: never completed.
      expect(at(ran.detail, 8, 2).flags).toBe('DATA_CHECK;PICKS_NOT_COMPLETED;NO_POLICY');
      expect(ran.warnings.filter((w) => w.includes('(DATA_CHECK)'))).toHaveLength(2);
    });

    it('a policy changed after a report leaves that report unchanged when asked again as of its instant', async () => {
      const m = await mirror();
      await orgMonths(m, 21, 2025, range(1, 6, { pool: 10, drugPicked: 2, drugCompleted: 2 }));
      // In force from SYNC_TIME (2025-07-01T02:00Z): FMCSA, 50%.
      await policy(m, [{ org_id: 21, agency: 'FMCSA', dot_registration_number: '2100' }]);
      const T = '2025-07-02T00:00:00.000Z';
      const asked = params('2025-07-01', { year: 2025 }, { mirrorAsOf: T });
      const before = await runReport(compliance, m, asked);
      expect(at(before.detail, 21, 6)).toMatchObject({ drugRate: 50, drugAnnualTarget: 5 });
      // Re-imported later as FAA (25%).
      await policy(m, [
        {
          org_id: 21,
          agency: 'FAA',
          dot_registration_number: '2100',
          updated_at: '2025-07-03T00:00:00.000Z',
        },
      ]);
      const again = await runReport(compliance, m, asked);
      expect(again.detail).toEqual(before.detail);
      expect(aboutValue(again, 'Policies in force')).toBe(aboutValue(before, 'Policies in force'));
      expect(aboutValue(again, 'Policies in force')).toContain(
        `at ${T} (org_policy_history: every version with valid_from / valid_to): 1 of the report's orgs; org 21 DOT FMCSA (import, in force from 2025-07-01T02:00:00.000Z)`,
      );
      // The present reads the new policy, and names it.
      const now = await runReport(compliance, m, params('2025-07-01', { year: 2025 }));
      expect(at(now.detail, 21, 6)).toMatchObject({ drugRate: 25, drugAnnualTarget: 3 });
      expect(aboutValue(now, 'Policies in force')).toContain(
        'org 21 DOT FAA (import, in force from 2025-07-03T00:00:00.000Z)',
      );
    });

    it('a policy scores the months from its effective date; earlier months keep the version effective for them, or the defaults (assumed)', async () => {
      const m = await mirror();
      await orgMonths(m, 1029, 2026, range(1, 11, { pool: 10, drugPicked: 1, drugCompleted: 1 }));
      // Imported in February, effective from 1 January: FAA (25%) for the whole year.
      await policy(m, [
        {
          org_id: 1029,
          agency: 'FAA',
          dot_registration_number: '1029',
          updated_at: '2026-02-01T00:00:00.000Z',
          effective_from: '2026-01-01',
        },
      ]);
      const asked = params('2026-12-01', {}, { mirrorAsOf: '2026-11-28T00:00:00.000Z' });
      const before = await runReport(compliance, m, asked);
      expect(at(before.detail, 1029, 11)).toMatchObject({ drugRate: 25, drugAnnualTarget: 3 });
      // Imported on 28 November as FMCSA (50%), effective from 1 November only.
      await policy(m, [
        {
          org_id: 1029,
          agency: 'FMCSA',
          dot_registration_number: '1029',
          updated_at: '2026-11-28T12:00:00.000Z',
          effective_from: '2026-11-01',
        },
      ]);
      const now = await runReport(compliance, m, params('2026-12-01'));
      // January to October stay FAA 25%, November is FMCSA 50%: Σ rate × pool = 25 + 5, and the
      // projected December at November's rate 5: ceil(35 / 12) = 3; expected to date 30 / 12.
      expect(at(now.detail, 1029, 10)).toMatchObject({ drugRate: 25 });
      expect(at(now.detail, 1029, 11)).toMatchObject({
        drugRate: 50,
        drugAnnualTarget: 3,
        drugStatus: 'MET',
      });
      expect(at(now.detail, 1029, 11).drugExpectedToDate as number).toBeCloseTo(2.5, 12);
      const ytd = (await now.summary('YTD by org')).find((r) => r.orgId === 1029);
      expect(ytd?.rateSource).toBe('agency:FMCSA; months 1-10 agency:FAA');
      // The report as of an instant before the second import is unchanged.
      expect((await runReport(compliance, m, asked)).detail).toEqual(before.detail);

      // A policy effective from July only: January to June on the default rates, assumed and flagged.
      await orgMonths(m, 1030, 2026, range(1, 11, { pool: 10, drugPicked: 1, drugCompleted: 1 }));
      await policy(m, [
        {
          org_id: 1030,
          agency: 'FAA',
          dot_registration_number: '1030',
          updated_at: '2026-11-28T12:00:00.000Z',
          effective_from: '2026-07-01',
        },
      ]);
      const later = await runReport(compliance, m, params('2026-12-01'));
      expect(at(later.detail, 1030, 6)).toMatchObject({ drugRate: 50 });
      expect(String(at(later.detail, 1030, 6).flags)).toContain('NO_POLICY');
      // Σ 50% × 10 × 6 + 25% × 10 × 5 + 25% × 10 × 1 (December projected) = 30 + 12.5 + 2.5: 4.
      expect(at(later.detail, 1030, 11)).toMatchObject({
        drugRate: 25,
        drugAnnualTarget: 4,
        drugStatus: 'MET (assumed rate)',
      });
      expect(String(at(later.detail, 1030, 11).rateSource)).toBe('agency:FAA; months 1-6 default:FMCSA');
    });

    it('a DATA_CHECK month counts at most its picks toward completed: 2 results of 1 pick read 1 of 2, not MET', async () => {
      const m = await mirror();
      // Pool 4 all year at 50%: a target of 2. March reports 2 results of 1 pick.
      await orgMonths(m, 9, 2025, {
        ...range(1, 12, { pool: 4 }),
        3: { pool: 4, drugPicked: 1, drugCompleted: 2 },
      });
      const ran = await runReport(compliance, m, params('2026-01-15', { year: 2025 }));
      const march = at(ran.detail, 9, 3);
      expect(march).toMatchObject({ drugPicked: 1, drugCompleted: 1, drugCompletedYtd: 1 });
      expect(String(march.flags)).toContain('DATA_CHECK');
      const dec = at(ran.detail, 9, 12);
      expect(dec).toMatchObject({
        drugAnnualTarget: 2,
        drugCompletedYtd: 1,
        drugStatus: 'NOT_MET (assumed rate)',
      });
      expect(ran.warnings.join('\n')).toContain(
        '2025-03: drug results 2 exceed picks 1 (DATA_CHECK): 1 counted as completed',
      );
    });

    it('takes rates from the policy, its agency table, or the defaults, and says which', async () => {
      const m = await mirror();
      await policy(m, [
        { org_id: 11, agency: 'FAA' },
        { org_id: 12, agency: 'USCG', source: 'writeback' },
        { org_id: 13, rp_min_drug: 30, rp_min_alc: null },
        { org_id: 14, agency: 'PHMSA', rp_min_drug: 60 },
      ]);
      for (const org of [10, 11, 12, 13, 14]) await orgMonths(m, org, 2025, range(1, 12, { pool: 20 }));
      const ran = await runReport(compliance, m, params('2026-01-31', { year: 2025 }));
      const dec = (org: number) => at(ran.detail, org, 12);
      expect(dec(10)).toMatchObject({
        rateSource: 'default:FMCSA',
        drugRate: 50,
        alcoholRate: 10,
        program: 'UNKNOWN',
      });
      expect(dec(11)).toMatchObject({
        rateSource: 'agency:FAA',
        drugRate: 25,
        alcoholRate: 10,
        drugAnnualTarget: 5,
      });
      expect(dec(12)).toMatchObject({
        rateSource: 'agency:USCG',
        drugRate: 50,
        alcoholRate: null,
        alcoholStatus: 'N/A',
      });
      expect(dec(13)).toMatchObject({ rateSource: 'policy:import', drugRate: 30, alcoholStatus: 'N/A' });
      expect(dec(14)).toMatchObject({
        rateSource: 'policy:import+agency:PHMSA',
        drugRate: 60,
        alcoholStatus: 'N/A',
      });
      const rates = aboutValue(ran, 'Rates') ?? '';
      expect(rates).toContain('default:FMCSA: 1 org');
      expect(rates).toContain('agency:FAA: 1 org');
      const other = await runReport(
        compliance,
        m,
        params('2026-01-31', { year: 2025, defaultRates: { agency: 'FAA' } }, { orgIds: [10] }),
      );
      expect(at(other.detail, 10, 12)).toMatchObject({ rateSource: 'default:FAA', drugRate: 25 });
      const none = await runReport(
        compliance,
        m,
        params(
          '2026-01-31',
          { year: 2025, defaultRates: { agency: 'ACME', drug: 40, alcohol: null } },
          { orgIds: [10] },
        ),
      );
      expect(at(none.detail, 10, 12)).toMatchObject({
        rateSource: 'default:ACME',
        drugRate: 40,
        alcoholStatus: 'N/A',
      });
    });

    it('a policy without any rate reports NO_RATE', async () => {
      const m = await mirror();
      await policy(m, [{ org_id: 15, program: 'NON_DOT' }]);
      await orgMonths(m, 15, 2025, range(1, 3, { pool: 20, drugPicked: 1, drugCompleted: 1 }));
      const ran = await runReport(compliance, m, params('2025-03-31'));
      expect(at(ran.detail, 15, 3)).toMatchObject({
        drugStatus: 'NO_RATE',
        drugAnnualTarget: null,
        drugCompletedYtd: 3,
        alcoholStatus: 'N/A',
        flags: 'NO_RATE',
      });
    });

    it('names orgs by the latest c_org and passes formula-like names through untouched', async () => {
      const m = await mirror();
      const evil = '=HYPERLINK("http://x","y")';
      await upsert(m, 'OrderItem', [{ id: 1, OrgId: 20, c_org: 'Old Name' }], '2025-01-01T00:00:00.000Z');
      await named(m, 20, evil, '2025-02-01T00:00:00.000Z');
      await named(m, 21, 'Zulu');
      await named(m, 22, 'alpha');
      for (const org of [20, 21, 22]) await orgMonths(m, org, 2025, { 1: { pool: 1 } });
      const ran = await runReport(compliance, m, params('2025-01-31'));
      expect(ran.detail.map((r) => r.org)).toEqual([evil, 'alpha', 'Zulu']);
    });

    it('rejects bad options with REPORT_PARAM_INVALID naming the option', async () => {
      const m = await mirror();
      const bad = async (options: Record<string, unknown>, more = {}) => {
        try {
          await compliance.run({ db: m.db, params: params('2025-06-30', options, more) });
        } catch (err) {
          return err;
        }
        throw new Error('no error');
      };
      const e = await bad({ rollupMode: 'bogus' });
      expect(e).toBeInstanceOf(ReportParamError);
      expect(e).toMatchObject({ code: 'REPORT_PARAM_INVALID', exitCode: 2, param: 'options.rollupMode' });
      expect((e as Error).message).toBe(
        'compliance: options.rollupMode: expected one of sumOfChildren, combinedPool, got `"bogus"`',
      );
      expect(await bad({ throughMonth: 13 })).toMatchObject({ param: 'options.throughMonth' });
      expect(await bad({ defaultRates: { agency: 'ACME' } })).toMatchObject({
        param: 'options.defaultRates.drug',
      });
      // The as-of arrives resolved (typed): a date or an instant that does not read is refused where
      // the command starts, naming its flag.
      expect(() => resolveAsOf({ date: '30/06/2025' }, 'UTC')).toThrow(
        /^--as-of: '30\/06\/2025' is not a date/,
      );
      expect(() => resolveAsOf({ instant: '2025-06-30' }, 'UTC')).toThrow(
        /^--as-of-time '2025-06-30': expected/,
      );
      // Strings from a command line are read as numbers and booleans.
      const ran = await runReport(
        compliance,
        m,
        params('2025-06-30', { throughMonth: '3', includeChildren: 'true' }),
      );
      expect(aboutValue(ran, 'Year and months')).toContain('month 3');
    });

    it('says on the About sheet where its inputs came from', async () => {
      const m = await mirror();
      await syncState(m, 'orgmonth', '2025-07-01T02:00:00.000Z');
      await orgMonths(m, 1, 2025, { 1: { pool: 3 } });
      const ran = await runReport(compliance, m, params('2025-01-31', { colour: 'red' }));
      expect(aboutValue(ran, 'Last sync of orgmonth')).toBe(
        '2025-07-01T02:00:00.000Z (last full pass: 2025-07-01T02:00:00.000Z)',
      );
      expect(aboutValue(ran, 'Last sync of invoice')).toBe('never (last full pass: never)');
      // Read from the present (no mirrorAsOf): said so, and that policies are always the present.
      expect(aboutValue(ran, 'Mirror read')).toContain('The present: OrgMonth rows as last synced');
      expect(aboutValue(ran, 'Mirror read')).toContain(
        'Policies as in force at that instant (Policies in force)',
      );
      expect(aboutValue(ran, 'Detail rows')).toBe('1');
      expect(ran.warnings).toContain('Option colour is not an option of any report: ignored');
    });
  });

  describe('compliance: what an auditor asks', () => {
    it('sumOfChildren: the rollup is the worst member status and names the failing member', async () => {
      // The combined-pool example with Y completing 2 of its 3: summed 17 of 18 would hide it.
      const m = await mirror();
      await named(m, 200, 'Consortium');
      await named(m, 201, 'X Trucking');
      await named(m, 202, 'Y Rail');
      await policy(m, [
        { org_id: 200, agency: 'FMCSA', dot_registration_number: 'US1' },
        { org_id: 201, rp_min_drug: 50, rp_min_alc: 10, parent_org_id: 200, dot_registration_number: 'US2' },
        {
          org_id: 202,
          agency: 'FRA',
          rp_min_drug: 25,
          rp_min_alc: 10,
          parent_org_id: 200,
          dot_registration_number: 'US3',
        },
      ]);
      await orgMonths(m, 201, 2025, {
        ...range(1, 12, { pool: 30, drugPicked: 1, drugCompleted: 1, alcoholPicked: 1, alcoholCompleted: 1 }),
        12: { pool: 30, drugPicked: 4, drugCompleted: 4 },
      });
      await orgMonths(m, 202, 2025, {
        ...range(1, 12, { pool: 10, alcoholPicked: 1, alcoholCompleted: 1 }),
        12: { pool: 10, drugPicked: 2, drugCompleted: 2 },
      });
      const ran = await runReport(compliance, m, params('2026-01-15', { year: 2025 }));
      expect(at(ran.detail, 202, 12)).toMatchObject({ drugAnnualTarget: 3, drugStatus: 'NOT_MET' });
      const dec = at(await ran.summary('Rollups'), 200, 12);
      expect(dec).toMatchObject({
        rollupMode: 'sumOfChildren',
        drugAnnualTarget: 18,
        drugCompletedYtd: 17,
        drugStatus: 'NOT_MET',
        drugMembersBelow: 'Y Rail (202) NOT_MET 2/3',
        alcoholStatus: 'MET',
        alcoholMembersBelow: null,
      });
      const combined = await runReport(
        compliance,
        m,
        params('2026-01-15', { year: 2025, rollupMode: 'combinedPool' }),
      );
      expect(at(await combined.summary('Rollups'), 200, 12)).toMatchObject({
        drugAnnualTarget: 20,
        drugStatus: 'NOT_MET',
        // A combined pool still names its weakest members.
        drugMembersBelow: 'Y Rail (202) NOT_MET 2/3',
      });
      // A member with a pool of 0 all year is listed with N/A, not dropped.
      await named(m, 203, 'Z Idle');
      await policy(m, [{ org_id: 203, agency: 'FMCSA', parent_org_id: 200, dot_registration_number: 'US4' }]);
      await orgMonths(m, 203, 2025, range(1, 12, { pool: 0 }));
      for (const rollupMode of ['sumOfChildren', 'combinedPool']) {
        const idle = await runReport(compliance, m, params('2026-01-15', { year: 2025, rollupMode }));
        const row = at(await idle.summary('Rollups'), 200, 12);
        expect(row.members, rollupMode).toBe('201;202;203');
        expect(row.drugMembersBelow, rollupMode).toBe('Y Rail (202) NOT_MET 2/3; Z Idle (203) N/A (pool 0)');
      }
    });

    it('DOT means a registration number; no agency takes the default; a rate below the minimum is raised', async () => {
      const m = await mirror();
      await policy(m, [
        // Registered, no agency: the default agency (FMCSA) and its rates, not NO_RATE.
        { org_id: 301, program: 'NON_DOT', dot_registration_number: 'US301' },
        // Registered FMCSA carrier with a policy drug rate of 25: raised to 50, flagged.
        { org_id: 302, agency: 'FMCSA', rp_min_drug: 25, rp_min_alc: 10, dot_registration_number: 'US302' },
        // A home-health org: no registration, its own rates.
        { org_id: 303, program: 'NON_DOT', rp_min_drug: 10, rp_min_alc: 0 },
      ]);
      for (const org of [300, 301, 302, 303])
        await orgMonths(m, org, 2025, range(1, 12, { pool: 20, drugPicked: 1, drugCompleted: 1 }));
      const ran = await runReport(compliance, m, params('2026-01-31', { year: 2025 }));
      const dec = (org: number) => at(ran.detail, org, 12);
      expect(dec(300)).toMatchObject({ program: 'UNKNOWN', flags: 'NO_POLICY', drugRate: 50 });
      expect(dec(301)).toMatchObject({
        program: 'DOT',
        agency: 'FMCSA',
        drugRate: 50,
        alcoholRate: 10,
        drugAnnualTarget: 10,
        rateSource: 'default-agency:FMCSA+agency:FMCSA',
      });
      expect(dec(302)).toMatchObject({
        program: 'DOT',
        drugRate: 50,
        drugAnnualTarget: 10,
        flags: 'BELOW_AGENCY_MIN',
      });
      expect(ran.warnings.some((w) => w.includes('drug rate 25% is below the FMCSA minimum 50%'))).toBe(true);
      expect(dec(303)).toMatchObject({ program: 'NON_DOT', drugRate: 10, alcoholStatus: 'N/A' });
      // Totals never mix programs; the UNKNOWN org stays out of the DOT total.
      const ytd = await ran.summary('YTD by org');
      const totals = ytd.filter((r) => typeof r.org === 'string' && r.org.startsWith('Total'));
      expect(totals.map((r) => [r.org, r.exposure, r.drugAnnualTarget, r.drugPickedYtd])).toEqual([
        ['Total DOT', 480, 20, 24],
        ['Total non-DOT', 240, 2, 12],
        ['Total without policy', 240, 10, 12],
      ]);
      // MIS random testing per DOT employer (a DOT MIS is per employer), failing first (302 on
      // its own rate, then 301 on an assumed agency), then the agency's sum named for what it is.
      const mis = await ran.summary('MIS random by employer');
      expect(mis.map((r) => [r.orgId ?? null, r.drugRequired, r.drugCompleted, r.alcoholStatus])).toEqual([
        [302, 10, 12, 'NOT_MET'],
        [301, 10, 12, 'NOT_MET (assumed rate)'],
        [null, 20, 24, undefined],
      ]);
      expect(mis[2]).toMatchObject({
        agency: 'FMCSA',
        averagePool: 40,
        drugRateAchieved: 0.6,
        alcoholRequired: 4,
        alcoholCompleted: 0,
      });
      expect(String(mis[2]?.org)).toMatch(/^Total FMCSA: sum of 2 employers \(information only/);
      expect(String(mis[2]?.failingEmployers)).toMatch(/^2 of 2 failing: .*\(302\).*\(301\)/);
    });

    it('MIS mid-year: the average of covered employees and the rate achieved leave projected months out; each rate named', async () => {
      const m = await mirror();
      await policy(m, [{ org_id: 501, agency: 'FMCSA', dot_registration_number: '501' }]);
      await orgMonths(m, 501, 2025, {
        ...range(1, 3, { pool: 10 }),
        ...range(4, 5, { pool: 20 }),
        2: { pool: 10, drugPicked: 3, drugCompleted: 3 },
      });
      const ran = await runReport(compliance, m, params('2025-06-15'));
      const [mis] = await ran.summary('MIS random by employer');
      // Months 1 to 5 passed: (3 × 10 + 2 × 20) / 5 = 14, not the projected (70 + 7 × 20) / 12 = 17.5.
      expect(mis).toMatchObject({
        orgId: 501,
        throughMonth: 5,
        averagePool: 14,
        drugRequired: 9,
        drugCompleted: 3,
      });
      expect(mis?.drugRateAchieved).toBeCloseTo(3 / 14, 10);
      const ytd = (await ran.summary('YTD by org')).find((r) => r.orgId === 501);
      expect(ytd).toMatchObject({ avgPoolYtd: 14, projectedAvg: 17.5 });
      expect(ytd?.drugAnnualizedRate).toBeCloseTo((3 * 12) / 70, 10);
      const sheet = ran.summaries.find((x) => x.name === 'MIS random by employer');
      const title = (key: string) => sheet?.columns.find((c) => c.key === key)?.title;
      expect(title('averagePool')).toBe(
        'Average covered employees (pool) of the months passed (none projected)',
      );
      expect(title('drugRateAchieved')).toBe(
        'Drug rate achieved to date (completed ÷ average pool of the months passed)',
      );
      const ytdSheet = ran.summaries.find((x) => x.name === 'YTD by org');
      expect(ytdSheet?.columns.find((c) => c.key === 'drugAnnualizedRate')?.title).toBe(
        "Drug annualized rate (completed × 12 ÷ exposure: the year's rate at this pace)",
      );
    });

    it('YTD totals leave out the picks of orgs without a target', async () => {
      const m = await mirror();
      await policy(m, [{ org_id: 401, program: 'NON_DOT' }]);
      await policy(m, [{ org_id: 402, program: 'NON_DOT', rp_min_drug: 10, rp_min_alc: 5 }]);
      await orgMonths(m, 401, 2025, range(1, 12, { pool: 10, drugPicked: 3, drugCompleted: 3 }));
      await orgMonths(m, 402, 2025, range(1, 12, { pool: 10, drugPicked: 1, drugCompleted: 1 }));
      const ran = await runReport(compliance, m, params('2026-01-31', { year: 2025 }));
      expect(at(ran.detail, 401, 12)).toMatchObject({ drugStatus: 'NO_RATE', drugPickedYtd: 36 });
      const total = (await ran.summary('YTD by org')).find((r) => r.org === 'Total non-DOT');
      expect(total).toMatchObject({ drugPickedYtd: 12, drugCompletedYtd: 12, drugAnnualTarget: 1 });
    });

    it('AT_RISK: on pace to date, but the remaining tests exceed the months left at its own pace', async () => {
      const m = await mirror();
      await policy(m, [{ org_id: 501, agency: 'FMCSA', dot_registration_number: 'US501' }]);
      // Pool 40 from September (joined late): m = 9, exposure 40, target ceil(0.5 × 160/12) = 7...
      await orgMonths(m, 501, 2025, {
        9: { pool: 40, drugPicked: 2, drugCompleted: 2 },
      });
      const ran = await runReport(compliance, m, params('2025-09-30'));
      // expected 0.5 × 40 / 12 = 1.67 (floor 1), completed 2: on pace to date; target
      // ceil(0.5 × (40 + 40 × 3) / 12) = 7, remaining 5 > 3 months × ceil(2 / 9) = 3: AT_RISK.
      expect(at(ran.detail, 501, 9)).toMatchObject({
        drugAnnualTarget: 7,
        drugCompletedYtd: 2,
        drugStatus: 'AT_RISK',
      });
    });

    it('an unreadable count or pool never disappears silently: it is listed in the warnings', async () => {
      const m = await mirror();
      await upsert(m, 'OrgMonth', [
        { id: 601, OrgId: 60, label: '2025-01', countEligibleRandomPool: 10, countPickedDrug: 'lots' },
        { id: 602, OrgId: 60, label: '2025-02', countEligibleRandomPool: 'many' },
      ]);
      const ran = await runReport(compliance, m, params('2025-02-28'));
      expect(at(ran.detail, 60, 1)).toMatchObject({ drugPicked: 0 });
      expect(at(ran.detail, 60, 2)).toMatchObject({ pool: 10, flags: 'DATA_GAP;NO_POLICY' });
      expect(ran.warnings).toEqual(
        expect.arrayContaining([
          'OrgMonth 601 of org (60): countPickedDrug "lots" is not a number; read as 0',
          'OrgMonth 602 of org (60): pool "many" is not a number; read as missing',
        ]),
      );
    });

    it('says when there is no data for the as-of', async () => {
      const m = await mirror();
      await orgMonths(m, 70, 2025, range(1, 3, { pool: 5 }));
      const ran = await runReport(compliance, m, params('2024-06-30'));
      expect(ran.detail).toHaveLength(0);
      expect(ran.warnings).toContain('No data for this as-of: no OrgMonth row of 2024 through month 6');
    });
  });
  describe('catch-up: the worked examples through the report', () => {
    const catchUp = reportNamed('catch-up');
    const line = (rows: Row[], orgId: number, testType: string) => {
      const r = rows.find((x) => x.orgId === orgId && x.testType === testType);
      if (r === undefined) throw new Error(`no plan line for org ${orgId} ${testType}`);
      return r;
    };
    const level = (rows: Row[]) => {
      return catchUpHtml().build({ ...planFacts(rows), plan: rows });
    };
    /** A DOT policy on FAA rates (25 / 10), so the verdicts are measured, not assumed. */
    const faa = (m: Mirror, orgId: number) =>
      policy(m, [{ org_id: orgId, agency: 'FAA', dot_registration_number: `D${orgId}` }]);

    it('joined in June with 5 employees, 1 drug test needed: NEEDS_MORE 1 beside the regular draw, compliance ON_TRACK', async () => {
      const m = await mirror();
      await named(m, 1092, 'Peña Rail Services');
      await faa(m, 1092);
      await orgMonths(m, 1092, 2026, { 6: { pool: 5 } });
      const ran = await runReport(catchUp, m, params('2026-07-01'));
      const drug = line(ran.detail, 1092, 'drug');
      expect(drug).toMatchObject({
        verdict: 'NEEDS_MORE',
        throughMonth: 6,
        // ceil(25% × (5 + 5 × 6) / 12) = 1.
        annualTarget: 1,
        needed: 1,
        perPeriod: 1,
        periodsLeft: 6,
        periodsDone: 1,
        firstMonth: 6,
        currentPool: 5,
        reason: '1 a month for the 6 months left (picks so far 0 a month)',
      });
      expect(drug.regularPerPeriod as number).toBeCloseTo((0.25 * 5) / 12, 12);
      const c = await runReport(compliance, m, params('2026-07-01'));
      expect(at(c.detail, 1092, 6).drugStatus).toBe('ON_TRACK');
    });

    it('quarterly selection through October: Q4 is left, 2 needed from a pool of 10 is "2 more this quarter"', async () => {
      const m = await mirror();
      await faa(m, 2001);
      // Pool 10 Jan to Oct, one drug test a quarter (no quarter without a selection).
      await orgMonths(m, 2001, 2026, {
        ...range(1, 10, { pool: 10 }),
        2: { pool: 10, drugPicked: 1, drugCompleted: 1 },
        5: { pool: 10, drugPicked: 1, drugCompleted: 1, alcoholPicked: 1, alcoholCompleted: 1 },
        8: { pool: 10, drugPicked: 1, drugCompleted: 1 },
      });
      const options = { selectionPeriod: 'quarterly', defaultRates: { agency: 'FMCSA' } };
      const ran = await runReport(catchUp, m, params('2026-11-01', options));
      // FAA 25%: target ceil(25% × (100 + 10 × 2) / 12) = 3; with 50% (a policy rate) 5.
      const drug = line(ran.detail, 2001, 'drug');
      expect(drug).toMatchObject({ throughMonth: 10, annualTarget: 3, needed: 0, verdict: 'ON_PACE' });
      await policy(m, [{ org_id: 2001, agency: 'FAA', dot_registration_number: 'D2001', rp_min_drug: 50 }]);
      const again = line((await runReport(catchUp, m, params('2026-11-01', options))).detail, 2001, 'drug');
      expect(again).toMatchObject({
        annualTarget: 5,
        needed: 2,
        perPeriod: 2,
        periodsLeft: 1,
        periodsDone: 3,
        verdict: 'NEEDS_MORE',
      });
      expect(String(again.reason)).toMatch(/^2 more this quarter/);
      expect(again.regularPerPeriod as number).toBeCloseTo(1.25, 12);
    });

    it('a closed year reads MET / NOT_MET, never ON_PACE or CANNOT_MEET', async () => {
      const m = await mirror();
      await faa(m, 3001);
      await faa(m, 3002);
      await orgMonths(
        m,
        3001,
        2026,
        range(1, 12, { pool: 10, drugPicked: 1, drugCompleted: 1, alcoholPicked: 1, alcoholCompleted: 1 }),
      );
      await orgMonths(m, 3002, 2026, {
        ...range(1, 12, { pool: 10 }),
        ...Object.fromEntries(
          [2, 5, 8, 11].map((i) => [i, { pool: 10, drugPicked: 1, drugCompleted: i === 11 ? 0 : 1 }]),
        ),
      });
      const ran = await runReport(catchUp, m, params('2027-01-15'));
      expect(line(ran.detail, 3001, 'drug')).toMatchObject({
        throughMonth: 12,
        verdict: 'MET',
        periodsLeft: 0,
      });
      // 3 of 3 drug completed (the fourth pick never was), alcohol 0 of 1.
      expect(line(ran.detail, 3002, 'drug')).toMatchObject({
        annualTarget: 3,
        completedYtd: 3,
        verdict: 'MET',
      });
      expect(line(ran.detail, 3002, 'alcohol')).toMatchObject({
        annualTarget: 1,
        completedYtd: 0,
        verdict: 'NOT_MET',
        needed: 1,
        perPeriod: null,
      });
      // A NOT_MET on the employer's own rate needs action.
      expect(level(ran.detail).status).toBe('bad');
      expect(ran.detail.map((r) => r.verdict)).not.toContain('ON_PACE');
    });

    it('a month with no OrgMonth row and a quarter with no selection: NEEDS_REVIEW naming them, never OK', async () => {
      const m = await mirror();
      await faa(m, 1255);
      // On pace (a drug test every month) but October is missing and Q3 had no selection.
      await orgMonths(m, 1255, 2026, {
        ...range(1, 6, { pool: 8, drugPicked: 1, drugCompleted: 1, alcoholPicked: 1, alcoholCompleted: 1 }),
        ...range(7, 9, { pool: 8 }),
        11: { pool: 8, drugPicked: 1, drugCompleted: 1 },
      });
      const ran = await runReport(catchUp, m, params('2026-12-01'));
      const drug = line(ran.detail, 1255, 'drug');
      expect(drug.verdict).toBe('NEEDS_REVIEW');
      expect(String(drug.problems)).toContain('no OrgMonth row (or no pool) for month 10');
      expect(String(drug.problems)).toContain('no selection in Q3');
      expect(String(drug.reason)).toContain('but the data needs review');
      const summary = level(ran.detail);
      expect(summary.status).not.toBe('ok');
      expect(summary.problems?.join('\n')).toContain('needs review');
      // The compliance report names the same problems and is not OK either.
      const c = await runReport(compliance, m, params('2026-12-01'));
      const ytd = (await c.summary('YTD by org')).find((r) => r.orgId === 1255);
      expect(ytd?.problems).toBe(drug.problems);
      const b = complianceHtml();
      b.onRow(at(c.detail, 1255, 11));
      const product = {
        ...complianceFacts([]),
        employers: ytd === undefined ? [] : [ytd],
        plan: [],
        trend: [],
      };
      expect(b.build(product).status).not.toBe('ok');
    });
  });
});
