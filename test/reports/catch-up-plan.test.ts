import { describe, expect, it } from 'vitest';
import { type Figure, figureHtml } from '../../src/render/html/summary.js';
import { catchUpHtml } from '../../src/reports/catch-up/html.js';
import { periodsOf, planOf, sortByUrgency } from '../../src/reports/catch-up/index.js';
import { planFacts } from '../../src/reports/compliance/figures.js';

/**
 * The catch-up plan's arithmetic (docs/reports.md), on its own: the worked example, each verdict's
 * rule at its edge, and the order of urgency.
 */
describe('catch-up plan: the pure computation', () => {
  it('target 14, 6 completed through September, 1 pending, quarterly, pool 5 now: CANNOT_MEET, 7 in the one quarter left', () => {
    // Pool 5 in each of nine months: exposure 45.
    const p = planOf({
      month: 9,
      selection: 'quarterly',
      target: 14,
      completedYtd: 6,
      pickedYtd: 7,
      exposure: 45,
      lastPool: 5,
    });
    expect(p.pending).toBe(1);
    expect(p.needed).toBe(7);
    expect(p.periodsLeft).toBe(1);
    expect(p.perPeriod).toBe(7);
    expect(p.avgPool).toBe(5);
    expect(p.verdict).toBe('CANNOT_MEET');
    expect(p.reason).toBe('7 a quarter exceeds the pool now (5)');
    // The same with a pool of 7: 7 a quarter fits the pool, the pace does not reach 14.
    const q = planOf({
      month: 9,
      selection: 'quarterly',
      target: 14,
      completedYtd: 6,
      pickedYtd: 7,
      exposure: 63,
      lastPool: 7,
    });
    expect(q.verdict).toBe('NEEDS_MORE');
    expect(q.perPeriod).toBe(7);
    // Pace: 7 picks in 3 quarters, 28/3 at the year end, over the year's average pool 7.
    expect(q.paceTests).toBeCloseTo(28 / 3, 10);
    expect(q.paceRate).toBeCloseTo(28 / 3 / 7, 10);
  });

  it('periods: done counts the periods ended since joining; left, those not ended (the quarter under way among them)', () => {
    expect(periodsOf(5, 'monthly')).toEqual({ done: 5, left: 7 });
    expect(periodsOf(8, 'quarterly')).toEqual({ done: 2, left: 2 });
    expect(periodsOf(9, 'quarterly')).toEqual({ done: 3, left: 1 });
    // Through October: Q4 is under way with two months to run, a period left.
    expect(periodsOf(10, 'quarterly')).toEqual({ done: 3, left: 1 });
    expect(periodsOf(11, 'quarterly')).toEqual({ done: 3, left: 1 });
    expect(periodsOf(12, 'quarterly')).toEqual({ done: 4, left: 0 });
    expect(periodsOf(12, 'monthly')).toEqual({ done: 12, left: 0 });
    // Joined in June: monthly, June is its one month done; quarterly, Q2 ended after it joined.
    expect(periodsOf(6, 'monthly', 6)).toEqual({ done: 1, left: 6 });
    expect(periodsOf(6, 'quarterly', 6)).toEqual({ done: 1, left: 2 });
    expect(periodsOf(8, 'quarterly', 7)).toEqual({ done: 0, left: 2 });
  });

  it('a joiner is judged on the pool it has now: joined in June with 5 employees, 1 drug test needed: NEEDS_MORE 1, not CANNOT_MEET', () => {
    // Compliance at 25%: exposure 5 (June only), target ceil(25% × (5 + 5 × 6) / 12) = ceil(0.73) = 1,
    // nothing picked yet. The average over six months (0.83) would have called 1 a month CANNOT_MEET.
    const joiner = {
      month: 6,
      selection: 'monthly' as const,
      exposure: 5,
      lastPool: 5,
      firstMonth: 6,
      rate: 0.25,
    };
    const p = planOf({ ...joiner, target: 1, completedYtd: 0, pickedYtd: 0 });
    expect([p.verdict, p.needed, p.perPeriod, p.periodsLeft, p.periodsDone]).toEqual([
      'NEEDS_MORE',
      1,
      1,
      6,
      1,
    ]);
    expect(p.currentPool).toBe(5);
    expect(p.reason).toBe('1 a month for the 6 months left (picks so far 0 a month)');
    // The regular draw: 25% × 5 ÷ 12 a month.
    expect(p.regularPerPeriod).toBeCloseTo(1.25 / 12, 12);
    // At 50% the target is 2; one pick in its one month is a pace of 7 by December: on pace.
    const picked = planOf({ ...joiner, rate: 0.5, target: 2, completedYtd: 1, pickedYtd: 1 });
    expect([picked.verdict, picked.paceTests]).toEqual(['ON_PACE', 7]);
    // 6 needed from a pool of 5 in 6 months is 1 a month: still NEEDS_MORE; 31 is CANNOT_MEET.
    expect(planOf({ ...joiner, target: 6, completedYtd: 0, pickedYtd: 0 }).verdict).toBe('NEEDS_MORE');
    expect(planOf({ ...joiner, target: 31, completedYtd: 0, pickedYtd: 0 }).verdict).toBe('CANNOT_MEET');
  });

  it('quarterly selection through October: Q4 is a period left, so 1 or 2 needed from a pool of 10 is "2 more this quarter", not CANNOT_MEET', () => {
    const base = { month: 10, selection: 'quarterly' as const, exposure: 100, lastPool: 10, rate: 0.5 };
    // Target ceil(50% × (100 + 10 × 2) / 12) = 5; 3 done.
    const two = planOf({ ...base, target: 5, completedYtd: 3, pickedYtd: 3 });
    expect([two.verdict, two.needed, two.perPeriod, two.periodsLeft]).toEqual(['NEEDS_MORE', 2, 2, 1]);
    expect(two.reason).toMatch(/^2 more this quarter/);
    expect(two.regularPerPeriod).toBeCloseTo(1.25, 12);
    const one = planOf({ ...base, target: 5, completedYtd: 4, pickedYtd: 4 });
    expect([one.verdict, one.perPeriod]).toEqual(['NEEDS_MORE', 1]);
    // More than the pool in the quarter left is CANNOT_MEET.
    const many = planOf({ ...base, lastPool: 3, target: 9, completedYtd: 4, pickedYtd: 4 });
    expect([many.verdict, many.perPeriod]).toEqual(['CANNOT_MEET', 5]);
    // Through December nothing is left to plan: the year is closed.
    const dec = planOf({ ...base, month: 12, exposure: 120, target: 5, completedYtd: 4, pickedYtd: 5 });
    expect([dec.verdict, dec.periodsLeft]).toEqual(['NOT_MET', 0]);
  });

  it('a closed year reads MET / NOT_MET / N/A, never ON_PACE or CANNOT_MEET; pending picks do not count', () => {
    const base = { month: 12, selection: 'monthly' as const, exposure: 240, lastPool: 20, closed: true };
    const met = planOf({ ...base, target: 10, completedYtd: 10, pickedYtd: 12 });
    expect([met.verdict, met.needed, met.perPeriod, met.periodsLeft]).toEqual(['MET', 0, null, 0]);
    const notMet = planOf({ ...base, target: 10, completedYtd: 8, pickedYtd: 10 });
    expect([notMet.verdict, notMet.needed]).toEqual(['NOT_MET', 2]);
    expect(notMet.reason).toBe('completed 8 of the target 10: 2 short, the year is closed');
    expect(
      planOf({ ...base, exposure: 0, lastPool: 0, target: 0, completedYtd: 0, pickedYtd: 0 }).verdict,
    ).toBe('N/A');
    // An as-of after the year closes a year reported through an earlier month too.
    const early = planOf({ ...base, month: 9, exposure: 180, target: 10, completedYtd: 10, pickedYtd: 10 });
    expect(early.verdict).toBe('MET');
  });

  it('a data problem turns ON_PACE or MET into NEEDS_REVIEW naming it; a line needing more keeps its verdict', () => {
    const base = { month: 6, selection: 'monthly' as const, exposure: 120, lastPool: 20 };
    const review = ['no OrgMonth row (or no pool) for month 4'];
    const r = planOf({ ...base, target: 10, completedYtd: 5, pickedYtd: 5, review });
    expect(r.verdict).toBe('NEEDS_REVIEW');
    expect(r.reason).toContain('no OrgMonth row (or no pool) for month 4');
    expect(planOf({ ...base, target: 10, completedYtd: 4, pickedYtd: 4, review }).verdict).toBe('NEEDS_MORE');
    expect(
      planOf({
        ...base,
        month: 12,
        exposure: 240,
        closed: true,
        target: 10,
        completedYtd: 10,
        pickedYtd: 10,
        review,
      }).verdict,
    ).toBe('NEEDS_REVIEW');
  });

  it('each verdict at its edge', () => {
    const base = { month: 6, selection: 'monthly' as const, exposure: 120, lastPool: 20 };
    // Worked example 1 of compliance: 5 of 10 done at mid-year, picks 5: the pace (10) reaches 10.
    expect(planOf({ ...base, target: 10, completedYtd: 5, pickedYtd: 5 }).verdict).toBe('ON_PACE');
    // One pick fewer: 4 × 12 < 10 × 6, so NEEDS_MORE, ceil(6 / 6) = 1 a month.
    const more = planOf({ ...base, target: 10, completedYtd: 4, pickedYtd: 4 });
    expect([more.verdict, more.needed, more.perPeriod]).toEqual(['NEEDS_MORE', 6, 1]);
    // Completed and pending reach the target: nothing needed.
    const done = planOf({ ...base, target: 10, completedYtd: 8, pickedYtd: 10 });
    expect([done.verdict, done.needed, done.perPeriod, done.pending]).toEqual(['ON_PACE', 0, 0, 2]);
    // Per period exactly the pool now is still possible; one more is not.
    const small = {
      month: 11,
      selection: 'monthly' as const,
      exposure: 22,
      lastPool: 2,
      completedYtd: 0,
      pickedYtd: 0,
    };
    expect(planOf({ ...small, target: 2 }).verdict).toBe('NEEDS_MORE');
    expect(planOf({ ...small, target: 3 }).verdict).toBe('CANNOT_MEET');
    // No pool, no rate.
    expect(
      planOf({ ...base, exposure: 0, lastPool: 0, target: 0, completedYtd: 0, pickedYtd: 0 }).verdict,
    ).toBe('N/A');
    const noRate = planOf({ ...base, target: null, completedYtd: 0, pickedYtd: 0 });
    expect([noRate.verdict, noRate.needed]).toEqual(['N/A', null]);
  });

  it('most urgent first: CANNOT_MEET, NEEDS_MORE by per period, ON_PACE, N/A; measured before assumed', () => {
    const rows = [
      {
        orgId: 1,
        org: 'A',
        testType: 'drug',
        verdict: 'ON_PACE',
        perPeriod: 0,
        needed: 0,
        assumedRate: false,
      },
      {
        orgId: 2,
        org: 'B',
        testType: 'drug',
        verdict: 'NEEDS_MORE',
        perPeriod: 2,
        needed: 4,
        assumedRate: false,
      },
      {
        orgId: 3,
        org: 'C',
        testType: 'alcohol',
        verdict: 'N/A',
        perPeriod: null,
        needed: null,
        assumedRate: false,
      },
      {
        orgId: 4,
        org: 'D',
        testType: 'drug',
        verdict: 'NEEDS_MORE (assumed rate)',
        perPeriod: 5,
        needed: 9,
        assumedRate: true,
      },
      {
        orgId: 5,
        org: 'E',
        testType: 'drug',
        verdict: 'CANNOT_MEET',
        perPeriod: 1,
        needed: 1,
        assumedRate: false,
      },
      {
        orgId: 6,
        org: 'F',
        testType: 'drug',
        verdict: 'NEEDS_MORE (assumed rate)',
        perPeriod: 2,
        needed: 4,
        assumedRate: true,
      },
    ];
    expect(sortByUrgency(rows).map((r) => r.orgId)).toEqual([5, 4, 2, 6, 1, 3]);
  });
});

describe('catch-up page figures', () => {
  it('picks still needed say, under the number, how many rest on assumed rates', () => {
    const b = catchUpHtml();
    const line = (orgId: number, needed: number, assumed: boolean) => ({
      orgId,
      testType: 'drug',
      verdict: assumed ? 'NEEDS_MORE (assumed rate)' : 'NEEDS_MORE',
      needed,
      perPeriod: 1,
      annualTarget: needed,
      assumedRate: assumed,
      problems: null,
    });
    const plan = [line(1, 1394, true), line(2, 770, false)];
    const figure = b
      .build({ ...planFacts(plan), plan })
      .figures.find((f) => f.label === 'Drug picks still needed');
    expect(figure).toEqual({
      label: 'Drug picks still needed',
      value: '2,164',
      note: '1,394 on assumed rates',
    });
    // The page and the dashboard draw the qualifier under the value, never inside it.
    expect(figureHtml(figure as Figure, String)).toBe(
      '<div><dt>Drug picks still needed</dt><dd>2,164</dd><dd class="qualifier">1,394 on assumed rates</dd></div>',
    );
  });
});
