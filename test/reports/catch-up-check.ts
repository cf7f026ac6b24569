import { expect } from 'vitest';

/**
 * The catch-up plan recomputed by hand from the compliance CSV (each org's through-month row), and
 * compared with the catch-up CSV: the test's own arithmetic, not the module's.
 */
type Csv = Record<string, string>[];

export function expectPlanFromCompliance(
  compliance: Csv,
  plan: Csv,
  selection: 'monthly' | 'quarterly',
): void {
  const m = Math.max(...compliance.map((r) => Number(r.month)));
  const last = compliance.filter((r) => Number(r.month) === m);
  expect(plan.length).toBe(last.length * 2);
  const per = selection === 'quarterly' ? 3 : 1;
  const perYear = 12 / per;
  // Periods still to select in: those not yet ended (a quarter under way among them).
  const left = m === 12 ? 0 : perYear - Math.floor(m / per);
  for (const r of last)
    for (const kind of ['drug', 'alcohol']) {
      const got = plan.find((p) => p.orgId === r.orgId && p.testType === kind);
      expect(got, `${r.orgId} ${kind}`).toBeDefined();
      const months = compliance.filter((x) => x.orgId === r.orgId);
      // Joined: the first month with an OrgMonth row.
      const first = Math.min(m, ...months.filter((x) => x.orgMonthId !== '').map((x) => Number(x.month)));
      const flags = months.flatMap((x) => (x.flags ?? '').split(';'));
      const review =
        flags.some((f) => f === 'DATA_GAP' || f === 'DATA_CHECK' || f.startsWith('NO_SELECTION_')) ||
        (got?.problems ?? '').includes('label that is no month');
      const target = r[`${kind}AnnualTarget`] === '' ? null : Number(r[`${kind}AnnualTarget`]);
      const completed = Number(r[`${kind}CompletedYtd`]);
      const picked = Number(r[`${kind}PickedYtd`]);
      const exposure = Number(r.exposure);
      const pool = Number(r.pool);
      const pending = picked - completed;
      let verdict: string;
      let needed: number | null = null;
      let perPeriod: number | null = null;
      if (target === null || exposure === 0) verdict = 'N/A';
      else if (m === 12) {
        needed = Math.max(0, target - completed);
        verdict = needed === 0 ? 'MET' : 'NOT_MET';
      } else {
        needed = Math.max(0, target - completed - pending);
        if (needed === 0) {
          verdict = 'ON_PACE';
          perPeriod = 0;
        } else if (left === 0) verdict = 'CANNOT_MEET';
        else {
          perPeriod = Math.ceil(needed / left);
          // Judged on the pool now, the pace on the months since joining (whole numbers).
          if (perPeriod > pool) verdict = 'CANNOT_MEET';
          else if (picked * (13 - first) >= target * (m - first + 1)) verdict = 'ON_PACE';
          else verdict = 'NEEDS_MORE';
        }
      }
      if (review && (verdict === 'ON_PACE' || verdict === 'MET')) verdict = 'NEEDS_REVIEW';
      const source = r.rateSource ?? '';
      const assumed = source.startsWith('default:') || source.includes('default-agency:');
      const said = verdict !== 'N/A' && assumed ? `${verdict} (assumed rate)` : verdict;
      const where = `org ${r.orgId} ${kind}`;
      expect(got?.verdict, where).toBe(said);
      expect(got?.needed, where).toBe(needed === null ? '' : String(needed));
      expect(got?.perPeriod, where).toBe(perPeriod === null ? '' : String(perPeriod));
      expect(got?.pending, where).toBe(String(pending));
      expect(got?.completedYtd, where).toBe(String(completed));
      expect(got?.annualTarget, where).toBe(target === null ? '' : String(target));
      expect(got?.periodsLeft, where).toBe(String(left));
      expect(got?.selection, where).toBe(selection);
      expect(got?.throughMonth, where).toBe(String(m));
      expect(got?.assumedRate, where).toBe(String(assumed));
      expect(got?.currentPool, where).toBe(String(pool));
      const rate = r[`${kind}Rate`] === '' ? null : Number(r[`${kind}Rate`]);
      expect(got?.regularPerPeriod, where).toBe(
        rate === null ? '' : (((rate / 100) * pool) / perYear).toFixed(2),
      );
      // A line over a data problem names it.
      if (review) expect(got?.problems, where).not.toBe('');
    }
  // Most urgent first.
  const rank = ['CANNOT_MEET', 'NOT_MET', 'NEEDS_REVIEW', 'NEEDS_MORE', 'ON_PACE', 'MET', 'N/A'];
  const ranks = plan.map((p) => rank.indexOf(p.verdict?.replace(/ \(assumed rate\)$/, '') ?? ''));
  expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
  const more = plan.filter((p) => p.verdict?.startsWith('NEEDS_MORE')).map((p) => Number(p.perPeriod));
  expect([...more].sort((a, b) => b - a)).toEqual(more);
}
