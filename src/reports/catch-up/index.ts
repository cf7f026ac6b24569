import type { Row } from '../../render/types.js';
import { complianceFigures, planFacts } from '../compliance/figures.js';
import { ASSUMED } from '../compliance/model.js';
import { type ComplianceOptions, complianceOptions } from '../compliance/options.js';
import { planRows, planYear, verdictOf, verdictOrder } from '../compliance/plan.js';
import { catchUpColumns, verdictColumns } from '../compliance/plan-columns.js';
import type { ReportDeclaration, ReportInput } from '../core/types.js';
import { planRules } from './about.js';
import { catchUpHtml } from './html.js';
import type { CatchUpProduct } from './product.js';
import { catchUpWords } from './words.js';

/**
 * The catch-up plan (docs/reports.md): per employer and test type of the compliance year, the
 * picks still needed, per selection period left, the year-end rate at the pace so far and a
 * verdict, most urgent first. It runs the compliance report's own walk (walk.ts) with the same
 * options, so its figures are the compliance report's, never computed another way.
 */
export const catchUpReport: ReportDeclaration<typeof complianceOptions, 'catch-up', CatchUpProduct> = {
  name: 'catch-up',
  title: 'Random testing catch-up plan',
  description:
    'Per employer and test type: random picks still needed for the annual target, per selection period left, the year-end rate at the pace so far, and a verdict (ON_PACE, NEEDS_MORE, CANNOT_MEET, NEEDS_REVIEW; MET or NOT_MET once the year is closed), most urgent first.',
  options: complianceOptions,
  streams: ['orgmonth', 'orderitem', 'invoice'],
  build,
  html: catchUpHtml,
  words: catchUpWords,
};

async function build(input: ReportInput<ComplianceOptions>) {
  const { common, opts, at } = input;
  // Compliance's figures of the run (its walk done once, whichever report reads it first).
  const f = await complianceFigures(input);
  const { s } = f;
  const walk = await f.walk.walked();
  const rows = planRows(walk.lasts, planYear(s));
  const assumed = walk.lasts.filter((c) => c.rates.assumed).length;
  const warnings = (): string[] => {
    const first =
      assumed === 0
        ? []
        : [
            `${assumed} employer(s) planned on an assumed rate (no policy, or no agency): their verdicts read "...${ASSUMED}", not a measured finding; import their policies (ohs policy import FILE)`,
          ];
    const extra = common.orgIds
      .filter((id) => !walk.seen.has(id))
      .map((id) => `Org ${id} has no OrgMonth row for ${s.year} through month ${s.m}`);
    return [...first, ...f.warn.lines(100, extra)];
  };
  return {
    detail: { name: 'Catch-up plan', columns: catchUpColumns, rows },
    summaries: () => [{ name: 'By verdict', columns: verdictColumns, rows: verdictCounts(rows) }],
    facts: (): CatchUpProduct => ({ ...planFacts(rows), plan: rows }),
    warnings,
    about: () => ({
      method: [
        ['Year and months', `${s.year}, through month ${s.m} (${s.monthNote})`],
        ['Default rates', s.defaultsNote],
        ['Program filter', opts.program],
        ...planRules(opts.selectionPeriod),
        [
          'Mirror read',
          at === undefined
            ? 'The present: OrgMonth rows as last synced; policies in force now'
            : `As known at ${at}: OrgMonth rows and policies as the mirror held them then (its history)`,
        ],
      ] as [string, string][],
      results: [
        ['Employers', String(walk.lasts.length)],
        ['Plan rows', String(rows.length)],
        ['On an assumed rate', String(assumed)],
      ] as [string, string][],
    }),
  };
}

/** Employers per test type and verdict (the By verdict sheet). */
export function verdictCounts(rows: readonly Row[]): Row[] {
  const out: Row[] = [];
  for (const testType of ['drug', 'alcohol'])
    for (const verdict of verdictOrder) {
      const of = rows.filter((r) => r.testType === testType && verdictOf(r.verdict).verdict === verdict);
      if (of.length === 0) continue;
      out.push({
        testType,
        verdict,
        employers: of.length,
        assumed: of.filter((r) => verdictOf(r.verdict).assumed).length,
        needed: of.reduce((a, r) => a + (typeof r.needed === 'number' ? r.needed : 0), 0),
      });
    }
  return out;
}

export { periodsOf, planOf, sortByUrgency } from '../compliance/plan.js';
