import { count, level, money, num, type SummaryBuilder, sheet } from '../../render/html/summary.js';
import { KINDS } from './kinds.js';

/**
 * The accounts-at-risk page's summary, counted from the detail rows as they stream (the CSV's
 * rows): Action needed when an employer shows a kind of risk on measured figures; needs
 * attention when a kind rests on an assumed rate, an employer has no compliance row or one on
 * an assumed rate (a gap: never OK over it), or the joined reports warned.
 */
export function accountsAtRiskHtml(): SummaryBuilder {
  let employers = 0;
  let atRisk = 0;
  let overdue = 0;
  let assumed = 0;
  let none = 0;
  const kinds = new Map<string, { count: number; assumed: number }>();
  return {
    onRow(row) {
      employers++;
      const basis = row.complianceBasis;
      if (basis === 'assumed') assumed++;
      if (basis === 'none') none++;
      const list = typeof row.kinds === 'string' && row.kinds !== '' ? row.kinds.split(';') : [];
      if (list.length > 0) {
        atRisk++;
        overdue += num(row.balance91Plus);
      }
      for (const k of list) {
        const c = kinds.get(k) ?? { count: 0, assumed: 0 };
        c.count++;
        // TESTING_UNPAID rests on A/R and orders only, never on a rate.
        if (k !== KINDS.TESTING_UNPAID && basis === 'assumed') c.assumed++;
        kinds.set(k, c);
      }
    },
    build(sheets) {
      const measured = [...kinds.values()].some((c) => c.count > c.assumed);
      const onAssumed = [...kinds.values()].some((c) => c.assumed > 0);
      const joinedWarnings = (sheet(sheets, 'Joined reports')?.rows ?? []).reduce(
        (s, r) => s + num(r.warnings),
        0,
      );
      const problems = [
        ...Object.values(KINDS).flatMap((k) => {
          const c = kinds.get(k);
          if (c === undefined || c.count === 0) return [];
          return [
            `${count(c.count)} ${k}${c.assumed === 0 ? '' : ` (${c.assumed === c.count ? 'all' : count(c.assumed)} on an assumed rate)`}`,
          ];
        }),
        ...(assumed > 0 ? [`${count(assumed)} employer(s) scored on an assumed rate`] : []),
        ...(none > 0 ? [`${count(none)} employer(s) with no compliance row (not measured)`] : []),
        ...(joinedWarnings > 0 ? [`${count(joinedWarnings)} warning(s) of the joined reports`] : []),
      ];
      return {
        status: level(measured, onAssumed || assumed > 0 || none > 0),
        problems,
        counts: Object.values(KINDS).map((k) => ({
          group: 'kind',
          status: k,
          count: kinds.get(k)?.count ?? 0,
          assumed: kinds.get(k)?.assumed ?? 0,
        })),
        figures: [
          { label: 'Employers', value: count(employers) },
          { label: 'At risk', value: count(atRisk) },
          ...Object.values(KINDS).map((k) => ({ label: k, value: count(kinds.get(k)?.count ?? 0) })),
          { label: 'Oldest bucket, employers at risk', value: money(overdue) },
        ],
        charts: [],
      };
    },
  };
}
