import { type Kysely, sql } from 'kysely';
import type { Database } from '../db-types.js';

/**
 * Views that join names in, for BI users (portable SQL through Kysely's builder; a column named
 * inside raw `sql` goes through `sql.ref`, so it is quoted and camelCase survives PostgreSQL).
 */
export async function createViews(db: Kysely<Database>): Promise<void> {
  await createOrderViews(db);
  await createPeopleViews(db);
}

/** The org names, order items and open invoices. */
async function createOrderViews(db: Kysely<Database>): Promise<void> {
  const orgNames = db
    .selectFrom(
      db
        .selectFrom('orderitem')
        .select(['OrgId', 'c_org'])
        .where('deleted_at', 'is', null)
        .unionAll(db.selectFrom('invoice').select(['OrgId', 'c_org']).where('deleted_at', 'is', null))
        .as('named'),
    )
    .select(['named.OrgId as org_id', sql<string>`max(${sql.ref('named.c_org')})`.as('org_name')])
    .where('named.OrgId', 'is not', null)
    .groupBy('named.OrgId');
  await db.schema.createView('v_org_name').as(orgNames).execute();
  await db.schema
    .createView('v_orderitem')
    .as(
      db
        .selectFrom('orderitem as o')
        .select([
          'o.id as order_item_id',
          'o.OrgId as org_id',
          'o.c_org as org',
          'o.c_productName as product',
          sql<string>`trim(coalesce(${sql.ref('o.c_personNameFirst')}, '') || ' ' || coalesce(${sql.ref('o.c_personNameLast')}, ''))`.as(
            'person',
          ),
          'o.c_currentStatusCodeName as status',
          'o.CurrentStatusId as status_id',
          'o.CreationTimestamp as created_at',
          sql<number>`case when ${sql.ref('o.isNotModifiable')} = 1 then 0 else 1 end`.as('is_open'),
          'o.orderedBy as ordered_by',
          'o.Parent_OrderItemId as parent_order_item_id',
        ])
        .where('o.deleted_at', 'is', null),
    )
    .execute();
  await createInvoiceOpenView(db);
}

/**
 * `v_invoice_open`: the unpaid-invoices report's open invoice with its default options (docs/bi.md
 * says what differs): in the mirror (not deleted), a balance not zero, not cancelled
 * (`dropInvoice` blank or an explicit no: false, 0, no; as util/invoice-cancelled.ts reads it).
 * `balance` already holds the late fee (the report's `lateFeeInBalance`). `replace`: on
 * PostgreSQL `CREATE OR REPLACE` (the same columns in the same order, so the BI role's grants
 * stay); SQLite has no grants and no `OR REPLACE`: the caller drops it first.
 */
export async function createInvoiceOpenView(db: Kysely<Database>, replace = false): Promise<void> {
  const drop = sql.ref('i.dropInvoice');
  const view = db.schema.createView('v_invoice_open');
  await (replace ? view.orReplace() : view)
    .as(
      db
        .selectFrom('invoice as i')
        .select([
          'i.id as invoice_id',
          'i.OrgId as org_id',
          'i.c_org as org',
          'i.date',
          'i.dateDue as date_due',
          'i.balance',
          'i.lateFee as late_fee',
        ])
        .where('i.deleted_at', 'is', null)
        .where('i.balance', '<>', 0)
        .where(sql<boolean>`(${drop} is null or lower(trim(${drop})) in ('', 'false', '0', 'no'))`),
    )
    .execute();
}

/** Users, OrgMonth rows, vendors and applicants' info items. */
async function createPeopleViews(db: Kysely<Database>): Promise<void> {
  await db.schema
    .createView('v_user')
    .as(
      db
        .selectFrom('user as u')
        .leftJoin('role as r', 'r.id', 'u.RoleId')
        .select([
          'u.id as user_id',
          'u.nameFirstLast as name',
          'u.email',
          'u.status',
          'r.name as role',
          'u.PersonId as person_id',
        ])
        .where('u.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_orgmonth')
    .as(
      db
        .selectFrom('orgmonth as m')
        .leftJoin('v_org_name as n', 'n.org_id', 'm.OrgId')
        .select([
          'm.id as orgmonth_id',
          'm.OrgId as org_id',
          'n.org_name as org',
          'm.label',
          'm.countEligibleRandomPool as pool',
          'm.countPickedDrug as drug_picked',
          'm.countPickedDrugResult as drug_completed',
          'm.countPickedAlcohol as alcohol_picked',
          'm.countPickedAlcoholResult as alcohol_completed',
        ])
        .where('m.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_hsvendor')
    .as(
      db
        .selectFrom('hsvendor as v')
        .leftJoin('v_org_name as n', 'n.org_id', 'v.OrgId')
        .select(['v.id as vendor_id', 'v.name as vendor', 'v.OrgId as org_id', 'n.org_name as org'])
        .where('v.deleted_at', 'is', null),
    )
    .execute();
  await db.schema
    .createView('v_applicant_info_item')
    .as(
      db
        .selectFrom('applicant_info_item as it')
        .innerJoin('applicant_info as inf', 'inf.id', 'it.info_id')
        .innerJoin('applicant as a', 'a.id', 'it.applicant_id')
        .select([
          'a.id as applicant_id',
          'a.PersonId as person_id',
          'inf.id as info_id',
          'inf.ProductId as product_id',
          'inf.orderItemDate as order_item_date',
          'it.id as info_item_id',
          'it.c_attributeField as attribute',
          'it.valueText as value_text',
          'it.valueNumber as value_number',
          'it.valueDate as value_date',
        ])
        .where('a.deleted_at', 'is', null),
    )
    .execute();
}
