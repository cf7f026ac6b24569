import { count, plural } from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';

/**
 * The counts a person reads first, from the By kind sheet (or a CSV's lines counted the same way):
 * only counts, never a person or an amount, so the notification and the webhook carry them too.
 */
export interface HeadlineCounts {
  /** Employers with a compliance status or catch-up verdict for the worse. */
  employersFellBehind: number;
  /** Employers with one for the better. */
  employersRecovered: number;
  newDataProblems: number;
  invoicesPassed60: number;
  invoicesPassed90: number;
  invoicesPaid: number;
  ordersStuck: number;
  ordersPastWarn: number;
  writeBacksFailed: number;
  writeBacksHeld: number;
  streamsIncomplete: number;
  /** Every line of the report. */
  lines: number;
  /** Lines for the worse that the base reports call Action needed. */
  actionNeeded: number;
  /** Lines for the worse, those needing action included. */
  worse: number;
}

/**
 * The counts of the report's lines (its detail rows, or its CSV read back): employers counted
 * once however many of their statuses and verdicts moved (one that fell behind in one and
 * recovered in another fell behind).
 */
export function headlineCounts(lines: readonly Counted[]): HeadlineCounts {
  const of = (pick: (c: Counted) => boolean) => lines.filter(pick);
  const kind =
    (...k: string[]) =>
    (c: Counted) =>
      k.includes(String(c.kind));
  const worse = (c: Counted) => c.severity === 'action' || c.severity === 'worse';
  const standing = kind('COMPLIANCE_STATUS', 'CATCH_UP_VERDICT');
  const orgs = (cs: readonly Counted[]) =>
    new Set(cs.map((c) => String(c.orgId ?? '')).filter((o) => o !== ''));
  const fell = orgs(of((c) => standing(c) && worse(c)));
  const rose = [...orgs(of((c) => standing(c) && c.severity === 'better'))].filter((o) => !fell.has(o));
  const n = (pick: (c: Counted) => boolean) => of(pick).length;
  const records = (pick: (c: Counted) => boolean) => of(pick).reduce((a, c) => a + Number(c.count), 0);
  return {
    employersFellBehind: fell.size,
    employersRecovered: rose.length,
    newDataProblems: n(kind('PROBLEM_NEW')),
    invoicesPassed60: n(kind('INVOICE_OVER_60')),
    invoicesPassed90: n(kind('INVOICE_OVER_90')),
    invoicesPaid: n(kind('INVOICE_PAID_TOOL', 'INVOICE_PAID_ELSEWHERE')),
    ordersStuck: n(kind('ORDER_STUCK')),
    ordersPastWarn: n(kind('ORDER_WARN')),
    writeBacksFailed: records(kind('WRITEBACK_FAILED')),
    writeBacksHeld: records(kind('WRITEBACK_HELD')),
    streamsIncomplete: n(kind('STREAM_INCOMPLETE')),
    lines: lines.length,
    actionNeeded: n((c) => c.severity === 'action'),
    worse: n(worse),
  };
}

/**
 * The headline: "since the last run (2026-11-27T02:10:00Z): 3 employers fell behind, 12 invoices
 * passed 90 days, 4 orders stuck"; "nothing changed since …" for an empty period.
 */
export function headlineOf(c: HeadlineCounts, since: string): string {
  if (c.lines === 0) return `nothing changed ${since}`;
  const parts = [
    c.employersFellBehind > 0 ? `${plural(c.employersFellBehind, 'employer')} fell behind` : '',
    c.ordersStuck > 0 ? `${plural(c.ordersStuck, 'order')} stuck` : '',
    c.invoicesPassed90 > 0 ? `${plural(c.invoicesPassed90, 'invoice')} passed 90 days` : '',
    c.invoicesPassed60 > 0 ? `${plural(c.invoicesPassed60, 'invoice')} passed 60 days` : '',
    c.newDataProblems > 0 ? `${plural(c.newDataProblems, 'new data problem')}` : '',
    c.writeBacksFailed > 0 ? `${plural(c.writeBacksFailed, 'write-back')} failed` : '',
    c.writeBacksHeld > 0 ? `${plural(c.writeBacksHeld, 'write-back')} held` : '',
    c.streamsIncomplete > 0 ? `${plural(c.streamsIncomplete, 'stream')} incomplete` : '',
    c.ordersPastWarn > 0 ? `${plural(c.ordersPastWarn, 'order')} past warning age` : '',
    c.employersRecovered > 0 ? `${plural(c.employersRecovered, 'employer')} recovered` : '',
    c.invoicesPaid > 0 ? `${plural(c.invoicesPaid, 'invoice')} paid` : '',
  ].filter((p) => p !== '');
  const said =
    parts.length === 0
      ? `${plural(c.lines, 'change')}, ${c.worse === 0 ? 'none' : count(c.worse)} for the worse`
      : parts.slice(0, 5).join(', ');
  return `${since}: ${said}`;
}

/** A line as the By kind sheet counts it (a Change, or a row of the report's CSV read back). */
export interface Counted {
  severity: string;
  kind: string;
  orgId: number | string | null;
  count: number | string;
}

/** Lines, records and employers per severity and kind, in the lines' order (the By kind sheet). */
export function kindRows(lines: Iterable<Counted>): Row[] {
  const out = new Map<string, { row: Row; orgs: Set<string> }>();
  for (const c of lines) {
    const k = `${c.severity}\u0000${c.kind}`;
    const g = out.get(k) ?? {
      row: { severity: c.severity, kind: c.kind, lines: 0, records: 0 },
      orgs: new Set(),
    };
    g.row.lines = (g.row.lines as number) + 1;
    g.row.records = (g.row.records as number) + Number(c.count);
    if (c.orgId !== null && c.orgId !== '') g.orgs.add(String(c.orgId));
    out.set(k, g);
  }
  return [...out.values()].map((g) => ({ ...g.row, employers: g.orgs.size }));
}
