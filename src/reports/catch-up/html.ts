import { basisBars } from '../../render/html/charts.js';
import {
  type Chart,
  count,
  countFigure,
  level,
  palette,
  type StatusCount,
  type SummaryBuilder,
  withAssumed,
} from '../../render/html/summary.js';
import { verdictOf, verdictOrder } from '../compliance/plan.js';
import { verdictWords } from '../compliance/plan-columns.js';
import { employersWithProblems } from '../compliance/problems.js';
import type { CatchUpProduct } from './product.js';

/** Plan rows shown first on the page (the most urgent); every row is in the table and the CSV. */
const FIRST_ROWS = 15;

const verdictColour: Record<string, string> = {
  CANNOT_MEET: palette.vermillion,
  NOT_MET: palette.vermillion,
  NEEDS_REVIEW: palette.yellow,
  NEEDS_MORE: palette.orange,
  ON_PACE: palette.green,
  MET: palette.green,
  'N/A': palette.grey,
};

/**
 * The catch-up page's summary and the report's verdict (docs/html-reports.md): employers per
 * test type and verdict, counted from its product's plan lines with those on an assumed rate among them
 * (counted, and said so). A measured CANNOT_MEET or NOT_MET needs action; anything needing more
 * or review, not planned for want of a rate, resting on an assumed rate, or with a problem named
 * needs attention; OK only when every employer is measured, on pace or met (or has no pool), and
 * no problem is named for any.
 */
export function catchUpHtml(): SummaryBuilder<CatchUpProduct> {
  return {
    onRow() {},
    build(product) {
      const rows = product?.plan ?? [];
      const counts: StatusCount[] = [];
      for (const group of ['drug', 'alcohol'])
        for (const status of verdictOrder) {
          const of = rows.filter((r) => r.testType === group && verdictOf(r.verdict).verdict === status);
          if (of.length > 0)
            counts.push({
              group,
              status,
              count: of.length,
              assumed: of.filter((r) => verdictOf(r.verdict).assumed).length,
            });
        }
      const n = (group: string, status: string) => {
        const c = counts.find((x) => x.group === group && x.status === status);
        return { n: c?.count ?? 0, assumed: c?.assumed ?? 0 };
      };
      const problems: string[] = [];
      let measuredCannot = false;
      for (const group of ['drug', 'alcohol']) {
        const title = group === 'drug' ? 'Drug' : 'Alcohol';
        for (const [verdict, said] of [
          ['CANNOT_MEET', 'cannot meet'],
          ['NOT_MET', 'not met'],
          ['NEEDS_REVIEW', 'needs review (data problem)'],
          ['NEEDS_MORE', 'needs more'],
        ] as const) {
          const c = n(group, verdict);
          if (c.n > 0) problems.push(`${title}: ${said} ${withAssumed(c.n, c.assumed)}`);
          if ((verdict === 'CANNOT_MEET' || verdict === 'NOT_MET') && c.n > c.assumed) measuredCannot = true;
        }
      }
      // The one rule of compliance and catch-up: never OK while a problem is named for an employer.
      const named = employersWithProblems(rows);
      if (named.size > 0)
        problems.push(
          `${count(named.size)} employer${named.size === 1 ? '' : 's'} with a problem named (column Problems)`,
        );
      const noRate = rows.filter((r) => r.testType === 'drug' && r.annualTarget === null);
      if (noRate.length > 0) problems.push(`Drug: no rate, not planned ${count(noRate.length)}`);
      const employers = new Set(rows.map((r) => r.orgId));
      const onAssumed = new Set(rows.filter((r) => r.assumedRate === true).map((r) => r.orgId));
      if (onAssumed.size > 0)
        problems.push(
          `${count(onAssumed.size)} employer${onAssumed.size === 1 ? '' : 's'} planned on an assumed rate (import their policies: ohs policy import)`,
        );
      const needed = (group: string, assumedOnly = false) =>
        rows
          .filter((r) => r.testType === group && (!assumedOnly || r.assumedRate === true))
          .reduce((a, r) => a + (typeof r.needed === 'number' ? r.needed : 0), 0);
      // Each figure is the number alone; what of it rests on an assumed rate is said under it.
      const neededFigure = (group: string, label: string) =>
        countFigure(label, needed(group), needed(group, true));
      const verdictFigure = (label: string, ...of: [string, string][]) =>
        countFigure(
          label,
          of.reduce((a, [g, v]) => a + n(g, v).n, 0),
          of.reduce((a, [g, v]) => a + n(g, v).assumed, 0),
        );
      const urgent = rows.filter((r) =>
        ['CANNOT_MEET', 'NOT_MET', 'NEEDS_REVIEW', 'NEEDS_MORE'].includes(verdictOf(r.verdict).verdict),
      );
      return {
        status: level(measuredCannot, problems.length > 0),
        figures: [
          { label: 'Employers', value: count(employers.size) },
          verdictFigure('Drug: cannot meet', ['drug', 'CANNOT_MEET']),
          verdictFigure('Drug: needs more', ['drug', 'NEEDS_MORE']),
          verdictFigure('Alcohol: cannot meet', ['alcohol', 'CANNOT_MEET']),
          verdictFigure('Alcohol: needs more', ['alcohol', 'NEEDS_MORE']),
          verdictFigure('Needs review (data problem)', ['drug', 'NEEDS_REVIEW'], ['alcohol', 'NEEDS_REVIEW']),
          neededFigure('drug', 'Drug picks still needed'),
          neededFigure('alcohol', 'Alcohol picks still needed'),
          { label: 'Planned on an assumed rate', value: count(onAssumed.size) },
        ],
        counts,
        problems,
        first: {
          title: `Most urgent (${count(urgent.length)})`,
          rows: urgent.slice(0, FIRST_ROWS),
          more: Math.max(0, urgent.length - FIRST_ROWS),
        },
        charts: [verdictChart(counts)],
      };
    },
  };
}

/** Employers per test type and verdict, those on an assumed rate pale. */
function verdictChart(counts: StatusCount[]): Chart {
  const shown = verdictOrder.map((v) => verdictWords[v] ?? v);
  return {
    id: 'chart-verdicts',
    title: 'Employers by catch-up verdict (pale: on an assumed rate)',
    description: `Employers per drug and alcohol catch-up verdict: ${
      counts
        .map(
          (c) =>
            `${c.group} ${verdictWords[c.status] ?? c.status} ${c.count}${c.assumed === 0 ? '' : ` (${c.assumed === c.count ? 'all' : c.assumed} on an assumed rate)`}`,
        )
        .join(', ') || 'none'
    }.`,
    spec: basisBars(
      counts.map((c) => ({ ...c, category: verdictWords[c.status] ?? c.status })),
      {
        groupField: 'testType',
        categoryField: 'verdict',
        shown,
        colours: verdictOrder.map((v) => verdictColour[v] ?? palette.grey),
      },
    ),
  };
}
