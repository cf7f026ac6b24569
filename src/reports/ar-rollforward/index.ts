import type { Row, Sheet } from '../../render/types.js';
import type { ReportBody, ReportDeclaration, ReportInput } from '../types.js';
import { agingBuckets } from '../unpaid-invoices/buckets.js';
import { classify } from '../unpaid-invoices/classify.js';
import { invoiceRows, invoiceVersions } from '../unpaid-invoices/queries.js';
import { summarise } from '../unpaid-invoices/summary.js';
import { compareOrgs, listSome } from '../values.js';
import { aboutLines } from './about.js';
import { detailColumns, LINES, lineColumns, SHORTENED, UNKNOWN_PERIOD } from './columns.js';
import { arRollforwardHtml } from './html.js';
import {
  AgeingReader,
  blankMovement,
  gap,
  type InvoiceMovement,
  invoiceMovements,
  type Movement,
  movementKeys,
  movementRow,
} from './movements.js';
import { type ArRollforwardOptions, arRollforwardOptions } from './options.js';
import { appliedPayments, paymentColumns, RESULTS, reconcile } from './payments.js';
import { type Period, periodOf } from './period.js';

/**
 * The A/R roll-forward (docs/reports.md): from the invoice history, how the A/R of `from` became
 * the A/R of `to`: new invoices, increases, decreases (payments this tool applied and the rest),
 * cancellations, restorations. Opening and closing are the unpaid-invoices ageing's own net
 * totals as of those instants, computed by its code, and the report checks that the lines
 * reconcile to them to the cent; beside it, each payment write-back applied in the period
 * against the balance change seen after it.
 */
export const arRollforwardReport: ReportDeclaration<typeof arRollforwardOptions, 'ar-rollforward'> = {
  name: 'ar-rollforward',
  title: 'A/R roll-forward',
  description:
    "How the open A/R at the start of a period became the A/R at its end, from the mirror's invoice history: new invoices, increases, decreases (payments applied by this tool and elsewhere), cancellations, restorations; reconciled to the cent with the ageing's totals, and each payment write-back matched with the change seen.",
  options: arRollforwardOptions,
  streams: ['invoice'],
  build,
  html: arRollforwardHtml,
};

/** The unpaid-invoices ageing's net total as of an instant: its own query, classify and summary. */
async function ageingTotal(input: ReportInput<ArRollforwardOptions>, reader: AgeingReader, instant: string) {
  const { db, scope, names, opts } = input;
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const c = classify(await invoiceRows(db, instant), scope, names, reader.at(instant), opts, buckets);
  const { byOrg } = summarise(c.open, [], buckets, 'total');
  const grand = byOrg[byOrg.length - 1];
  return typeof grand?.total === 'number' ? grand.total : 0;
}

async function build(input: ReportInput<ArRollforwardOptions>) {
  const { db, common, opts, scope, names } = input;
  const period = await periodOf(db, common, opts);
  if (period.unknown !== null) return unknownBody(period);
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const reader = new AgeingReader(common, opts, buckets, scope, names);
  const versions = await invoiceVersions(db, period.from, period.to, true);
  const moves = invoiceMovements(versions, period.from, period.to, reader);
  const payments = await appliedPayments(db, period.from, period.to);
  const toolBy = new Map<string, number>();
  for (const p of payments) toolBy.set(p.invoiceId, (toolBy.get(p.invoiceId) ?? 0) + p.amount);
  for (const m of moves) m.org = (m.orgId === null ? undefined : names.get(m.orgId)) ?? m.org;
  moves.sort((a, b) => compareOrgs(a, b) || Number(a.id) - Number(b.id) || (a.id < b.id ? -1 : 1));
  const rows = moves.map((m) => movementRow(m, toolBy.get(m.id) ?? 0));

  const total: Movement = blankMovement();
  let applied = 0;
  for (const r of rows) {
    for (const k of movementKeys) total[k] += r[k] as number;
    applied += r.decreasesApplied as number;
  }
  const opening = await ageingTotal(input, reader, period.from);
  const closing = await ageingTotal(input, reader, period.to);
  const reconciliation = await reconcile(db, payments);
  const checks = {
    lines: gap(total),
    opening: total.opening - opening,
    closing: total.closing - closing,
  };
  const lineRows: Row[] = [
    {
      line: period.shortened === null ? 'Period' : SHORTENED,
      amount: null,
      invoices: null,
      rule: period.note,
    },
    ...LINES.map(({ key, label, rule }) => ({
      line: label,
      amount:
        key === 'decreasesApplied'
          ? applied
          : key === 'decreasesElsewhere'
            ? total.decreases - applied
            : total[key],
      invoices: rows.filter((r) => r[key] !== 0).length,
      rule,
    })),
    ...checkRows(period, opening, closing, checks),
  ];
  const warnings = warningsOf(period, checks, moves, reconciliation);
  const sheets: Sheet[] = [
    { name: 'Roll-forward', columns: lineColumns, rows: lineRows, totals: 'none', wrap: true },
    { name: 'Payments applied', columns: paymentColumns, rows: reconciliation, totals: 'none' },
  ];
  return {
    detail: {
      name: 'Invoice movements',
      columns: detailColumns,
      rows,
      subtotals: {
        by: 'orgId',
        label: 'org',
        sum: [...movementKeys, 'decreasesApplied', 'decreasesElsewhere'],
      },
    },
    summaries: () => sheets,
    warnings: () => warnings,
    about: () =>
      aboutLines(period, opts, {
        invoices: rows.length,
        payments: payments.length,
        versions: versions.length,
      }),
  };
}

/** The three checks (each must be 0) and the ageing's own totals they compare with. */
function checkRows(
  period: Period,
  opening: number,
  closing: number,
  checks: { lines: number; opening: number; closing: number },
): Row[] {
  return [
    {
      line: 'Check: opening + new + increases − decreases − cancellations + restorations − removed − closing',
      amount: checks.lines,
      invoices: null,
      rule: 'must be 0.00: the lines reconcile to the cent',
    },
    {
      line: 'Ageing net total as of the start (unpaid-invoices)',
      amount: opening,
      invoices: null,
      rule: `the ageing's own query, classification and total as of ${period.from}`,
    },
    {
      line: 'Check: opening − the ageing as of the start',
      amount: checks.opening,
      invoices: null,
      rule: 'must be 0.00',
    },
    {
      line: 'Ageing net total as of the end (unpaid-invoices)',
      amount: closing,
      invoices: null,
      rule: `the ageing's own query, classification and total as of ${period.to}`,
    },
    {
      line: 'Check: closing − the ageing as of the end',
      amount: checks.closing,
      invoices: null,
      rule: 'must be 0.00',
    },
  ];
}

/** The warnings: a reconciliation failure first (a report fault), then what needs a look. */
function warningsOf(
  period: Period,
  checks: { lines: number; opening: number; closing: number },
  moves: readonly InvoiceMovement[],
  reconciliation: readonly Row[],
): string[] {
  const warnings: string[] = period.shortened === null ? [] : [`PERIOD SHORTENED: ${period.shortened}`];
  if (checks.lines !== 0 || checks.opening !== 0 || checks.closing !== 0)
    warnings.push(
      `RECONCILIATION FAILED: the lines are off by ${checks.lines} cent(s), the opening differs from the ageing by ${checks.opening} and the closing by ${checks.closing}: a fault of this report, not of the data; do not use these figures`,
    );
  const late = moves.filter((m) => m.newBeforePeriod).map((m) => m.id);
  if (late.length > 0)
    warnings.push(
      `${late.length} invoice(s) first seen in the period although dated before it, counted as new: ${listSome(late)}`,
    );
  const unseen = reconciliation.filter((r) => r.result === RESULTS.notSeen).length;
  if (unseen > 0)
    warnings.push(
      `${unseen} payment(s) applied by this tool not seen yet: no complete invoice sync after them`,
    );
  const differ = reconciliation
    .filter((r) => r.result === RESULTS.different)
    .map((r) => `outbox ${r.outboxId} (invoice ${r.invoiceId})`);
  if (differ.length > 0)
    warnings.push(
      `${differ.length} payment(s) applied by this tool whose invoice changed by another amount after them: ${listSome(differ)}`,
    );
  return warnings;
}

/** No history to read: one line saying so, no figure (the page: needs attention). */
function unknownBody(period: Period): ReportBody {
  return {
    detail: { name: 'Invoice movements', columns: detailColumns, rows: [] },
    summaries: () => [
      {
        name: 'Roll-forward',
        columns: lineColumns,
        rows: [{ line: UNKNOWN_PERIOD, amount: null, invoices: null, rule: period.note }],
        totals: 'none',
        wrap: true,
      },
    ],
    warnings: () => [`NO ROLL-FORWARD: ${period.note}`],
    about: () => ({ method: [['Period', period.note]], results: [] }),
  };
}

export { arRollforwardOptions };
