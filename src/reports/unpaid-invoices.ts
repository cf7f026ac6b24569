import { z } from 'zod';
import { asOf, asOfSpan } from '../mirror/index.js';
import { formatCents } from '../render/csv-renderer.js';
import type { Column, Row, Sheet } from '../render/types.js';
import {
  type MonthEnd,
  monthEnds,
  TREND_MONTHS,
  trendColumns,
  trendNoteColumn,
  trendRows,
} from './ar-trend.js';
import { invoiceBalancesAsOf } from './as-of-history.js';
import { dayNumber, formatDate, type LocalDate, localDateOf, parseDate } from './dates.js';
import { orgNames } from './org-names.js';
import {
  boolOption,
  type CommonParams,
  commonParams,
  enumOption,
  intOption,
  parseOptions,
  withDescendants,
} from './params.js';
import { rawWhereNull, withSentValues } from './sent-values.js';
import { lastSyncLines } from './sync-info.js';
import { reportDb } from './tables.js';
import type { ReportContext, ReportDefinition, ReportParams } from './types.js';
import { asInteger, asText, compareOrgs, listSome, toCents } from './values.js';

/**
 * Unpaid invoices, A/R aging (REPORTS.md 2): open balances by org, bucketed by days past due on
 * the as-of date. Invoices are org-sized (thousands), so the open ones are read whole and sorted.
 */
const REPORT = 'unpaid-invoices';

export const unpaidInvoicesOptions = z.object({
  /** Age from the due date (QuickBooks) or from the invoice date. @default 'dueDate' */
  agingBasis: enumOption(['dueDate', 'invoiceDate']).default('dueDate'),
  /** Days per aging period. @default 30 */
  periodDays: intOption(1, 366).default(30),
  /** Aging periods between Current and the open-ended last bucket. @default 3 */
  periods: intOption(1, 24).default(3),
  /** The balance already holds the late fee (then lateFee is informational). @default true */
  lateFeeInBalance: boolOption().default(true),
  /** Org summary order: total descending, or org name. @default 'total' */
  summarySort: enumOption(['total', 'name']).default('total'),
  /** With params.orgIds: their descendants (org_policy.parent_org_id) too. @default false */
  includeChildren: boolOption().default(false),
  /**
   * How Invoice.dropInvoice is read: `cancelled` (the interface: "whether the invoice was
   * cancelled"; any value but blank, false, 0 or no cancels it) or `ignore` (a service that fills
   * it with something else: shown only). @default 'cancelled'
   */
  dropInvoice: enumOption(['cancelled', 'ignore']).default('cancelled'),
});

export type UnpaidInvoicesOptions = z.output<typeof unpaidInvoicesOptions>;

interface Bucket {
  key: string;
  label: string;
  /** Inclusive day range; null: open-ended. */
  min: number | null;
  max: number | null;
}

/** Current (≤ 0 days), the periods (1–30, 31–60, 61–90 by default) and the last (91+). */
export function agingBuckets(periodDays: number, periods: number): Bucket[] {
  const out: Bucket[] = [{ key: 'current', label: 'Current', min: null, max: 0 }];
  for (let k = 0; k < periods; k++) {
    const lo = k * periodDays + 1;
    const hi = (k + 1) * periodDays;
    out.push({ key: `d${lo}_${hi}`, label: `${lo}-${hi}`, min: lo, max: hi });
  }
  const last = periods * periodDays + 1;
  out.push({ key: `d${last}Plus`, label: `${last}+`, min: last, max: null });
  return out;
}

const CREDITS = { key: 'credits', label: 'Credits' } as const;
/** The bucket of a cancelled invoice: in no total. */
const VOID = 'VOID';

/** Detail columns; the days column is titled after the aging basis. */
export function unpaidInvoicesColumnsFor(basis: 'dueDate' | 'invoiceDate'): Column[] {
  return unpaidInvoicesColumns.map((c) =>
    c.key === 'daysPastDue' && basis === 'invoiceDate' ? { ...c, title: 'Days since invoice date' } : c,
  );
}

export const unpaidInvoicesColumns: Column[] = [
  { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
  { key: 'org', title: 'Org', type: 'string', width: 32 },
  { key: 'invoiceId', title: 'Invoice', type: 'string', width: 12 },
  { key: 'invoiceDate', title: 'Invoice date', type: 'date', width: 12 },
  { key: 'dueDate', title: 'Due date', type: 'date', width: 12 },
  { key: 'billingPeriod', title: 'Billing period', type: 'string', width: 10 },
  { key: 'daysPastDue', title: 'Days past due', type: 'integer', width: 9 },
  { key: 'bucket', title: 'Bucket', type: 'string', width: 9, alert: { red: ['91+'], amber: ['61-90'] } },
  { key: 'balance', title: 'Balance', type: 'money', width: 13 },
  { key: 'lateFee', title: 'Late fee', type: 'money', width: 11 },
  { key: 'totalDue', title: 'Total due', type: 'money', width: 13 },
  { key: 'flags', title: 'Flags', type: 'string', width: 18 },
  {
    key: 'status',
    title: 'Status (cancelled: in no total)',
    type: 'string',
    width: 11,
    alert: { amber: ['cancelled'] },
  },
];

/** `dropInvoice` read as cancelled: any value but blank or an explicit no. */
export function isCancelled(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0) return false;
  const text = String(value).trim().toLowerCase();
  return text !== '' && text !== 'false' && text !== '0' && text !== 'no';
}

interface OpenInvoice {
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

interface Classified {
  open: OpenInvoice[];
  voided: OpenInvoice[];
  warnings: string[];
  /** Invoices dated after the as-of date; invoices with an unreadable date, balance. */
  future: number;
  unreadable: number;
  /** Invoices with a balance at all, whatever their date (for "before every invoice"). */
  seen: number;
}

type InvoiceRecord = Awaited<ReturnType<typeof invoiceRows>>[number];

/** Invoices with a non-zero (or unreadable) balance: the query of the report. */
function invoiceRows(db: ReportContext['db'], at: string | undefined) {
  // |balance| >= 0.005 is decided in cents below; the query only skips zero balances (an
  // unreadable balance such as "lots" is not 0, so it comes back and is counted as a warning;
  // an invoice without a balance at all is skipped below).
  return (
    reportDb(db)
      .selectFrom(asOf(reportDb(db), 'invoice', at))
      .select(INVOICE_COLUMNS)
      .select(rawWhereNull(SENT).as('sent'))
      .where('deleted_at', 'is', null)
      // A null balance comes back too: on PostgreSQL an unreadable one is null here (sent-values.ts).
      .where((eb) => eb.or([eb('balance', 'is', null), eb('balance', '<>', 0)]))
      .execute()
      .then((rows) => rows.map(({ sent, ...r }) => withSentValues(r, sent, SENT)))
  );
}

/** The number columns whose unreadable values the report lists (see sent-values.ts). */
const SENT = ['balance', 'lateFee'] as const;

const INVOICE_COLUMNS = [
  'id',
  'OrgId',
  'c_org',
  'date',
  'dateDue',
  'balance',
  'lateFee',
  'month',
  'year',
  'dropInvoice',
] as const;

/** invoiceRows for every instant from `from` to `to` at once: each version with its interval. */
function invoiceVersions(db: ReportContext['db'], from: string, to: string) {
  return reportDb(db)
    .selectFrom(asOfSpan(reportDb(db), 'invoice', from, to))
    .select([...INVOICE_COLUMNS, 'valid_from', 'valid_to'])
    .select(rawWhereNull(SENT).as('sent'))
    .where((eb) => eb.or([eb('balance', 'is', null), eb('balance', '<>', 0)]))
    .execute()
    .then((rows) => rows.map(({ sent, ...r }) => withSentValues(r, sent, SENT)));
}

/**
 * A/R by bucket at each of the last TREND_MONTHS month ends, as the mirror knew them then (the
 * sheet Trend and its CSV): the report's own ageing of the invoices it held at each month end,
 * aged to that day; month ends before the mirror's history are omitted (ar-trend.ts).
 */
async function arTrend(
  db: ReportContext['db'],
  common: CommonParams,
  opts: UnpaidInvoicesOptions,
  buckets: Bucket[],
  scope: Set<number> | null,
  ends: readonly MonthEnd[] = monthEnds(common.asOf, common.timezone, TREND_MONTHS),
) {
  const keys = [...buckets.map((b) => b.key), CREDITS.key, 'total', 'openInvoices'];
  const trend = await trendRows(
    db,
    ends,
    (from, to) => invoiceVersions(db, from, to),
    (rows, end) => {
      const at = { ...common, asOf: end.day, asOfText: formatDate(end.day) };
      const c = classify(rows, scope, new Map(), at, opts, buckets);
      const { byOrg } = summarise(c.open, [], buckets, 'total');
      const grand = byOrg[byOrg.length - 1] ?? {};
      return Object.fromEntries(keys.map((k) => [k, grand[k] ?? 0]));
    },
  );
  const columns: Column[] = [
    ...trendColumns,
    ...bucketColumnsFor(buckets, opts).filter((c) => keys.includes(c.key)),
    trendNoteColumn,
  ];
  return { ...trend, sheet: { name: 'Trend', columns, rows: trend.rows, totals: 'none' } satisfies Sheet };
}

/** The Trend rows of the report's parameters at the given month ends (or any instants). */
export async function unpaidInvoicesTrend(
  db: ReportContext['db'],
  params: ReportParams,
  ends: readonly MonthEnd[],
): Promise<Row[]> {
  const common = commonParams(REPORT, params);
  const opts = parseOptions(REPORT, unpaidInvoicesOptions, params.options).options;
  const buckets = agingBuckets(opts.periodDays, opts.periods);
  return (await arTrend(db, common, opts, buckets, null, ends)).rows;
}

/** Ages each invoice; cancelled ones apart (VOID), unreadable ones counted and listed. */
function classify(
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
    if (r.balance === null) continue;
    const balance = toCents(r.balance);
    if (balance === null) {
      // Never silently dropped (issue 12 point 15): counted and listed.
      badBalance.push(`${id} (${JSON.stringify(r.balance)})`);
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
  return { open, voided, warnings, future, unreadable: unreadable.length + badBalance.length, seen };
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
  list(badBalance, 'with an unreadable balance, in no bucket and no total');
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

/** The About sheet: how the invoices were aged and what was left out. */
function aboutLines(
  opts: UnpaidInvoicesOptions,
  buckets: Bucket[],
  voided: number,
  open: number,
  c: Classified,
  syncLines: [string, string][],
  at: string | undefined,
): [string, string][] {
  const about: [string, string][] = [
    [
      'Aging',
      `${opts.agingBasis === 'dueDate' ? 'Days past the due date' : 'Days since the invoice date'} on the as-of date; buckets ${buckets.map((b) => b.label).join(', ')}; negative balances under Credits whatever their age`,
    ],
    [
      'Late fees',
      opts.lateFeeInBalance
        ? 'lateFeeInBalance = true: the balance already holds the late fee; lateFee is informational, totalDue = balance'
        : 'lateFeeInBalance = false: totalDue = balance + lateFee, and totalDue is bucketed',
    ],
    [
      'Cancelled invoices',
      opts.dropInvoice === 'cancelled'
        ? `dropInvoice = cancelled: an invoice whose dropInvoice holds anything but blank, false, 0 or no is cancelled (the interface: "whether the invoice was cancelled"); it is in no bucket and no total${voided === 0 ? ' (none in this report)' : ', and is listed on the sheet VOID with reconciling lines on the sheet Buckets, and in the detail and the CSV with status cancelled (bucket VOID), after its org\u2019s open invoices and in no subtotal'}`
        : 'dropInvoice = ignore: dropInvoice cancels nothing; every invoice has status open',
    ],
    [
      'Limitation',
      at === undefined
        ? 'Balances are the present ones (the mirror as it is now), so the as-of date changes the aging, not the amounts; rows synced after the as-of date are not excluded (only invoices dated after it are).'
        : `Balances as the mirror knew them at ${at} (its history): a payment made before that instant but synced after it is not known; invoices dated after the as-of date are excluded.`,
    ],
    [
      'Not given by the service',
      'The original invoice amount, payments, credits applied and their dates: the service gives only the present balance, so there is no paid or credited column and no DSO (days sales outstanding)',
    ],
    ['Org names', 'The latest c_org seen on the org’s order items and invoices'],
    ...syncLines,
    ['Open invoices', String(open)],
    ['Cancelled (VOID, excluded)', String(voided)],
    ['Dated after the as-of date (excluded)', String(c.future)],
    ['Unreadable date or balance (excluded)', String(c.unreadable)],
  ];
  return about;
}

/** Columns of the By org sheet: one per ageing bucket, then credits and totals. */
function bucketColumnsFor(buckets: Bucket[], opts: UnpaidInvoicesOptions): Column[] {
  return [
    { key: 'orgId', title: 'Org id', type: 'integer', width: 9 },
    { key: 'org', title: 'Org', type: 'string', width: 32 },
    ...buckets.map(
      (b, i): Column => ({
        key: b.key,
        title: b.label,
        type: 'money',
        width: 13,
        // The last bucket red, the one before it amber (91+ and 61-90 by default).
        ...(i === buckets.length - 1
          ? { alert: { positive: 'red' } }
          : i === buckets.length - 2 && i > 0
            ? { alert: { positive: 'amber' } }
            : {}),
      }),
    ),
    { key: CREDITS.key, title: CREDITS.label, type: 'money', width: 13 },
    { key: 'total', title: 'Total (net)', type: 'money', width: 14 },
    { key: 'lateFees', title: 'Late fees', type: 'money', width: 11 },
    { key: 'openInvoices', title: 'Open invoices', type: 'integer', width: 9 },
    {
      key: 'oldestDaysPastDue',
      title: opts.agingBasis === 'dueDate' ? 'Oldest days past due' : 'Oldest days since invoice date',
      type: 'integer',
      width: 10,
    },
    { key: 'over60Share', title: '% of total over 60 days', type: 'percent', width: 10 },
  ];
}

async function run(ctx: ReportContext) {
  const { db, params } = ctx;
  const common = commonParams(REPORT, params);
  const parsed = parseOptions(REPORT, unpaidInvoicesOptions, params.options);
  const opts = parsed.options;
  const buckets = agingBuckets(opts.periodDays, opts.periods);

  let scope: Set<number> | null = null;
  if (common.orgIds.length > 0) {
    if (opts.includeChildren) {
      const policies = await db.selectFrom('org_policy').select(['org_id', 'parent_org_id']).execute();
      scope = withDescendants(common.orgIds, new Map(policies.map((p) => [p.org_id, p.parent_org_id])));
    } else scope = new Set(common.orgIds);
  }
  const at = params.mirrorAsOf;
  const names = await orgNames(db, at);
  const c = classify(await invoiceRows(db, at), scope, names, common, opts, buckets);
  const { open, voided } = c;
  const history = await invoiceBalancesAsOf(db, common, at);
  const warnings = [
    ...history.warnings,
    ...parsed.unknown.map((k) => `Option ${k} is not an option of this report: ignored`),
    ...asOfWarnings(common, c),
    ...c.warnings,
  ];
  for (const id of common.orgIds)
    if (!open.some((o) => o.orgId === id)) warnings.push(`Org ${id} has no open invoice`);

  const { byOrg, buckets: bucketRows } = summarise(open, voided, buckets, opts.summarySort);
  const syncLines = await lastSyncLines(db, ['invoice', 'orderitem'], at);
  const trend = await arTrend(db, common, opts, buckets, scope);
  const about = [
    history.about,
    ...aboutLines(opts, buckets, voided.length, open.length, c, syncLines, at),
    [
      'Trend',
      `A/R by bucket at each of the last ${TREND_MONTHS} month ends, as the mirror knew it at the end of that day (its history), aged to that day (sheet Trend; CSV unpaid-invoices-trend-DATE.csv)${trend.omitted.length === 0 ? '' : `; omitted, before the mirror's history begins (${trend.start ?? 'no history yet'}): ${trend.omitted.map((e) => formatDate(e.day)).join(', ')}`}`,
    ] satisfies [string, string],
  ];
  const bucketColumns = bucketColumnsFor(buckets, opts);
  const columns = unpaidInvoicesColumnsFor(opts.agingBasis);
  const sheets: Sheet[] = [
    { name: 'By org', columns: bucketColumns, rows: byOrg },
    {
      name: 'Buckets',
      columns: [
        { key: 'bucket', title: 'Bucket', type: 'string', width: 10 },
        { key: 'amount', title: 'Amount', type: 'money', width: 14 },
        { key: 'share', title: '% of total', type: 'percent', width: 10 },
        { key: 'invoices', title: 'Invoices', type: 'integer', width: 9 },
      ],
      rows: bucketRows,
    },
  ];
  if (voided.length > 0)
    sheets.push({ name: 'VOID', columns, rows: voided.map((v) => v.row), totals: 'none' });
  sheets.push(trend.sheet);
  return {
    detail: {
      name: 'Unpaid invoices',
      columns,
      // Cancelled invoices too (status cancelled, after their org's open ones), so a BI tool
      // can reconcile "Total with cancelled"; in no subtotal or total.
      rows: withCancelled(open, voided),
      subtotals: {
        by: 'orgId',
        label: 'org',
        sum: ['balance', 'lateFee', 'totalDue'],
        skip: { key: 'status', values: ['cancelled'] },
      },
    },
    summaries: () => sheets,
    warnings: () => warnings,
    about: () => about,
  };
}

/** Open and cancelled invoices by org: each org's open invoices, then its cancelled ones. */
function withCancelled(open: OpenInvoice[], voided: OpenInvoice[]): Row[] {
  if (voided.length === 0) return open.map((o) => o.row);
  const all = [...open, ...voided];
  const isVoid = (o: OpenInvoice) => (o.bucket === VOID ? 1 : 0);
  // Both lists are already in order; a stable sort by org then open-first keeps it.
  return all.sort((a, b) => compareOrgs(a, b) || isVoid(a) - isVoid(b)).map((o) => o.row);
}

/** The as-of date in the future, or before every invoice: the report would silently say nothing. */
function asOfWarnings(common: CommonParams, c: Classified): string[] {
  const out: string[] = [];
  const today = localDateOf(Date.now(), common.timezone);
  if (dayNumber(common.asOf) > dayNumber(today))
    out.push(
      `The as-of date ${common.asOfText} is in the future (today is ${formatDate(today)}): invoices are aged to a day that has not come, with today's balances`,
    );
  if (c.seen > 0 && c.future === c.seen)
    out.push(
      `No data for this as-of: the as-of date ${common.asOfText} is before every invoice (${c.future} dated after it)`,
    );
  else if (c.seen === 0) out.push('No data for this as-of: no invoice with an open balance');
  return out;
}

interface OrgTotals {
  orgId: number | null;
  org: string | null;
  amounts: Map<string, number>;
  total: number;
  lateFees: number;
  count: number;
  oldest: number | null;
  over60: number;
}

function summarise(
  open: OpenInvoice[],
  voided: OpenInvoice[],
  buckets: Bucket[],
  sort: 'total' | 'name',
): { byOrg: Row[]; buckets: Row[] } {
  const keyOf = new Map<string, string>([
    ...buckets.map((b) => [b.label, b.key] as const),
    [CREDITS.label, CREDITS.key],
  ]);
  const blank = (orgId: number | null, org: string | null): OrgTotals => ({
    orgId,
    org,
    amounts: new Map(),
    total: 0,
    lateFees: 0,
    count: 0,
    oldest: null,
    over60: 0,
  });
  const orgs = new Map<string, OrgTotals>();
  const grand = blank(null, 'Total');
  const counts = new Map<string, number>();
  for (const o of open) {
    const k = String(o.orgId);
    const t = orgs.get(k) ?? blank(o.orgId, o.org);
    orgs.set(k, t);
    const key = keyOf.get(o.bucket) as string;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    for (const x of [t, grand]) {
      x.amounts.set(key, (x.amounts.get(key) ?? 0) + o.totalDue);
      x.total += o.totalDue;
      x.lateFees += o.lateFee;
      x.count++;
      // Only overdue invoices have an age past due: blank, not negative, when none is.
      if (!o.credit && o.days > 0) {
        x.oldest = x.oldest === null ? o.days : Math.max(x.oldest, o.days);
        if (o.days > 60) x.over60 += o.totalDue;
      }
    }
  }
  const toRow = (t: OrgTotals): Row => {
    const row: Row = { orgId: t.orgId, org: t.org };
    for (const b of buckets) row[b.key] = t.amounts.get(b.key) ?? 0;
    row[CREDITS.key] = t.amounts.get(CREDITS.key) ?? 0;
    row.total = t.total;
    row.lateFees = t.lateFees;
    row.openInvoices = t.count;
    row.oldestDaysPastDue = t.oldest;
    row.over60Share = t.total > 0 ? t.over60 / t.total : null;
    return row;
  };
  const list = [...orgs.values()].sort((a, b) =>
    sort === 'total' ? b.total - a.total || compareOrgs(a, b) : compareOrgs(a, b),
  );
  const bucketRows: Row[] = [...buckets, CREDITS].map((b) => {
    const amount = grand.amounts.get(b.key) ?? 0;
    return {
      bucket: b.label,
      amount,
      share: grand.total === 0 ? null : amount / grand.total,
      invoices: counts.get(b.key) ?? 0,
    };
  });
  bucketRows.push({
    bucket: 'Total',
    amount: grand.total,
    share: grand.total === 0 ? null : 1,
    invoices: grand.count,
  });
  if (voided.length > 0) {
    // The reconciling lines: what the invoice balances add up to, and the cancelled part of it.
    const voidTotal = voided.reduce((sum, v) => sum + v.totalDue, 0);
    bucketRows.push(
      { bucket: 'VOID (cancelled, not owed)', amount: voidTotal, share: null, invoices: voided.length },
      {
        bucket: 'Total with cancelled',
        amount: grand.total + voidTotal,
        share: null,
        invoices: grand.count + voided.length,
      },
    );
  }
  return { byOrg: [...list.map(toRow), toRow(grand)], buckets: bucketRows };
}

export const unpaidInvoices: ReportDefinition = {
  name: 'unpaid-invoices',
  title: 'Unpaid invoices (A/R aging)',
  description:
    'Open invoice balances by org, aged by days past due on the as-of date into Current, 1-30, 31-60, 61-90 and 91+ (credits apart), with totals per org and bucket shares.',
  options: Object.keys(unpaidInvoicesOptions.shape),
  run,
};
