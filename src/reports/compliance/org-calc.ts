import type { Collector } from './collector.js';
import type { Kind, KindCalc, MonthCalc, MonthInput, OrgCalc, OrgRates } from './model.js';

/** An org's months through `m`: pools (gaps carried forward), exposure, counts YTD and flags. */
export function computeOrg(
  orgId: number,
  org: string | null,
  rows: Map<number, MonthInput>,
  m: number,
  year: number,
  rates: OrgRates,
  warn: Collector,
  /** The rates of months 1..m when each month is scored by its own policy version (month-rates.ts). */
  byMonth?: readonly OrgRates[],
): OrgCalc {
  const first = Math.min(...rows.keys());
  const months: MonthCalc[] = [];
  let pool = 0;
  let exposure = 0;
  const ytd = { drug: { picked: 0, completed: 0 }, alcohol: { picked: 0, completed: 0 } };
  const name = `${org ?? 'org'} (${orgId})`;
  const quarter = { picks: 0, pool: 0 };
  const weighted = { drug: 0n, alcohol: 0n };
  for (let i = 1; i <= m; i++) {
    const input = rows.get(i);
    const r = byMonth?.[i - 1] ?? rates;
    const flags: string[] = [];
    const when = `${year}-${String(i).padStart(2, '0')}`;
    if (input !== undefined && input.pool !== null) pool = input.pool;
    else if (i < first) pool = 0;
    else {
      // A missing month (or a row without a pool) after the org's first row: the pool is taken
      // as unchanged from the month before (docs/reports.md gap rule).
      flags.push('DATA_GAP');
      warn.add(
        'gap',
        `${name} ${when}: ${input === undefined ? 'no OrgMonth row' : 'no pool count'}; pool ${pool} carried forward (DATA_GAP)`,
      );
    }
    exposure += pool;
    weighted.drug += (r.drug ?? 0n) * BigInt(pool);
    weighted.alcohol += (r.alcohol ?? 0n) * BigInt(pool);
    const kindCalc = (kind: Kind): KindCalc => {
      const picked = input === undefined ? 0 : kind === 'drug' ? input.drugPicked : input.alcoholPicked;
      const reported =
        input === undefined ? 0 : kind === 'drug' ? input.drugCompleted : input.alcoholCompleted;
      // Results above picks fail their own check: the month counts at most its picks toward
      // completed (a status is never MET on counts that fail it), and says so.
      const completed = Math.min(reported, picked);
      ytd[kind].picked += picked;
      ytd[kind].completed += completed;
      if (reported > picked) {
        if (!flags.includes('DATA_CHECK')) flags.push('DATA_CHECK');
        warn.add(
          'check',
          `${name} ${when}: ${kind} results ${reported} exceed picks ${picked} (DATA_CHECK): ${completed} counted as completed`,
        );
      }
      if (picked > 0 && pool === 0) {
        if (!flags.includes('DATA_CHECK')) flags.push('DATA_CHECK');
        warn.add('check', `${name} ${when}: ${picked} ${kind} picks with a pool of 0 (DATA_CHECK)`);
      }
      return {
        picked,
        completed,
        pickedYtd: ytd[kind].picked,
        completedYtd: ytd[kind].completed,
      };
    };
    const drug = kindCalc('drug');
    const alcohol = kindCalc('alcohol');
    // Evidence an auditor asks for: picks never completed, and a quarter with no selection
    // (selections are spread over the year; at least quarterly is DOT best practice [S20]).
    const picksNotCompleted =
      Math.max(0, drug.picked - drug.completed) + Math.max(0, alcohol.picked - alcohol.completed);
    if (picksNotCompleted > 0) flags.push('PICKS_NOT_COMPLETED');
    quarter.picks += drug.picked + alcohol.picked;
    quarter.pool += pool;
    if (i % 3 === 0) {
      if (quarter.picks === 0 && quarter.pool > 0) flags.push(`NO_SELECTION_Q${i / 3}`);
      quarter.picks = 0;
      quarter.pool = 0;
    }
    if (exposure === 0) flags.push('NO_POOL');
    if (r.drug === null) flags.push('NO_RATE');
    flags.push(...r.flags);
    const own =
      byMonth === undefined ? {} : { units: { drug: r.drug, alcohol: r.alcohol }, weighted: { ...weighted } };
    months.push({ month: i, pool, exposure, flags, input, drug, alcohol, picksNotCompleted, ...own });
  }
  return { orgId, org, rates, months, firstMonth: Math.min(first, m) };
}
