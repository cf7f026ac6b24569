import { plural } from '../../render/html/summary.js';
import type { Row, Sheet } from '../../render/types.js';
import type { ReportBody, ReportDeclaration, ReportInput } from '../core/types.js';
import { compareOrgs, listSome } from '../core/values.js';
import { agingBuckets } from '../unpaid-invoices/buckets.js';
import { classify } from '../unpaid-invoices/classify.js';
import { invoiceRows, invoiceVersions } from '../unpaid-invoices/queries.js';
import { summarise } from '../unpaid-invoices/summary.js';
import { aboutLines } from './about.js';
import { detailColumns, LINES, lineColumns, NO_WRITE_OFF, SHORTENED, UNKNOWN_PERIOD } from './columns.js';
import { type Checks, type RollforwardProduct, rollforwardFacts, type Totals } from './facts.js';
import { arRollforwardHtml } from './html.js';
import {
  AgeingReader,
  blankMovement,
  gap,
  invoiceMovements,
  movementKeys,
  movementRow,
} from './movements.js';
import { type ArRollforwardOptions, arRollforwardOptions } from './options.js';
import { appliedPayments, paymentColumns, RESULTS, reconcile } from './payments.js';
import { fileEnd, type Period, periodOf, periodWords } from './period.js';

/**
 * The A/R roll-forward (docs/reports.md): from the invoice history, how the A/R of `from` became
 * the A/R of `to`: new invoices, increases, decreases (payments this tool applied and the rest),
 * cancellations, restorations. Opening and closing are the unpaid-invoices ageing's own net
 * totals as of those instants, computed by its code, and the report checks that the lines
 * reconcile to them to the cent; beside it, each payment write-back applied in the period
 * against the balance change seen after it.
 */
export const arRollforwardReport: ReportDeclaration<
  typeof arRollforwardOptions,
  'ar-rollforward',
  RollforwardProduct
> = {
  name: 'ar-rollforward',
  title: 'A/R roll-forward',
  description:
    "How the open A/R at the start of a period became the A/R at its end, from the mirror's invoice history: new invoices, increases, decreases (payments applied by this tool and elsewhere), cancellations, restorations; reconciled to the cent with the ageing's totals, and each payment write-back matched with the change seen.",
  options: arRollforwardOptions,
  flags: [
    {
      name: 'from',
      value: 'instant',
      description: 'start of the period (default: the start of the month the period ends in)',
      option: 'from',
      example: '2026-10-01',
    },
    {
      name: 'to',
      value: 'instant',
      description:
        'end of the period (default: --as-of-time; with --from alone, now; else the start of the as-of month)',
      option: 'to',
      example: '2026-11-01',
    },
  ],
  streams: ['invoice'],
  build,
  html: arRollforwardHtml,
};

/** The unpaid-invoices ageing as of an instant, its own query, classify and summary: net total and credits. */
async function ageingTotal(input: ReportInput<ArRollforwardOptions>, reader: AgeingReader, instant: string) {
  const { db, scope, names, opts } = input;
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  const c = classify(await invoiceRows(db, instant), scope, names, reader.at(instant), opts, buckets);
  // The ageing's typed totals (never its By org sheet's Total row).
  const { facts } = summarise(c.open, [], buckets, 'total');
  return { total: facts.openBalance, credits: facts.credits };
}

async function build(input: ReportInput<ArRollforwardOptions>): Promise<ReportBody<RollforwardProduct>> {
  const { db, common, opts, scope, names, params } = input;
  const period = await periodOf(db, common, opts, params.time);
  // Both ends in the file name: two periods of one day never overwrite each other.
  const fileName = `${fileEnd(period.fromMs, common.timezone)}-${fileEnd(period.toMs, common.timezone)}`;
  // The page's header names the period, not an as-of.
  const covers = periodWords(period, common.timezone);
  if (period.unknown !== null) return { ...unknownBody(period, fileName), covers };
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

  const total = lineTotals(rows);
  const opening = await ageingTotal(input, reader, period.from);
  const closing = await ageingTotal(input, reader, period.to);
  // Only what the mirror knew by the period's end: asked again after a later sync, the same bytes.
  const reconciliation = await reconcile(db, payments, period.to);
  const checks = {
    lines: gap(total),
    opening: total.opening - opening.total,
    closing: total.closing - closing.total,
    openingCredits: total.openingCredits - opening.credits,
    closingCredits: total.closingCredits - closing.credits,
  };
  const lineRows: Row[] = [
    { line: period.shortened === null ? 'Period' : SHORTENED, rule: period.note },
    ...LINES.map(({ key, label, rule }) => ({
      line: label,
      amount: total[key],
      invoices: rows.filter((r) => r[key] !== 0 && r[key] !== undefined).length,
      rule,
    })),
    { line: 'Write-offs', rule: NO_WRITE_OFF },
    ...checkRows(period, opening, closing, checks),
  ];
  const warnings = warningsOf(period, checks, rows, reconciliation);
  const sheets: Sheet[] = [
    { name: 'Roll-forward', columns: lineColumns, rows: lineRows, totals: 'none', wrap: true },
    { name: 'Payments applied', columns: paymentColumns, rows: reconciliation, totals: 'none' },
  ];
  return {
    fileName,
    covers,
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
    facts: (): RollforwardProduct => ({
      ...rollforwardFacts(total, checks, reconciliation, period),
      shortened: period.shortened !== null,
      lines: lineRows,
    }),
    warnings: () => warnings,
    about: () =>
      aboutLines(period, opts, {
        invoices: rows.length,
        payments: payments.length,
        versions: versions.length,
      }),
  };
}

/** Each line's total over the invoices' rows; opening and closing split into owed and credits. */
function lineTotals(rows: readonly Row[]): Totals {
  const total: Totals = {
    ...blankMovement(),
    decreasesApplied: 0,
    decreasesElsewhere: 0,
    openingOwed: 0,
    openingCredits: 0,
    closingOwed: 0,
    closingCredits: 0,
  };
  for (const r of rows) {
    for (const k of movementKeys) total[k] += r[k] as number;
    total.decreasesApplied += r.decreasesApplied as number;
    total.decreasesElsewhere += r.decreasesElsewhere as number;
    const opening = r.opening as number;
    const closing = r.closing as number;
    if (opening > 0) total.openingOwed += opening;
    else total.openingCredits += opening;
    if (closing > 0) total.closingOwed += closing;
    else total.closingCredits += closing;
  }
  return total;
}

/** The checks (each must be 0, coloured when not) and the ageing's own totals they compare with. */
function checkRows(
  period: Period,
  opening: { total: number; credits: number },
  closing: { total: number; credits: number },
  checks: Checks,
): Row[] {
  const at = (end: string, instant: string) =>
    `the ageing's own query, classification and total as of ${end} (${instant})`;
  return [
    {
      line: 'Check: opening + every line − closing',
      check: checks.lines,
      rule: 'opening + new + found + late fees + other increases − decreases − cancellations + restorations − removed − balance unknown − closing: the lines reconcile to the cent',
    },
    {
      line: 'Ageing net total as of the start (unpaid-invoices)',
      amount: opening.total,
      rule: at('the start', period.from),
    },
    {
      line: 'Check: opening − the ageing as of the start',
      check: checks.opening,
      rule: 'the opening is the ageing',
    },
    {
      line: "Check: opening credit balances − the ageing's Credits",
      check: checks.openingCredits,
      rule: "the credit balances at the start are the ageing's Credits column",
    },
    {
      line: 'Ageing net total as of the end (unpaid-invoices)',
      amount: closing.total,
      rule: at('the end', period.to),
    },
    {
      line: 'Check: closing − the ageing as of the end',
      check: checks.closing,
      rule: 'the closing is the ageing',
    },
    {
      line: "Check: closing credit balances − the ageing's Credits",
      check: checks.closingCredits,
      rule: "the credit balances at the end are the ageing's Credits column",
    },
  ];
}

/** The warnings: a reconciliation failure first (a report fault), then what needs a look. */
function warningsOf(
  period: Period,
  checks: Checks,
  rows: readonly Row[],
  reconciliation: readonly Row[],
): string[] {
  const warnings: string[] = period.shortened === null ? [] : [`PERIOD SHORTENED: ${period.shortened}`];
  if (Object.values(checks).some((c) => c !== 0))
    warnings.push(
      `RECONCILIATION FAILED: the lines are off by ${checks.lines} cent(s), the opening differs from the ageing by ${checks.opening}, the closing by ${checks.closing}, the credit balances by ${checks.openingCredits} and ${checks.closingCredits}: a fault of this report, not of the data; do not use these figures`,
    );
  const found = rows.filter((r) => r.found !== 0).map((r) => String(r.invoiceId));
  if (found.length > 0)
    warnings.push(
      `${plural(found.length, 'invoice')} first seen in the period although dated before it (found, dated earlier; not counted as new): ${listSome(found)}`,
    );
  const unknown = rows.filter((r) => r.unknown !== 0).map((r) => String(r.invoiceId));
  if (unknown.length > 0)
    warnings.push(
      `${plural(unknown.length, 'invoice')} whose balance turned unknown (null or unreadable) or was read again in the period: held apart as balance unknown, never counted as paid or credited: ${listSome(unknown)}`,
    );
  const unseen = reconciliation.filter((r) => r.result === RESULTS.notSeen).length;
  if (unseen > 0)
    warnings.push(
      `${plural(unseen, 'payment')} applied by this tool not seen yet: no complete invoice sync after ${unseen === 1 ? 'it' : 'them'}`,
    );
  const differ = reconciliation
    .filter((r) => r.result === RESULTS.different)
    .map((r) => `outbox ${r.outboxId} (invoice ${r.invoiceId})`);
  if (differ.length > 0)
    warnings.push(
      `${plural(differ.length, 'payment')} applied by this tool whose invoice changed by another amount after ${differ.length === 1 ? 'it' : 'them'}: ${listSome(differ)}`,
    );
  return warnings;
}

/** No history to read: one line saying so, no figure (the page: needs attention). */
function unknownBody(period: Period, fileName: string): ReportBody<RollforwardProduct> {
  return {
    fileName,
    detail: { name: 'Invoice movements', columns: detailColumns, rows: [] },
    summaries: () => [
      {
        name: 'Roll-forward',
        columns: lineColumns,
        rows: [
          { line: UNKNOWN_PERIOD, rule: period.note },
          { line: 'Write-offs', rule: NO_WRITE_OFF },
        ],
        totals: 'none',
        wrap: true,
      },
    ],
    warnings: () => [`NO ROLL-FORWARD: ${period.note}`],
    about: () => ({ method: [['Period', period.note]], results: [] }),
  };
}

export { arRollforwardOptions };
