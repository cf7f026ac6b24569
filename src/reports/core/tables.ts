import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';

/**
 * The mirror's resource tables as the reports read them. The mirror types them loosely
 * (`ResourceRow` has an index signature, since its columns are derived from the schema module),
 * so a misspelt column would compile and read as undefined. Here each table the reports query
 * names exactly the columns they use; the values stay `unknown` (the service's types are not
 * trusted: a balance may be "lots") and are narrowed once, in values.ts.
 */
interface Bookkeeping {
  synced_at: string;
  deleted_at: string | null;
}

export interface OrderItemColumns extends Bookkeeping {
  id: number;
  OrgId: unknown;
  c_org: unknown;
  c_productName: unknown;
  c_personNameFirst: unknown;
  c_personNameLast: unknown;
  c_currentStatusCodeName: unknown;
  c_currentStatusCodeId: unknown;
  CurrentStatusId: unknown;
  CreationTimestamp: unknown;
  isNotModifiable: unknown;
  Parent_OrderItemId: unknown;
  orderedBy: unknown;
}

export interface InvoiceColumns extends Bookkeeping {
  id: number | string;
  OrgId: unknown;
  c_org: unknown;
  date: unknown;
  dateDue: unknown;
  balance: unknown;
  lateFee: unknown;
  month: unknown;
  year: unknown;
  dropInvoice: unknown;
}

export interface OrgMonthColumns extends Bookkeeping {
  id: number;
  OrgId: unknown;
  label: unknown;
  countEligibleRandomPool: unknown;
  countEligibleAll: unknown;
  countPickedDrug: unknown;
  countPickedDrugResult: unknown;
  countPickedAlcohol: unknown;
  countPickedAlcoholResult: unknown;
  dropRandomPick: unknown;
  dropCoveredEmployee: unknown;
  dropMisReport: unknown;
}

export interface ReportDatabase extends Omit<Database, 'orderitem' | 'invoice' | 'orgmonth'> {
  orderitem: OrderItemColumns;
  invoice: InvoiceColumns;
  orgmonth: OrgMonthColumns;
}

/** The same connection, with the report tables' exact column names. */
export function reportDb(db: Kysely<Database>): Kysely<ReportDatabase> {
  // Only the static types differ: ReportDatabase names a subset of each table's columns.
  return db as unknown as Kysely<ReportDatabase>;
}
