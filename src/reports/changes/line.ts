import type { Row } from '../../render/types.js';

/**
 * How bad a change is, worst first: `action` a change for the worse that the base report calls
 * Action needed (a measured failure, a stuck order, A/R over 60 days above half); `worse` any
 * other change for the worse; `tool` what the mirror and this tool did or failed to do; `changed`
 * neither worse nor better (a cancellation, a status moving within its rank); `new` new business;
 * `better` a recovery, a payment, a completion.
 */
export const severities = ['action', 'worse', 'tool', 'changed', 'new', 'better'] as const;
export type Severity = (typeof severities)[number];

/** What the page and the headline call each severity. */
export const severityWords: Record<Severity, string> = {
  action: 'Action needed',
  worse: 'Worse',
  tool: 'Mirror and tool',
  changed: 'Changed',
  new: 'New',
  better: 'Better',
};

/** One change between the two ends of the period (a detail row of the report). */
export interface Change {
  severity: Severity;
  area: 'compliance' | 'receivables' | 'orders' | 'mirror';
  /** A stable code (columns.ts gives its words). */
  kind: string;
  orgId: number | null;
  org: string | null;
  /** What changed: a test type, an invoice, an order item, a product family, a table. */
  subject: string;
  before: string | null;
  after: string | null;
  /** Where the before value is: base report, sheet and key ("unpaid-invoices · Unpaid invoices · invoiceId 1042"). */
  evidenceBefore: string | null;
  evidenceAfter: string | null;
  /** How many records the line stands for (1, or the orders of a family, the records of a table). */
  count: number;
}

/** The evidence of a row: the base report, its sheet and the key, so the line resolves to the row. */
export function evidence(report: string, sheet: string, key: Record<string, string | number>): string {
  return `${report} · ${sheet} · ${Object.entries(key)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
}

const rank = new Map<Severity, number>(severities.map((s, i) => [s, i]));

/** Worst first; then by employer, kind and subject, so a run's order never depends on the data's. */
export function compareChanges(a: Change, b: Change): number {
  return (
    (rank.get(a.severity) ?? 9) - (rank.get(b.severity) ?? 9) ||
    text(a.org).localeCompare(text(b.org)) ||
    (a.orgId ?? -1) - (b.orgId ?? -1) ||
    a.kind.localeCompare(b.kind) ||
    naturalCompare(a.subject, b.subject)
  );
}

function text(v: string | null): string {
  return v ?? '';
}

function naturalCompare(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb)) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A number cell's value, or null. */
export function numOf(v: Row[string]): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** A text cell's value, or null. */
export function textOf(v: Row[string]): string | null {
  return typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null;
}
