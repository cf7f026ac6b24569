import { dayNumber, formatDate, type LocalDate, parseDate } from '../../dates.js';
import type { Row } from '../../render/types.js';
import { formatCents } from '../../util/money.js';
import type { CommonParams } from '../core/params.js';
import { asInteger, asText, compareOrgs, listSome, toCents } from '../core/values.js';
import { type Bucket, CREDITS, isCancelled, VOID } from './buckets.js';
import type { UnpaidInvoicesOptions } from './options.js';
import type { InvoiceRecord } from './queries.js';

export interface OpenInvoice {
  row: Row;
  orgId: number | null;
  org: string | null;
  id: string;
  date: LocalDate;
  days: number;
  bucket: string;
  credit: boolean;
  totalDue: number;
  lateFee: number;
}

function compareIds(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  if (Number.isFinite(na) && Number.isFinite(nb) && na !== nb) return na - nb;
  return a < b ? -1 : a > b ? 1 : 0;
}

export interface Classified {
  open: OpenInvoice[];
  voided: OpenInvoice[];
  warnings: string[];
  /** Invoices dated after the as-of date; invoices with an unreadable date. */
  future: number;
  unreadable: number;
  /**
   * Invoices whose balance is unknown (null, absent or not a number): held apart, in no bucket
   * and no total, never read as paid or credited (their ids).
   */
  unknown: string[];
  /** Invoices with a balance at all, whatever their date (for "before every invoice"). */
  seen: number;
}

/** Ages each invoice; cancelled ones apart (VOID), unreadable ones counted and listed. */
export function classify(
  rows: InvoiceRecord[],
  scope: Set<number> | null,
  names: Map<number, string>,
  common: CommonParams,
  opts: UnpaidInvoicesOptions,
  buckets: Bucket[],
): Classified {
  const asOfDay = dayNumber(common.asOf);
  const open: OpenInvoice[] = [];
  const voided: OpenInvoice[] = [];
  const unreadable: string[] = [];
  const badBalance: string[] = [];
  const unknown: string[] = [];
  const badFee: string[] = [];
  const badDue: string[] = [];
  const noDue: string[] = [];
  const checks: string[] = [];
  let future = 0;
  let seen = 0;
  for (const r of rows) {
    const orgId = asInteger(r.OrgId);
    if (scope !== null && (orgId === null || !scope.has(orgId))) continue;
    const id = String(r.id);
    const balance = r.balance === null || r.balance === undefined ? null : toCents(r.balance);
    if (balance === null) {
      // Balance unknown: never silently dropped, never read as paid: held apart and listed.
      unknown.push(id);
      badBalance.push(
        r.balance === null || r.balance === undefined ? id : `${id} (${JSON.stringify(r.balance)})`,
      );
      continue;
    }
    if (balance === 0) continue;
    seen++;
    const date = parseDate(r.date, common.timezone);
    if (date === null) {
      unreadable.push(`${id} (${JSON.stringify(r.date ?? null)})`);
      continue;
    }
    if (dayNumber(date) > asOfDay) {
      future++;
      continue;
    }
    const flags: string[] = [];
    const dueText = asText(r.dateDue);
    let due = parseDate(dueText, common.timezone);
    if (due === null) {
      // No due date: due on receipt (the invoice date) [K].
      flags.push(dueText === null ? 'NO_DUE_DATE' : 'BAD_DUE_DATE');
      (dueText === null ? noDue : badDue).push(dueText === null ? id : `${id} (${JSON.stringify(dueText)})`);
      due = date;
    } else if (dayNumber(due) < dayNumber(date)) {
      flags.push('DATA_CHECK');
      checks.push(`${id} (due ${formatDate(due)} before its date ${formatDate(date)})`);
    }
    const days = asOfDay - dayNumber(opts.agingBasis === 'dueDate' ? due : date);
    let lateFee = toCents(r.lateFee);
    if (lateFee === null) {
      if (r.lateFee !== null && r.lateFee !== undefined && r.lateFee !== '') {
        flags.push('BAD_LATE_FEE');
        badFee.push(`${id} (${JSON.stringify(r.lateFee)})`);
      }
      lateFee = 0;
    }
    const totalDue = balance + (opts.lateFeeInBalance ? 0 : lateFee);
    const cancelled = opts.dropInvoice === 'cancelled' && isCancelled(r.dropInvoice);
    const credit = balance < 0;
    const bucket = cancelled
      ? VOID
      : credit
        ? CREDITS.label
        : (
            buckets.find(
              (b) => (b.min === null || days >= b.min) && (b.max === null || days <= b.max),
            ) as Bucket
          ).label;
    if (cancelled) flags.push('VOID');
    const org = (orgId === null ? undefined : names.get(orgId)) ?? asText(r.c_org);
    (cancelled ? voided : open).push({
      orgId,
      org,
      id,
      date,
      days,
      bucket,
      credit,
      totalDue,
      lateFee,
      row: detailRow({ r, orgId, org, id, date, due, days, bucket, balance, lateFee, totalDue, flags }),
    });
  }
  const order = (a: OpenInvoice, b: OpenInvoice) =>
    compareOrgs(a, b) || b.days - a.days || dayNumber(a.date) - dayNumber(b.date) || compareIds(a.id, b.id);
  open.sort(order);
  voided.sort(order);
  const warnings = classifyWarnings({ badBalance, unreadable, noDue, badDue, badFee, checks }, voided);
  return { open, voided, warnings, future, unreadable: unreadable.length, unknown, seen };
}

interface ClassifyLists {
  badBalance: string[];
  unreadable: string[];
  noDue: string[];
  badDue: string[];
  badFee: string[];
  checks: string[];
}

/** One warning line per kind of unreadable or odd invoice, and one for the cancelled ones. */
function classifyWarnings(l: ClassifyLists, voided: readonly OpenInvoice[]): string[] {
  const { badBalance, unreadable, noDue, badDue, badFee, checks } = l;
  const warnings: string[] = [];
  const list = (items: string[], what: string) => {
    if (items.length > 0) warnings.push(`${items.length} invoice(s) ${what}: ${listSome(items)}`);
  };
  list(
    badBalance,
    'with an unreadable balance (balance unknown: null, absent or not a number): held apart, in no bucket and no total, never counted as paid or credited',
  );
  list(unreadable, 'with an unreadable date, not aged');
  list(noDue, 'without a due date, aged as due on their date');
  list(badDue, 'with an unreadable due date, aged as due on their date');
  list(badFee, 'with an unreadable late fee, read as 0 (BAD_LATE_FEE)');
  list(checks, 'due before their date (DATA_CHECK)');
  if (voided.length > 0)
    warnings.push(
      `${voided.length} cancelled invoice(s) (dropInvoice filled) with an open balance of ${formatCents(voided.reduce((s, v) => s + v.totalDue, 0))}: left out of every bucket and total, listed on the sheet VOID`,
    );
  return warnings;
}

interface DetailFacts {
  r: InvoiceRecord;
  orgId: number | null;
  org: string | null;
  id: string;
  date: LocalDate;
  due: LocalDate;
  days: number;
  bucket: string;
  balance: number;
  lateFee: number;
  totalDue: number;
  flags: string[];
}

/** The invoice's row on the detail (or VOID) sheet. */
function detailRow(f: DetailFacts): Row {
  const { r, orgId, org, id, date, due, days, bucket, balance, lateFee, totalDue, flags } = f;
  const year = asInteger(r.year);
  const month = asInteger(r.month);
  return {
    orgId,
    org,
    invoiceId: id,
    invoiceDate: formatDate(date),
    dueDate: formatDate(due),
    billingPeriod: year !== null && month !== null ? `${year}-${String(month).padStart(2, '0')}` : null,
    daysPastDue: days,
    bucket,
    balance,
    lateFee,
    totalDue,
    flags: flags.length === 0 ? null : flags.join(';'),
    status: bucket === VOID ? 'cancelled' : 'open',
  };
}

/** The as-of date in the future, or before every invoice: the report would silently say nothing. */
export function asOfWarnings(common: CommonParams, today: string, c: Classified): string[] {
  const out: string[] = [];
  // Today: the run's date (dates.ts ReportTime), decided once for the run, not the clock read here.
  if (common.asOfText > today)
    out.push(
      `The as-of date ${common.asOfText} is in the future (today is ${today}): invoices are aged to a day that has not come, with today's balances`,
    );
  if (c.seen > 0 && c.future === c.seen)
    out.push(
      `No data for this as-of: the as-of date ${common.asOfText} is before every invoice (${c.future} dated after it)`,
    );
  else if (c.seen === 0) out.push('No data for this as-of: no invoice with an open balance');
  return out;
}
