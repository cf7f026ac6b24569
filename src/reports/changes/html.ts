import {
  type Chart,
  count,
  type Figure,
  level,
  palette,
  type SummaryBuilder,
} from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { kindWords } from './columns.js';
import { type Counted, headlineCounts, headlineOf, kindRows, worseParts } from './headline.js';
import { type Severity, severities, severityWords } from './line.js';

/**
 * What the page reads of the report's typed product (index.ts `ChangesFacts`): the period's
 * start in words and why the changes are not known; its lines it counts as they stream.
 */
interface ChangesPage {
  since: string;
  unknown: string | null;
}

/** Lines shown first on the page (the worst); every line is in the table and the CSV. */
const FIRST_ROWS = 15;

const severityColour: Record<Severity, string> = {
  action: palette.vermillion,
  worse: palette.orange,
  tool: palette.purple,
  changed: palette.grey,
  new: palette.blue,
  better: palette.green,
};

/**
 * The changes page's summary and the report's verdict: Action needed when a line is a change for
 * the worse that its base report calls Action needed; Needs attention when anything else got
 * worse or the mirror and the tool need a look (a stream incomplete, a write-back held or
 * failed); OK otherwise, an empty period included ("nothing changed"). The verdict's lines are
 * what got worse counted by kind, the same words the headline leads with (the sentence the
 * dashboard's card opens with).
 */
export function changesHtml(): SummaryBuilder<ChangesPage> {
  const first: Row[] = [];
  const lines: Counted[] = [];
  return {
    onRow(row) {
      lines.push({
        severity: String(row.severity),
        kind: String(row.kind),
        orgId: typeof row.orgId === 'number' ? row.orgId : null,
        count: Number(row.count),
      });
      if (first.length < FIRST_ROWS && row.severity !== 'better') first.push(row);
    },
    build(facts) {
      // Its lines per kind as the By kind sheet counts them, from the lines the page saw.
      const kinds = kindRows(lines);
      const c = headlineCounts(lines);
      const unknown = facts?.unknown ?? undefined;
      // The verdict's lines are the headline's first ones: what got worse, counted by kind.
      const problems = [...(unknown === undefined ? [] : [unknown]), ...worseParts(lines)];
      const figures: Figure[] = [
        { label: 'Employers fell behind', value: count(c.employersFellBehind) },
        { label: 'Invoices passed 90 days', value: count(c.invoicesPassed90) },
        { label: 'Orders newly stuck', value: count(c.ordersStuck) },
        { label: 'New data problems', value: count(c.newDataProblems) },
        { label: 'Invoices passed 60 days', value: count(c.invoicesPassed60) },
        { label: 'Employers recovered', value: count(c.employersRecovered) },
        { label: 'Employers re-scored (policy or rates)', value: count(c.employersRescored) },
        { label: 'Policies imported or changed', value: count(c.policiesChanged) },
        { label: 'Invoices paid', value: count(c.invoicesPaid) },
        { label: 'Write-backs failed or held', value: count(c.writeBacksFailed + c.writeBacksHeld) },
        { label: 'Changes', value: count(c.lines) },
      ];
      const since = facts?.since ?? 'since the start of the period';
      return {
        status: level(c.actionNeeded > 0, problems.length > 0),
        headline: unknown !== undefined ? `changes not known: ${unknown}` : headlineOf(lines, since),
        figures,
        problems,
        ...(first.length === 0
          ? {}
          : { first: { title: 'Worst first', rows: first, more: Math.max(0, lines.length - first.length) } }),
        charts: kinds.length === 0 ? [] : [kindChart(kinds)],
      };
    },
  };
}

/** Lines per kind, coloured by severity, worst first. */
function kindChart(kinds: readonly Row[]): Chart {
  const values = kinds.map((r) => ({
    kind: kindWords[String(r.kind)] ?? String(r.kind),
    severity: severityWords[r.severity as Severity] ?? String(r.severity),
    lines: Number(r.lines),
  }));
  const shown = severities.filter((s) => kinds.some((r) => r.severity === s));
  return {
    id: 'chart-changes',
    title: 'Changes by kind, worst first',
    description: `Lines per kind of change: ${values.map((v) => `${v.kind} ${v.lines} (${v.severity})`).join(', ')}.`,
    spec: {
      data: { values },
      width: 320,
      height: { step: 18 },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'kind', type: 'nominal', sort: null, title: null },
        x: { field: 'lines', type: 'quantitative', title: 'lines', axis: { tickMinStep: 1, format: 'd' } },
        color: {
          field: 'severity',
          type: 'nominal',
          title: null,
          scale: { domain: shown.map((s) => severityWords[s]), range: shown.map((s) => severityColour[s]) },
        },
      },
    },
  };
}
