import { count, level, money, num, type SummaryBuilder, sheet } from '../../render/html/summary.js';
import { LINES, SHORTENED, UNKNOWN_PERIOD } from './columns.js';
import { RESULTS } from './payments.js';

/**
 * The roll-forward page's summary: the lines as figures (read from the Roll-forward sheet, the
 * workbook's own rows), the reconciliation checks and the payments' results. Action needed when a
 * check is not zero (a report fault); needs attention when a payment is not seen yet or differs.
 */
export function arRollforwardHtml(): SummaryBuilder {
  return {
    onRow() {},
    build(sheets) {
      const lines = sheet(sheets, 'Roll-forward')?.rows ?? [];
      const payments = sheet(sheets, 'Payments applied')?.rows ?? [];
      if (lines.some((r) => r.line === UNKNOWN_PERIOD))
        return {
          status: 'warn',
          problems: ['no roll-forward: the mirror has no history yet'],
          figures: [{ label: 'Roll-forward', value: 'not known' }],
          charts: [],
        };
      // Every check line must be zero, and all three must be there.
      const checks = lines.filter((r) => String(r.line).startsWith('Check:'));
      const off = checks.length !== 3 || checks.some((r) => num(r.amount) !== 0);
      const lineOf = (label: string) => lines.find((r) => r.line === label);
      const shortened = lineOf(SHORTENED) !== undefined;
      const n = (result: string) => payments.filter((p) => p.result === result).length;
      const unseen = n(RESULTS.notSeen);
      const differ = n(RESULTS.different);
      const problems = [
        ...(off ? ["the roll-forward does not reconcile with the ageing's totals (a report fault)"] : []),
        ...(differ > 0
          ? [`${count(differ)} payment(s) applied whose invoice changed by another amount`]
          : []),
        ...(unseen > 0 ? [`${count(unseen)} payment(s) applied not seen by a sync yet`] : []),
        ...(shortened ? ["the period is shortened: the month starts before the mirror's history"] : []),
      ];
      return {
        status: level(off, differ > 0 || unseen > 0 || shortened),
        problems,
        counts: [RESULTS.matched, RESULTS.notSeen, RESULTS.different].map((status) => ({
          group: 'payments applied',
          status,
          count: n(status),
          assumed: 0,
        })),
        figures: [
          ...LINES.map((l) => ({ label: l.label.trim(), value: money(lineOf(l.label)?.amount) })),
          { label: 'Reconciles to the cent', value: off ? 'no' : 'yes' },
          { label: 'Payments applied: matched', value: count(n(RESULTS.matched)) },
        ],
        charts: [],
      };
    },
  };
}
