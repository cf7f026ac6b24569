import { count, plural } from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { kindWords } from './columns.js';

/**
 * The counts a person reads first, from the report's lines: only counts, never a person or an
 * amount, so the notification and the webhook carry them too.
 */
export interface HeadlineCounts {
  /** Employers with a compliance status or catch-up verdict for the worse (re-scored ones apart). */
  employersFellBehind: number;
  /** Employers with one for the better (re-scored ones apart). */
  employersRecovered: number;
  /** Employers whose statuses or verdicts moved only because they were scored on other rates. */
  employersRescored: number;
  /** Policies imported, changed or removed in the period (one per employer). */
  policiesChanged: number;
  newDataProblems: number;
  invoicesPassed60: number;
  invoicesPassed90: number;
  invoicesPaid: number;
  balancesUnknown: number;
  lateFees: number;
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

const STANDING = ['COMPLIANCE_STATUS', 'CATCH_UP_VERDICT'];
const RESCORED = ['COMPLIANCE_RESCORED', 'CATCH_UP_RESCORED'];
const POLICY = ['POLICY_IMPORTED', 'POLICY_CHANGED', 'POLICY_REMOVED'];
const isWorse = (c: Counted) => c.severity === 'action' || c.severity === 'worse';
const orgsOf = (cs: readonly Counted[]) =>
  new Set(cs.map((c) => String(c.orgId ?? '')).filter((o) => o !== ''));

/**
 * The counts of the report's lines: employers counted once however many of their statuses and
 * verdicts moved (one that fell behind in one and recovered in another fell behind).
 */
export function headlineCounts(lines: readonly Counted[]): HeadlineCounts {
  const of = (pick: (c: Counted) => boolean) => lines.filter(pick);
  const kind =
    (...k: string[]) =>
    (c: Counted) =>
      k.includes(String(c.kind));
  const standing = kind(...STANDING);
  const fell = orgsOf(of((c) => standing(c) && isWorse(c)));
  const rose = [...orgsOf(of((c) => standing(c) && c.severity === 'better'))].filter((o) => !fell.has(o));
  const n = (pick: (c: Counted) => boolean) => of(pick).length;
  const records = (pick: (c: Counted) => boolean) => of(pick).reduce((a, c) => a + Number(c.count), 0);
  return {
    employersFellBehind: fell.size,
    employersRecovered: rose.length,
    employersRescored: orgsOf(of(kind(...RESCORED))).size,
    policiesChanged: n(kind(...POLICY)),
    newDataProblems: n(kind('PROBLEM_NEW')),
    invoicesPassed60: n(kind('INVOICE_OVER_60')),
    invoicesPassed90: n(kind('INVOICE_OVER_90')),
    invoicesPaid: n(kind('INVOICE_PAID_TOOL', 'INVOICE_PAID_ELSEWHERE')),
    balancesUnknown: n(kind('INVOICE_BALANCE_UNKNOWN')),
    lateFees: n(kind('INVOICE_LATE_FEE')),
    ordersStuck: n(kind('ORDER_STUCK')),
    ordersPastWarn: n(kind('ORDER_WARN')),
    writeBacksFailed: records(kind('WRITEBACK_FAILED')),
    writeBacksHeld: records(kind('WRITEBACK_HELD')),
    streamsIncomplete: n(kind('STREAM_INCOMPLETE')),
    lines: lines.length,
    actionNeeded: n((c) => c.severity === 'action'),
    worse: n(isWorse),
  };
}

/** A kind's lines counted in words ("3 invoices passed 90 days"); `n` lines, `orgs` employers, `records` records. */
type Said = (n: number, orgs: number, records: number) => string;
const kindSaid: Record<string, Said> = {
  COMPLIANCE_STATUS: (_n, o) => `${plural(o, 'employer')} fell behind`,
  CATCH_UP_VERDICT: (_n, o) => `${plural(o, 'employer')} fell behind`,
  COMPLIANCE_RESCORED: (_n, o) => `${plural(o, 'employer')} re-scored`,
  CATCH_UP_RESCORED: (_n, o) => `${plural(o, 'employer')} re-scored`,
  POLICY_IMPORTED: (n) => `${plural(n, 'policy', 'policies')} imported`,
  POLICY_CHANGED: (n) => `${plural(n, 'policy', 'policies')} changed`,
  POLICY_REMOVED: (n) => `${plural(n, 'policy', 'policies')} removed`,
  PROBLEM_NEW: (n) => plural(n, 'new data problem'),
  PROBLEM_CHANGED: (n) => `${plural(n, 'data problem')} grew`,
  PROBLEM_GONE: (n) => `${plural(n, 'data problem')} gone`,
  INVOICE_OVER_90: (n) => `${plural(n, 'invoice')} passed 90 days`,
  INVOICE_OVER_60: (n) => `${plural(n, 'invoice')} passed 60 days`,
  INVOICE_RESTORED: (n) => `${plural(n, 'invoice')} restored`,
  INVOICE_BALANCE_UNKNOWN: (n) => `${plural(n, 'invoice balance')} unknown`,
  INVOICE_BALANCE_READ: (n) => `${plural(n, 'invoice balance')} read again`,
  INVOICE_LATE_FEE: (n) => plural(n, 'late fee'),
  INVOICE_NEW: (n) => plural(n, 'new invoice'),
  INVOICE_PAID_TOOL: (n) => `${plural(n, 'invoice')} paid by this tool`,
  INVOICE_PAID_ELSEWHERE: (n) => `${plural(n, 'invoice')} paid or credited elsewhere`,
  INVOICE_CANCELLED: (n) => `${plural(n, 'invoice')} cancelled`,
  INVOICE_REMOVED: (n) => `${plural(n, 'invoice')} gone from the service`,
  AR_EMPLOYER: (n) => `A/R over 60 days up for ${plural(n, 'employer')}`,
  AR_TOTAL: () => 'A/R over 60 days up in total',
  ORDER_STUCK: (n) => `${plural(n, 'order')} stuck`,
  ORDER_WARN: (n) => `${plural(n, 'order')} past warning age`,
  ORDER_EASED: (n) => `${plural(n, 'order')} eased`,
  ORDER_COMPLETED: (n) => `${plural(n, 'order')} completed`,
  ORDERS_NEW: (_n, _o, r) => plural(r, 'new order'),
  STREAM_INCOMPLETE: (n) => `${plural(n, 'stream')} incomplete`,
  WRITEBACK_FAILED: (_n, _o, r) => `${plural(r, 'write-back')} failed`,
  WRITEBACK_HELD: (_n, _o, r) => `${plural(r, 'write-back')} held`,
  WRITEBACK_APPLIED: (_n, _o, r) => `${plural(r, 'write-back')} applied`,
};

/**
 * The lines of some severities counted by kind, in words, in the lines' order (worst first):
 * kinds that say the same thing (an employer fell behind in compliance and in catch-up) are one
 * part, its employers counted once.
 */
export function partsOf(lines: readonly Counted[], severities: readonly string[]): string[] {
  const groups = new Map<string, { said: Said; lines: Counted[] }>();
  for (const c of lines) {
    if (!severities.includes(c.severity)) continue;
    const said = kindSaid[c.kind] ?? ((n: number) => `${count(n)} × ${kindWords[c.kind] ?? c.kind}`);
    // One part per wording: compliance and catch-up lines of an employer are one employer.
    const key = said(1, 1, 1);
    const g = groups.get(key) ?? { said, lines: [] };
    g.lines.push(c);
    groups.set(key, g);
  }
  return [...groups.values()].map((g) =>
    g.said(
      g.lines.length,
      orgsOf(g.lines).size,
      g.lines.reduce((a, c) => a + Number(c.count), 0),
    ),
  );
}

/** What got worse, by kind: the verdict's lines, and what the headline leads with. */
export function worseParts(lines: readonly Counted[]): string[] {
  return partsOf(lines, ['action', 'worse', 'tool']);
}

/**
 * The headline: what got worse first, in counts by kind (each also a line of the verdict), then
 * what is new or changed, then what got better: "since the last run (…): 2 employers fell behind,
 * 5 orders stuck; new: 3 new invoices; better: 4 invoices paid by this tool"; "nothing changed
 * since …" for an empty period.
 */
export function headlineOf(lines: readonly Counted[], since: string): string {
  if (lines.length === 0) return `nothing changed ${since}`;
  const worse = worseParts(lines);
  const other = partsOf(lines, ['changed', 'new']);
  const better = partsOf(lines, ['better']);
  const said = [
    worse.length === 0 ? 'nothing for the worse' : worse.join(', '),
    ...(other.length === 0 ? [] : [`new or changed: ${other.slice(0, 4).join(', ')}`]),
    ...(better.length === 0 ? [] : [`better: ${better.slice(0, 4).join(', ')}`]),
  ];
  return `${since}: ${said.join('; ')}`;
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
