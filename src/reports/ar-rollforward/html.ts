import type { Chart } from '../../render/html/charts.js';
import {
  count,
  type Figure,
  level,
  money,
  palette,
  plural,
  type SummaryBuilder,
} from '../../render/html/summary.js';
import { DOWN, LINES, NO_WRITE_OFF, STEPS } from './columns.js';
import type { RollforwardFacts, RollforwardProduct } from './facts.js';
import { RESULTS } from './payments.js';

/**
 * The roll-forward page's summary: the lines as figures, a waterfall from opening to closing,
 * the reconciliation checks and the payments' results, all from the report's typed product
 * (`RollforwardProduct`: each line by its key, whether the period was shortened; the workbook's
 * rows made from the same object), never a sheet or a row found by its name or label (two lines share "of which credit balances"). Action
 * needed when a check is not zero (a report fault); needs attention when a payment is not seen
 * yet or differs, the period was shortened, or a balance is held apart as unknown.
 */
export function arRollforwardHtml(): SummaryBuilder<RollforwardProduct> {
  return {
    onRow() {},
    build(facts) {
      // A period with no history publishes no product: no figure.
      if (facts === undefined)
        return {
          status: 'warn',
          problems: ['no roll-forward: the mirror has no history yet'],
          figures: [{ label: 'Roll-forward', value: 'not known' }],
          charts: [waterfall(undefined)],
        };
      const checks = [
        facts.checkLines,
        facts.checkOpening,
        facts.checkClosing,
        facts.checkOpeningCredits,
        facts.checkClosingCredits,
      ];
      const off = checks.some((c) => c !== 0);
      const shortened = facts.shortened;
      const unseen = facts.paymentsNotSeen;
      const differ = facts.paymentsDifferent;
      const problems = [
        ...(off ? ["the roll-forward does not reconcile with the ageing's totals (a report fault)"] : []),
        ...(differ > 0
          ? [`${plural(differ, 'payment')} applied whose invoice changed by another amount`]
          : []),
        ...(unseen > 0 ? [`${plural(unseen, 'payment')} applied not seen by a sync yet`] : []),
        ...(shortened ? ["the period is shortened: it starts at the mirror's history"] : []),
        ...(facts.unknown !== 0
          ? [
              `${money(facts.unknown)} held apart as balance unknown (a balance turned null or unreadable): never counted as paid or credited`,
            ]
          : []),
      ];
      const results: [string, number][] = [
        [RESULTS.matched, facts.paymentsMatched],
        [RESULTS.notSeen, unseen],
        [RESULTS.different, differ],
      ];
      return {
        status: level(off, differ > 0 || unseen > 0 || shortened || facts.unknown !== 0),
        problems,
        counts: results.map(([status, n]) => ({ group: 'payments applied', status, count: n, assumed: 0 })),
        figures: rollforwardFigures(facts, off),
        charts: [waterfall(facts)],
      };
    },
  };
}

/** The page's figures: the lines as they read (the "of which" parts named on their own). */
export function rollforwardFigures(facts: RollforwardFacts, off: boolean): Figure[] {
  return [
    ...LINES.filter((l) => !l.label.startsWith(' ')).map((l) => ({
      label: l.label.trim(),
      value: money(facts[l.key]),
    })),
    { label: 'Decreases applied by this tool', value: money(facts.decreasesApplied) },
    { label: 'Credit balances at the start', value: money(facts.openingCredits) },
    { label: 'Credit balances at the end', value: money(facts.closingCredits) },
    { label: 'Reconciles to the cent', value: off ? 'no' : 'yes' },
    { label: 'Payments applied: matched', value: count(facts.paymentsMatched) },
  ];
}

/**
 * The roll-forward as a waterfall: opening, each movement as a step up or down from where the
 * last one ended, closing. Amounts in dollars (the lines' cents / 100); lines of 0 are left out.
 */
function waterfall(facts: RollforwardFacts | undefined): Chart {
  const amountOf = (key: (typeof STEPS)[number] | 'opening' | 'closing') => facts?.[key] ?? 0;
  const labelOf = (key: string) =>
    (LINES.find((l) => l.key === key)?.label ?? key).replace(/^\s*(of which\s*)?/, '').trim();
  const opening = amountOf('opening');
  const values: { step: string; start: number; end: number; kind: string; amount: string }[] = [
    { step: 'Opening A/R', start: 0, end: opening / 100, kind: 'balance', amount: money(opening) },
  ];
  let level = opening;
  for (const key of STEPS) {
    const cents = amountOf(key);
    if (cents === 0) continue;
    const next = DOWN.has(key) ? level - cents : level + cents;
    const label =
      key === 'decreasesApplied'
        ? 'Payments applied here'
        : key === 'decreasesElsewhere'
          ? 'Decreases elsewhere'
          : labelOf(key);
    values.push({
      step: label,
      start: level / 100,
      end: next / 100,
      kind: DOWN.has(key) ? 'down' : 'up',
      amount: `${DOWN.has(key) ? '−' : '+'}${money(cents)}`,
    });
    level = next;
  }
  const closing = amountOf('closing');
  values.push({ step: 'Closing A/R', start: 0, end: closing / 100, kind: 'balance', amount: money(closing) });
  const moves = values.slice(1, -1).map((v) => `${v.step} ${v.amount}`);
  return {
    id: 'chart-waterfall',
    title: 'From opening to closing A/R',
    description: `Opening A/R ${money(opening)}; ${moves.length === 0 ? 'no movement' : moves.join('; ')}; closing A/R ${money(closing)}. ${NO_WRITE_OFF}`,
    spec: {
      data: { values },
      width: 520,
      height: 220,
      mark: { type: 'bar' },
      encoding: {
        x: {
          field: 'step',
          type: 'ordinal',
          sort: null,
          title: null,
          axis: { labelAngle: -30, labelLimit: 140 },
        },
        y: { field: 'start', type: 'quantitative', title: 'A/R ($)' },
        y2: { field: 'end' },
        color: {
          field: 'kind',
          type: 'nominal',
          title: null,
          scale: {
            domain: ['balance', 'up', 'down'],
            range: [palette.blue, palette.orange, palette.green],
          },
        },
        tooltip: [
          { field: 'step', type: 'nominal' },
          { field: 'amount', type: 'nominal' },
        ],
      },
    },
  };
}
