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
  const done = selection === 'quarterly' ? Math.ceil(m / 3) : m;
  const perYear = selection === 'quarterly' ? 4 : 12;
  const left = perYear - done;
  for (const r of last)
    for (const kind of ['drug', 'alcohol']) {
      const got = plan.find((p) => p.orgId === r.orgId && p.testType === kind);
      expect(got, `${r.orgId} ${kind}`).toBeDefined();
      const target = r[`${kind}AnnualTarget`] === '' ? null : Number(r[`${kind}AnnualTarget`]);
      const completed = Number(r[`${kind}CompletedYtd`]);
      const picked = Number(r[`${kind}PickedYtd`]);
      const exposure = Number(r.exposure);
      const pending = picked - completed;
      let verdict: string;
      let needed: number | null = null;
      let perPeriod: number | null = null;
      if (target === null || exposure === 0) verdict = 'N/A';
      else {
        needed = Math.max(0, target - completed - pending);
        if (needed === 0) {
          verdict = 'ON_PACE';
          perPeriod = 0;
        } else if (left === 0) verdict = 'CANNOT_MEET';
        else {
          perPeriod = Math.ceil(needed / left);
          // Compared in whole numbers: per period × m against the exposure (the pool-months).
          if (perPeriod * m > exposure) verdict = 'CANNOT_MEET';
          else if (picked * perYear >= target * done) verdict = 'ON_PACE';
          else verdict = 'NEEDS_MORE';
        }
      }
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
    }
  // Most urgent first.
  const rank = ['CANNOT_MEET', 'NEEDS_MORE', 'ON_PACE', 'N/A'];
  const ranks = plan.map((p) => rank.indexOf(p.verdict?.replace(/ \(assumed rate\)$/, '') ?? ''));
  expect([...ranks].sort((a, b) => a - b)).toEqual(ranks);
  const more = plan.filter((p) => p.verdict?.startsWith('NEEDS_MORE')).map((p) => Number(p.perPeriod));
  expect([...more].sort((a, b) => b - a)).toEqual(more);
}
