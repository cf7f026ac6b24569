import { money } from '../../render/html/summary.js';
import type { Row } from '../../render/types.js';
import { STEPS } from '../ar-rollforward/columns.js';
import { arRollforwardReport } from '../ar-rollforward/index.js';
import type { ReportInput } from '../core/types.js';
import type { AgedInvoice, AgedReceivables, OrgAr } from '../unpaid-invoices/figures.js';
import { type Change, evidence, numOf, type Severity, textOf } from './line.js';
import type { ChangesOptions } from './options.js';
import { inputAt } from './sides.js';

const UNPAID = 'unpaid-invoices';
const ROLL = 'ar-rollforward';

const isOpen = (r: AgedInvoice | undefined): r is AgedInvoice => r !== undefined && !r.cancelled;
const said = (r: AgedInvoice) => {
  const d = r.days;
  const when = d > 0 ? `${d} days past due` : d === 0 ? 'due today' : `due in ${-d} days`;
  return `${when} (${r.bucket || 'current'}), ${money(r.totalDue)} due`;
};

/** The movements a line is made of (an invoice with none of them makes no line): not an increase. */
const moving = STEPS.filter((k) => k !== 'increases');

/**
 * The roll-forward over the period, per invoice that moved: its detail read by column key as it
 * is made (never a sheet by name), keeping only the invoices with a movement a line is made of.
 */
export async function movementsOf(
  input: ReportInput<ChangesOptions>,
  period: { from: string; to: string },
): Promise<Map<string, Row>> {
  const body = await arRollforwardReport.build(await inputAt(input, arRollforwardReport, undefined, period));
  const out = new Map<string, Row>();
  for await (const r of body.detail.rows) {
    const id = textOf(r.invoiceId);
    if (id !== null && moving.some((k) => (numOf(r[k]) ?? 0) !== 0)) out.set(id, r);
  }
  return out;
}

/**
 * Receivables from the ageing at both ends: invoices that crossed 60 or 90 days past due (open at
 * both ends), new invoices (open at the end, in neither list at the start, not restored); from
 * the roll-forward over the period: payments (by this tool, the outbox's applied ones, or
 * elsewhere), cancellations, restorations, removals; and per employer and in total, the A/R and
 * its share over 60 days where either changed.
 */
export function receivableChanges(
  before: AgedReceivables,
  after: AgedReceivables,
  moves: ReadonlyMap<string, Row>,
): Change[] {
  const a = before.invoices;
  const b = after.invoices;
  const out: Change[] = [];
  const sheet = 'Unpaid invoices';
  const at = (r: AgedInvoice | undefined, id: string) =>
    r === undefined ? null : evidence(UNPAID, sheet, { invoiceId: id });
  for (const [id, rb] of b) {
    if (!isOpen(rb)) continue;
    const ra = a.get(id);
    const base = {
      area: 'receivables' as const,
      orgId: rb.orgId,
      org: rb.org,
      subject: id,
      count: 1,
    };
    if (ra === undefined) {
      const m = moves.get(id);
      if ((numOf(m?.restorations) ?? 0) !== 0) continue;
      // Reopened by a late fee (a fee on a paid invoice): its late-fee line says so, never new.
      if (
        m !== undefined &&
        (numOf(m.lateFees) ?? 0) > 0 &&
        (numOf(m.new) ?? 0) + (numOf(m.found) ?? 0) === 0
      )
        continue;
      out.push({
        ...base,
        severity: 'new',
        kind: 'INVOICE_NEW',
        before: null,
        after: said(rb),
        evidenceBefore: null,
        evidenceAfter: at(rb, id),
      });
      continue;
    }
    if (!isOpen(ra)) continue;
    const crossed =
      ra.days <= 90 && rb.days > 90
        ? 'INVOICE_OVER_90'
        : ra.days <= 60 && rb.days > 60
          ? 'INVOICE_OVER_60'
          : null;
    if (crossed !== null)
      out.push({
        ...base,
        severity: 'worse',
        kind: crossed,
        before: said(ra),
        after: said(rb),
        evidenceBefore: at(ra, id),
        evidenceAfter: at(rb, id),
      });
  }
  for (const [id, m] of moves) out.push(...movementChanges(id, m, a.get(id), at));
  out.push(...arChanges(before, after));
  return out;
}

/** What the roll-forward saw happen to one invoice: payments, a cancellation, a restoration, a removal. */
function movementChanges(
  id: string,
  m: Row,
  ra: AgedInvoice | undefined,
  at: (r: AgedInvoice | undefined, id: string) => string | null,
): Change[] {
  const base = {
    area: 'receivables' as const,
    orgId: numOf(m.orgId),
    org: textOf(m.org),
    subject: id,
    count: 1,
  };
  const opening = money(m.opening);
  const closing = money(m.closing);
  const evidenceAfter = evidence(ROLL, 'Invoice movements', { invoiceId: id });
  const line = (kind: string, severity: Severity, after: string): Change => ({
    ...base,
    severity,
    kind,
    before: `${opening} open`,
    after,
    evidenceBefore: at(ra, id),
    evidenceAfter,
  });
  const out: Change[] = [];
  const applied = numOf(m.decreasesApplied) ?? 0;
  const elsewhere = numOf(m.decreasesElsewhere) ?? 0;
  if (applied !== 0)
    out.push(line('INVOICE_PAID_TOOL', 'better', `${money(applied)} paid by this tool, ${closing} open`));
  if (elsewhere !== 0)
    out.push(
      line(
        'INVOICE_PAID_ELSEWHERE',
        'better',
        `${money(elsewhere)} paid or credited elsewhere, ${closing} open`,
      ),
    );
  if ((numOf(m.cancellations) ?? 0) !== 0)
    out.push(line('INVOICE_CANCELLED', 'changed', `cancelled, ${closing} open`));
  if ((numOf(m.restorations) ?? 0) !== 0)
    out.push(line('INVOICE_RESTORED', 'worse', `restored, ${closing} open`));
  const fees = numOf(m.lateFees) ?? 0;
  if (fees > 0)
    out.push(line('INVOICE_LATE_FEE', 'changed', `late fee ${money(fees)} charged, ${closing} open`));
  if ((numOf(m.removed) ?? 0) !== 0)
    out.push(line('INVOICE_REMOVED', 'changed', `gone from the service, ${closing} open`));
  // A balance that turned null or unreadable: held apart, never paid or credited.
  const unknown = numOf(m.unknown) ?? 0;
  if (unknown > 0)
    out.push(
      line(
        'INVOICE_BALANCE_UNKNOWN',
        'worse',
        `balance unknown (the service shows none that can be read): ${money(unknown)} held apart, not paid`,
      ),
    );
  if (unknown < 0) out.push(line('INVOICE_BALANCE_READ', 'changed', `balance read again, ${closing} open`));
  return out;
}

const share = (r: OrgAr | undefined) => r?.over60Share ?? 0;
const arSaid = (r: OrgAr | undefined) =>
  r === undefined ? null : `${money(r.total)}, ${(share(r) * 100).toFixed(1)}% over 60 days`;

/** The A/R and its share over 60 days per employer and in total, where either changed. */
function arChanges(before: AgedReceivables, after: AgedReceivables): Change[] {
  const rowsOf = (r: AgedReceivables) =>
    new Map(r.ar.map((o) => [o.orgId === null ? 'total' : String(o.orgId), o]));
  const a = rowsOf(before);
  const b = rowsOf(after);
  const out: Change[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const ra = a.get(key);
    const rb = b.get(key);
    if (arSaid(ra) === arSaid(rb)) continue;
    const total = key === 'total';
    const up = share(rb) > share(ra);
    // The ageing's page: over 60 days above half of what is owed is Action needed.
    const severity: Severity = up
      ? total && share(rb) > 0.5 && share(ra) <= 0.5
        ? 'action'
        : 'worse'
      : share(rb) < share(ra)
        ? 'better'
        : 'changed';
    const ev = (r: OrgAr | undefined) =>
      r === undefined ? null : evidence(UNPAID, 'By org', total ? { org: 'Total' } : { orgId: key });
    out.push({
      severity,
      area: 'receivables',
      kind: total ? 'AR_TOTAL' : 'AR_EMPLOYER',
      orgId: total ? null : Number(key),
      org: total ? null : (rb?.org ?? ra?.org ?? null),
      subject: total ? 'all employers' : 'A/R',
      before: arSaid(ra),
      after: arSaid(rb),
      evidenceBefore: ev(ra),
      evidenceAfter: ev(rb),
      count: 1,
    });
  }
  return out;
}
