import { basisBars } from '../../render/html/charts.js';
import {
  type Chart,
  count,
  level,
  palette,
  type StatusCount,
  type SummaryBuilder,
  withAssumed,
} from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { verdictWords } from './columns.js';
import { verdictOf, verdictOrder } from './plan.js';

/** Plan rows shown first on the page (the most urgent); every row is in the table and the CSV. */
const FIRST_ROWS = 15;

const verdictColour: Record<string, string> = {
  CANNOT_MEET: palette.vermillion,
  NEEDS_MORE: palette.orange,
  ON_PACE: palette.green,
  'N/A': palette.grey,
};

/**
 * The catch-up page's summary and the report's verdict (docs/html-reports.md): employers per
 * test type and verdict, counted from the plan rows with those on an assumed rate among them
 * (counted, and said so). A measured CANNOT_MEET needs action; anything needing more, not
 * planned for want of a rate, or resting on an assumed rate needs attention; OK only when every
 * employer is measured and on pace (or has no pool).
 */
export function catchUpHtml(): SummaryBuilder {
  const rows: Row[] = [];
  return {
    onRow(row) {
      rows.push(row);
    },
    build() {
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
        const cannot = n(group, 'CANNOT_MEET');
        const more = n(group, 'NEEDS_MORE');
        if (cannot.n > 0) problems.push(`${title}: cannot meet ${withAssumed(cannot.n, cannot.assumed)}`);
        if (more.n > 0) problems.push(`${title}: needs more ${withAssumed(more.n, more.assumed)}`);
        if (cannot.n > cannot.assumed) measuredCannot = true;
      }
      const noRate = rows.filter((r) => r.testType === 'drug' && r.annualTarget === null);
      if (noRate.length > 0) problems.push(`Drug: no rate, not planned ${count(noRate.length)}`);
      const employers = new Set(rows.map((r) => r.orgId));
      const onAssumed = new Set(rows.filter((r) => r.assumedRate === true).map((r) => r.orgId));
      if (onAssumed.size > 0)
        problems.push(
          `${count(onAssumed.size)} employer${onAssumed.size === 1 ? '' : 's'} planned on an assumed rate (import their policies: ohs policy import)`,
        );
      const needed = (group: string) =>
        rows
          .filter((r) => r.testType === group)
          .reduce((a, r) => a + (typeof r.needed === 'number' ? r.needed : 0), 0);
      const urgent = rows.filter((r) => ['CANNOT_MEET', 'NEEDS_MORE'].includes(verdictOf(r.verdict).verdict));
      return {
        status: level(measuredCannot, problems.length > 0),
        figures: [
          { label: 'Employers', value: count(employers.size) },
          {
            label: 'Drug: cannot meet',
            value: withAssumed(n('drug', 'CANNOT_MEET').n, n('drug', 'CANNOT_MEET').assumed),
          },
          {
            label: 'Drug: needs more',
            value: withAssumed(n('drug', 'NEEDS_MORE').n, n('drug', 'NEEDS_MORE').assumed),
          },
          {
            label: 'Alcohol: cannot meet',
            value: withAssumed(n('alcohol', 'CANNOT_MEET').n, n('alcohol', 'CANNOT_MEET').assumed),
          },
          {
            label: 'Alcohol: needs more',
            value: withAssumed(n('alcohol', 'NEEDS_MORE').n, n('alcohol', 'NEEDS_MORE').assumed),
          },
          { label: 'Drug picks still needed', value: count(needed('drug')) },
          { label: 'Alcohol picks still needed', value: count(needed('alcohol')) },
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
