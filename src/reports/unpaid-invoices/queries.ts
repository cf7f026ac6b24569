import type { Kysely } from 'kysely';
import { asOf, asOfSpan, type Database } from '../../mirror/index.js';
import { rawWhereNull, withSentValues } from '../core/sent-values.js';
import { reportDb } from '../core/tables.js';

export type InvoiceRecord = Awaited<ReturnType<typeof invoiceRows>>[number];

/** Invoices with a non-zero (or unreadable) balance: the query of the report. */
export function invoiceRows(db: Kysely<Database>, at: string | undefined) {
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

/**
 * invoiceRows for every instant from `from` to `to` at once: each version with its interval.
 * `zeros`: versions with a zero balance too (the roll-forward follows an invoice paid to zero).
 */
export function invoiceVersions(db: Kysely<Database>, from: string, to: string, zeros = false) {
  let q = reportDb(db)
    .selectFrom(asOfSpan(reportDb(db), 'invoice', from, to))
    .select([...INVOICE_COLUMNS, 'valid_from', 'valid_to'])
    .select(rawWhereNull(SENT).as('sent'));
  if (!zeros) q = q.where((eb) => eb.or([eb('balance', 'is', null), eb('balance', '<>', 0)]));
  return q.execute().then((rows) => rows.map(({ sent, ...r }) => withSentValues(r, sent, SENT)));
}
