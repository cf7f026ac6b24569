import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catchUpHtml } from '../../src/reports/catch-up/html.js';
import { Collector } from '../../src/reports/compliance/collector.js';
import { problemRows } from '../../src/reports/compliance/evidence.js';
import { complianceFacts, planFacts } from '../../src/reports/compliance/figures.js';
import { complianceHtml } from '../../src/reports/compliance/html.js';
import { rateUnits } from '../../src/reports/compliance/math.js';
import type { MonthInput, OrgRates } from '../../src/reports/compliance/model.js';
import { computeOrg } from '../../src/reports/compliance/org-calc.js';
import { planRows, verdictOf } from '../../src/reports/compliance/plan.js';
import { namedProblems } from '../../src/reports/compliance/problems.js';
import { ytdRow } from '../../src/reports/compliance/rows.js';

/**
 * No verdict OK while a problem is named for an employer: generated employers, each with one kind
 * of problem put in (or none), run through the compliance figures, the Problems sheet, the
 * catch-up plan and both reports' verdicts (the builders the pages and the dashboard use).
 */
const YEAR = 2026;
const own: OrgRates = {
  program: 'DOT',
  agency: 'FMCSA',
  drug: rateUnits(50),
  alcohol: rateUnits(10),
  source: 'policy:import',
  assumed: false,
  flags: [],
};

type Kind =
  | 'none'
  | 'DATA_GAP'
  | 'DATA_CHECK'
  | 'NO_SELECTION'
  | 'UNREADABLE_LABEL'
  | 'PICKS_NOT_COMPLETED'
  | 'NO_COVERED_LIST';
const problemKinds: Kind[] = [
  'DATA_GAP',
  'DATA_CHECK',
  'NO_SELECTION',
  'UNREADABLE_LABEL',
  'PICKS_NOT_COMPLETED',
  'NO_COVERED_LIST',
];

const month = (i: number, pool: number, picks: number): MonthInput => ({
  id: i,
  label: `${YEAR}-${String(i).padStart(2, '0')}`,
  pool,
  eligibleAll: pool,
  drugPicked: picks,
  drugCompleted: picks,
  alcoholPicked: 0,
  alcoholCompleted: 0,
  randomPickDocument: 'pick.pdf',
  coveredEmployeeDocument: 'covered.pdf',
  misReportDocument: null,
});

/** An employer: through-month, joined month, pool and picks a month; clean (every month picked). */
const employer = fc
  .record({
    m: fc.integer({ min: 4, max: 12 }),
    joined: fc.integer({ min: 1, max: 3 }),
    pool: fc.integer({ min: 2, max: 40 }),
    picks: fc.integer({ min: 1, max: 4 }),
    at: fc.nat(),
  })
  .map((e) => ({ ...e, picks: Math.min(e.picks, e.pool) }));

/** The employer's OrgMonth rows with the problem of a kind put in. */
function rowsWith(e: { m: number; joined: number; pool: number; picks: number; at: number }, kind: Kind) {
  const rows = new Map<number, MonthInput>();
  for (let i = e.joined; i <= e.m; i++) rows.set(i, month(i, e.pool, e.picks));
  const after = e.joined + 1 + (e.at % Math.max(1, e.m - e.joined)); // a month after the first row
  const target = Math.min(after, e.m);
  const row = rows.get(target) as MonthInput;
  switch (kind) {
    case 'DATA_GAP':
      if (target > e.joined) rows.delete(target);
      else rows.set(target, { ...row, pool: null });
      break;
    case 'DATA_CHECK':
      rows.set(target, { ...row, drugCompleted: row.drugPicked + 1 });
      break;
    case 'NO_SELECTION': {
      // The first quarter that ended with a pool: no pick in any of its months.
      const q = Math.ceil(e.joined / 3);
      for (let i = 3 * q - 2; i <= 3 * q; i++) {
        const r = rows.get(i);
        if (r !== undefined) rows.set(i, { ...r, drugPicked: 0, drugCompleted: 0 });
      }
      break;
    }
    case 'PICKS_NOT_COMPLETED': {
      // A month before the through-month (m > joined): its picks never completed.
      const before = Math.max(e.joined, target - 1);
      const r = rows.get(before) as MonthInput;
      rows.set(before, { ...r, drugCompleted: r.drugPicked - 1 });
      break;
    }
    case 'NO_COVERED_LIST':
      rows.set(target, { ...row, coveredEmployeeDocument: null });
      break;
    default:
      break;
  }
  return rows;
}

function run(e: Parameters<typeof rowsWith>[0], kind: Kind) {
  const calc = computeOrg(1001, 'Generated Co', rowsWith(e, kind), e.m, YEAR, own, new Collector());
  if (kind === 'UNREADABLE_LABEL') calc.unreadableLabels = 1 + (e.at % 3);
  const ytd = ytdRow(calc, YEAR);
  const last = { ...calc, months: calc.months.slice(-1), problems: namedProblems(calc) };
  const plan = planRows([last], { year: YEAR, selection: 'monthly', closed: false });
  const compliance = complianceHtml();
  // Its product: the employer's YTD row and the plan of the same figures (no sheet by name).
  const product = { ...complianceFacts([ytd]), employers: [ytd], plan, trend: [] };
  const complianceLevel = compliance.build(product).status;
  const catchUpLevel = catchUpHtml().build({ ...planFacts(plan), plan }).status;
  return { calc, ytd, plan, complianceLevel, catchUpLevel };
}

describe('no verdict OK while a problem is named for the employer', () => {
  it('each kind of problem is named, on the Problems sheet too, and neither report reads OK', () => {
    fc.assert(
      fc.property(employer, fc.constantFrom(...problemKinds), (e, kind) => {
        const { calc, ytd, plan, complianceLevel, catchUpLevel } = run(e, kind);
        const named = namedProblems(calc);
        expect(named.map((p) => p.code)).toContain(kind);
        expect(ytd.problems).toBeTypeOf('string');
        expect(plan.every((r) => r.problems === ytd.problems)).toBe(true);
        // The Problems sheet names the employer on a line with a count.
        const lines = problemRows([ytd], YEAR, e.m).filter((r) => Number(r.count) > 0);
        expect(lines.some((r) => String(r.orgs).includes('Generated Co (1001)'))).toBe(true);
        expect(complianceLevel).not.toBe('ok');
        expect(catchUpLevel).not.toBe('ok');
        // A data problem: no plan line is on pace or met.
        if (named.some((p) => p.review))
          for (const r of plan) expect(['ON_PACE', 'MET']).not.toContain(verdictOf(r.verdict).verdict);
      }),
      { numRuns: 300 },
    );
  });

  it('a clean employer names nothing, and its plan lines say why they are what they are', () => {
    fc.assert(
      fc.property(employer, (e) => {
        const { calc, ytd, plan } = run(e, 'none');
        expect(namedProblems(calc)).toEqual([]);
        expect(ytd.problems).toBeNull();
        for (const r of plan) expect(r.problems).toBeNull();
        for (const r of plan) expect(verdictOf(r.verdict).verdict).not.toBe('NEEDS_REVIEW');
      }),
      { numRuns: 200 },
    );
  });
});
