import type { Kysely, Migration } from 'kysely';
import type { Database } from '../db-types.js';
import type { EngineDdl } from '../ddl.js';
import { createInvoiceOpenView } from './views.js';

/**
 * `v_invoice_open` leaves out cancelled invoices, as the unpaid-invoices report does (it counted
 * them: 405 invoices where the report's A/R had 374). PostgreSQL replaces the view in place (its
 * grants stay); SQLite drops it and makes it again.
 */
export const migration = (ddl: EngineDdl): Migration => ({
  async up(db: Kysely<Database>) {
    if (ddl.engine === 'postgres') return createInvoiceOpenView(db, true);
    await db.schema.dropView('v_invoice_open').ifExists().execute();
    await createInvoiceOpenView(db);
  },
});
