import type { Kysely } from 'kysely';
import type { Database } from '../../mirror/index.js';
import { asOf } from '../../mirror/index.js';
import { reportDb } from '../core/tables.js';

/**
 * The query of the order ageing report: each order item with the latest row of its status
 * history (and whether an earlier row exists), streamed in id order; as the mirror knew them at
 * `at` (ISO 8601 UTC; undefined: now).
 */
export function itemQuery(
  db: Kysely<Database>,
  orgIds: number[],
  excludedNames: string[],
  at: string | undefined,
) {
  // As of an instant: the items as the mirror knew them then, and only the statuses it had seen
  // by then (a status first seen later did not exist for it).
  let q = reportDb(db)
    .selectFrom(asOf(reportDb(db), 'orderitem', at, 'o'))
    .leftJoin('orderitem_status_history as h', (join) =>
      join.on((eb) =>
        eb(
          'h.id',
          '=',
          eb
            .selectFrom('orderitem_status_history as hx')
            .select((e) => e.fn.max('hx.id').as('max_id'))
            .whereRef('hx.orderitem_id', '=', 'o.id')
            .$if(at !== undefined, (qb) => qb.where('hx.first_seen_at', '<=', at as string)),
        ),
      ),
    )
    .select((eb) => [
      'o.id',
      'o.OrgId',
      'o.c_org',
      'o.c_productName',
      'o.c_personNameFirst',
      'o.c_personNameLast',
      'o.c_currentStatusCodeName',
      'o.c_currentStatusCodeId',
      'o.CurrentStatusId',
      'o.CreationTimestamp',
      'o.isNotModifiable',
      'o.Parent_OrderItemId',
      'o.orderedBy',
      'o.synced_at',
      'h.id as h_id',
      'h.status_id as h_status_id',
      'h.status_name as h_status_name',
      'h.first_seen_at as h_first_seen_at',
      eb
        .exists(
          eb
            .selectFrom('orderitem_status_history as hp')
            .select('hp.id')
            .whereRef('hp.orderitem_id', '=', 'o.id')
            .whereRef('hp.id', '<', 'h.id')
            .$if(at !== undefined, (qb) => qb.where('hp.first_seen_at', '<=', at as string)),
        )
        .as('h_prior'),
    ])
    .where('o.deleted_at', 'is', null);
  if (orgIds.length > 0) q = q.where('o.OrgId', 'in', orgIds);
  if (excludedNames.length > 0)
    q = q.where((eb) =>
      eb.or([
        eb('o.c_currentStatusCodeName', 'is', null),
        eb('o.c_currentStatusCodeName', 'not in', excludedNames),
      ]),
    );
  return q.orderBy('o.id');
}

/** One order item as the query returns it. */
export type ItemRecord = Awaited<ReturnType<ReturnType<typeof itemQuery>['execute']>>[number];
