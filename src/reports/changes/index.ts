import type { Row, Sheet } from '../../render/types.js';
import { fileEnd, periodWords } from '../ar-rollforward/period.js';
import { catchUpReport } from '../catch-up/index.js';
import { complianceReport } from '../compliance/index.js';
import type { ReportBody, ReportDeclaration, ReportInput } from '../core/types.js';
import { orderAgeingReport } from '../order-ageing/index.js';
import { agedReceivables } from '../unpaid-invoices/figures.js';
import { unpaidInvoicesReport } from '../unpaid-invoices/index.js';
import { changeColumns, kindColumns, periodColumns } from './columns.js';
import { catchUpChanges, complianceChanges, policyChanges } from './compliance-lines.js';
import { complianceSide } from './compliance-side.js';
import { type HeadlineCounts, headlineCounts, kindRows } from './headline.js';
import { changesHtml } from './html.js';
import { type Change, compareChanges } from './line.js';
import { type ChangesOptions, changesOptions } from './options.js';
import { orderChanges } from './order-lines.js';
import { movementsOf, receivableChanges } from './receivables-lines.js';
import { inputAt } from './sides.js';
import { type ChangesPeriod, periodOf } from './since.js';
import { toolChanges } from './tool-lines.js';
import { changesWords } from './words.js';

/**
 * What changed (docs/reports.md, "Changes"): every change that needs a person between two
 * instants, read as the differences of the base reports' own results at both ends (compliance,
 * catch-up, unpaid invoices, order ageing; the roll-forward over the period for payments,
 * cancellations and restorations), with the mirror's and the tool's own events in the period.
 * The end is the run's instant (its base reports are the ones `report all` writes, built once
 * in the run); the start `--since`, else the end of the last successful nightly job.
 */
export const changesReport: ReportDeclaration<typeof changesOptions, 'changes', ChangesFacts> = {
  name: 'changes',
  title: 'What changed',
  description:
    "Every change that needs a person between two instants (default: since the last successful nightly job): compliance statuses and catch-up verdicts, new data problems, invoices crossing 60 and 90 days, paid, cancelled or restored, A/R per employer, orders newly stuck, completed or new, records deleted, streams incomplete, write-backs applied, held or failed; worst first, each with the base reports' rows at both ends.",
  options: changesOptions,
  flags: [
    {
      name: 'since',
      value: 'instant',
      description:
        "start of the period: an instant, a date, or a duration back from the run's instant (7d, 24h) (default: the end of the last successful nightly job)",
      option: 'since',
      example: '7d',
    },
  ],
  streams: [
    ...new Set([
      ...complianceReport.streams,
      ...catchUpReport.streams,
      ...unpaidInvoicesReport.streams,
      ...orderAgeingReport.streams,
    ]),
  ],
  build,
  html: changesHtml,
  words: changesWords,
};

/**
 * The lines of the period: the base reports' typed figures at both ends compared by key (one end
 * at a time where they are large: the order items stream), the roll-forward's movements over the
 * period, and the mirror's own events.
 */
async function linesOf(input: ReportInput<ChangesOptions>, period: ChangesPeriod): Promise<Change[]> {
  if (period.since === period.to) return [];
  const cb = await complianceSide(input, period.sinceMs);
  const ca = await complianceSide(input, undefined);
  const ub = await agedReceivables(await inputAt(input, unpaidInvoicesReport, period.sinceMs), false);
  const ua = await agedReceivables(await inputAt(input, unpaidInvoicesReport, undefined), true);
  const moves = await movementsOf(input, { from: period.since, to: period.to });
  const lines = [
    ...policyChanges(cb, ca),
    ...complianceChanges(cb, ca),
    ...catchUpChanges(cb, ca),
    ...receivableChanges(ub, ua, moves),
    ...(await orderChanges(input, period.sinceMs, input.at)),
    // The mirror's and the tool's events are the whole mirror's: not in a report of some orgs.
    ...(input.scope === null ? await toolChanges(input.db, period.since, period.to) : []),
  ];
  return lines.sort(compareChanges);
}

function rowOf(c: Change): Row {
  return {
    severity: c.severity,
    area: c.area,
    kind: c.kind,
    orgId: c.orgId,
    org: c.org,
    subject: c.subject,
    before: c.before,
    after: c.after,
    count: c.count,
    evidenceBefore: c.evidenceBefore,
    evidenceAfter: c.evidenceAfter,
  };
}

/** The period in the headline's words: "since the last run (…)", "since 2026-11-21T…". */
function sinceWords(p: ChangesPeriod): string {
  if (p.how === 'last-nightly') return `since the last run (${p.since})`;
  if (p.how === 'history-start') return `since the mirror's history began (${p.since})`;
  return `since ${p.since}`;
}

/** The changes report's typed figures: its period's ends (epoch ms), its lines and their counts. */
export interface ChangesFacts {
  sinceMs: number;
  toMs: number;
  lines: number;
  /** The headline's counts of its lines (what the job's notice carries). */
  counts: HeadlineCounts;
  /** The period's start in the headline's words ("since the last run (…)"). */
  since: string;
  /** Why the changes are not known (the start before the mirror's history); null: known. */
  unknown: string | null;
}

async function build(input: ReportInput<ChangesOptions>): Promise<ReportBody<ChangesFacts>> {
  const { common } = input;
  const period = await periodOf(input);
  const lines = period.unknown === null ? await linesOf(input, period) : [];
  const rows = lines.map(rowOf);
  const periodRows: Row[] = [
    { item: 'From', value: period.since },
    { item: 'To', value: period.to },
    { item: 'Since', value: sinceWords(period) },
    { item: 'Chosen', value: period.note },
    ...(period.unknown === null ? [] : [{ item: 'Not known', value: period.unknown }]),
  ];
  const sheets: Sheet[] = [
    { name: 'By kind', columns: kindColumns, rows: kindRows(lines), totals: 'none' },
    { name: 'Period', columns: periodColumns, rows: periodRows, totals: 'none' },
  ];
  const warnings: string[] = [];
  if (period.unknown !== null) warnings.push(`NO CHANGES: ${period.unknown}`);
  if (input.scope !== null)
    warnings.push('Some orgs only: the mirror and tool lines (deletions, streams, write-backs) are left out');
  return {
    fileName: `${fileEnd(period.sinceMs, common.timezone)}-${fileEnd(period.toMs, common.timezone)}`,
    covers: periodWords({ fromMs: period.sinceMs, toMs: period.toMs }, common.timezone),
    detail: { name: 'Changes', columns: changeColumns, rows, totals: 'none', wrap: true },
    summaries: () => sheets,
    facts: (): ChangesFacts => ({
      sinceMs: period.sinceMs,
      toMs: period.toMs,
      lines: lines.length,
      counts: headlineCounts(lines),
      since: sinceWords(period),
      unknown: period.unknown,
    }),
    warnings: () => warnings,
    about: () => ({
      method: [
        ['Period', period.note],
        [
          'Method',
          "each line is a difference of the base reports' typed figures as of the two ends, compared by key (compliance's standing per employer, the catch-up plan per employer and test type, the ageing's invoices and A/R per employer, the order ageing's items), or what the A/R roll-forward over the period says of an invoice (payments, late fees, cancellations, restorations, balances unknown); a rate policy imported or changed is a line of its own, and a status or verdict that moved because the employer was scored on other rates is re-scored, never fell behind or recovered; the evidence columns name the base report, its sheet and the row's key at each end",
        ],
        [
          'Mirror and tool',
          "sync_deletion (records found deleted or seen again), sync_stream_run (runs not complete) and the outbox (write-backs applied, held or failed: each item in the state it had at the period's end, from the outbox's events) in the period",
        ],
      ],
      results: [['Lines', String(rows.length)]],
    }),
  };
}

export { changesOptions };
