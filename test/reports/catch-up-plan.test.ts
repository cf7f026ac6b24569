import { describe, expect, it } from 'vitest';
import { periodsOf, planOf, sortByUrgency } from '../../src/reports/catch-up/index.js';

/**
 * The catch-up plan's arithmetic (docs/reports.md), on its own: the worked example, each verdict's
 * rule at its edge, and the order of urgency.
 */
describe('catch-up plan: the pure computation', () => {
  it('the worked example: target 14, 6 completed through September, 1 pending, quarterly, average pool 5: CANNOT_MEET, 7 in the one quarter left', () => {
    // Average pool 5 over nine months: exposure 45.
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
    expect(p.reason).toBe('7 a quarter exceeds the average pool 5');
    // The same with an average pool of 7: 7 a quarter fits the pool, the pace does not reach 14.
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

  it('periods left after the through-month: months, or the quarters not yet begun', () => {
    expect(periodsOf(5, 'monthly')).toEqual({ done: 5, left: 7 });
    expect(periodsOf(8, 'quarterly')).toEqual({ done: 3, left: 1 });
    expect(periodsOf(9, 'quarterly')).toEqual({ done: 3, left: 1 });
    expect(periodsOf(10, 'quarterly')).toEqual({ done: 4, left: 0 });
    expect(periodsOf(12, 'monthly')).toEqual({ done: 12, left: 0 });
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
    // No month left and one still needed.
    const late = planOf({ ...base, month: 12, exposure: 240, target: 10, completedYtd: 9, pickedYtd: 9 });
    expect([late.verdict, late.perPeriod, late.periodsLeft]).toEqual(['CANNOT_MEET', null, 0]);
    // Per period exactly the average pool is still possible; one more is not.
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
