import type { PolicyVersion } from '../../mirror/index.js';
import type { Row, Sheet } from '../../render/types.js';
import { trendRowsEach } from '../core/ar-trend.js';
import { ORG_ANCHORS } from '../core/org-names.js';
import type { ReportDeclaration, ReportInput } from '../core/types.js';
import { aboutLines } from './about.js';
import { complianceColumns, printColumns, rollupColumns, ytdColumns } from './columns.js';
import { misColumns, misRows, problemColumns, problemRows } from './evidence.js';
import {
  type ComplianceProduct,
  complianceFacts,
  complianceFigures,
  complianceWarnings,
  planOf,
  ytdRowsOf,
} from './figures.js';
import { complianceHtml } from './html.js';
import { type OrgCalc, programs } from './model.js';
import { type ComplianceOptions, complianceOptions } from './options.js';
import { catchUpColumns } from './plan-columns.js';
import { rollupsOf } from './rollups.js';
import { totalRow } from './rows.js';
import { complianceTrend, trendAt } from './trend.js';
import { complianceWords } from './words.js';

/**
 * OrgMonth random-pick compliance (docs/reports.md): per org and month of a year, is the org on pace
 * for its minimum annual random drug and alcohol rates, and did it meet them at year end.
 * OrgMonth is per org and month, so the rows of the year are read whole, org by org (walk.ts).
 */
export const complianceReport: ReportDeclaration<typeof complianceOptions, 'compliance', ComplianceProduct> =
  {
    name: 'compliance',
    title: 'Random testing compliance',
    description:
      'Per org and month of a year: random drug and alcohol tests against the minimum annual rates (exposure, expected to date, annual target, status), with rollups of parent orgs.',
    options: complianceOptions,
    streams: ['orgmonth', 'orderitem', 'invoice'],
    build,
    html: complianceHtml,
    words: complianceWords,
    async trend(input, ends) {
      const { db } = input;
      const { s } = await complianceFigures(input);
      return (await trendRowsEach(db, ends, (end) => trendAt(db, s, end))).rows;
    },
  };

async function build(input: ReportInput<ComplianceOptions>) {
  const { db, common, opts, scope, at, names } = input;
  // The run's figures (shared with catch-up and accounts at risk); read again only if another
  // report of the run read the shared walk first.
  const f = await complianceFigures(input);
  const { s } = f;
  const { year, m } = s;
  const walk = f.walk.started ? await f.fresh() : f.walk;
  const trend = await complianceTrend(db, common, s);

  // Its product's parts, made once the walk is done: the sheets are views of them.
  let made: { product: ComplianceProduct; rollups: number; sheets: Sheet[] } | null = null;
  const views = () => {
    if (made !== null) return made;
    const rollups = rollupsOf(s.policies, s.parentOf, names, scope, walk.kept, opts, m, year);
    const totals: Row[] = [];
    for (const program of programs) {
      const members = walk.lasts.filter((c) => c.rates.program === program);
      if (members.length > 0) totals.push(totalRow(members, program, year, m));
    }
    const byOrg = ytdRowsOf(walk);
    const sheets: Sheet[] = [
      {
        name: 'Problems',
        columns: problemColumns,
        rows: problemRows(byOrg, year, m),
        totals: 'none',
        wrap: true,
      },
      { name: 'YTD by org', columns: ytdColumns, rows: [...byOrg, ...totals], anchors: ORG_ANCHORS },
    ];
    if (rollups.length > 0) sheets.push({ name: 'Rollups', columns: rollupColumns, rows: rollups });
    const mis = misRows(byOrg, year, m);
    if (mis.length > 0) sheets.push({ name: 'MIS random by employer', columns: misColumns, rows: mis });
    // The catch-up plan of the same figures (report catch-up holds it on its own, with its rules).
    const plan = planOf(f, walk);
    if (plan.length > 0) sheets.push({ name: 'Catch-up', columns: catchUpColumns, rows: plan });
    const product = { ...complianceFacts(byOrg), employers: byOrg, plan, trend: trend.rows };
    made = { product, rollups: rollups.length, sheets };
    return made;
  };
  const warnings = (): string[] => complianceWarnings(f, walk, common.orgIds);
  const about = () => {
    const sourceLine = [...walk.rateCounts]
      .sort()
      .map(([source, n]) => `${source}: ${n} org${n === 1 ? '' : 's'}`)
      .join('; ');
    return aboutLines({
      year,
      m,
      monthNote: s.monthNote,
      defaultsNote: s.defaultsNote,
      sourceLine,
      opts,
      rollups: views().rollups,
      at,
      orgs: walk.lasts.length,
      details: walk.details,
      assumed: walk.lasts.filter((c) => c.rates.assumed).length,
      trend: trend.about,
      policies: policyLine(s.policies, walk.lasts, at),
    });
  };
  return {
    detail: {
      name: 'Compliance',
      columns: complianceColumns,
      rows: { [Symbol.asyncIterator]: () => walk.rows() },
      print: { columns: printColumns, titleColumns: 2 },
    },
    summaries: () => views().sheets,
    trend: trend.sheet,
    facts: () => views().product,
    warnings,
    about,
  };
}

export { parseMonthLabel } from './months.js';
export { complianceTrendColumns, orgStatus } from './trend.js';
export { complianceColumns, complianceOptions };

/**
 * The About line naming the policies the report used: those in force at its instant, with the
 * versions of the report's orgs (each org's version took effect at its valid_from).
 */
function policyLine(
  policies: readonly PolicyVersion[],
  lasts: readonly OrgCalc[],
  at: string | undefined,
): string {
  const inReport = new Set(lasts.map((c) => c.orgId));
  const used = policies.filter((p) => inReport.has(p.org_id));
  const when = at === undefined ? 'now (the present)' : `at ${at}`;
  if (used.length === 0)
    return `The policies in force ${when} (org_policy_history): none for the orgs of this report`;
  const shown = used
    .slice(0, 20)
    .map(
      (p) =>
        `org ${p.org_id} ${p.program}${p.agency === null ? '' : ` ${p.agency}`} (${p.source}, in force from ${p.valid_from})`,
    )
    .join('; ');
  return `The policies in force ${when} (org_policy_history: every version with valid_from / valid_to): ${used.length} of the report's orgs; ${shown}${used.length > 20 ? `; and ${used.length - 20} more` : ''}. A policy imported or changed after that instant does not change this report`;
}
