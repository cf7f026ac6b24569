import type { Kysely } from 'kysely';
import { formatInstant, zonedToUtc } from '../../dates.js';
import type { Database } from '../../mirror/index.js';
import type { CommonParams } from '../core/params.js';
import { reportDb } from '../core/tables.js';

/**
 * Whether the invoice balances a report shows are those of the as-of date. Read as of an instant
 * (`mirrorAsOf`, the mirror's history) they are the evidence of then: no warning. Read
 * from the present (`--present`, or the as-of date today) with a past as-of date, they are
 * today's balances aged to that date: loud warnings say so.
 */
export interface AsOfEvidence {
  /** Loud warnings, first in the report's list (empty: the values are of the as-of date). */
  warnings: string[];
  /** About-sheet line: what the values read are. */
  about: [string, string];
}

export async function invoiceBalancesAsOf(
  db: Kysely<Database>,
  common: CommonParams,
  mirrorAsOf: string | undefined,
): Promise<AsOfEvidence> {
  if (mirrorAsOf !== undefined)
    return {
      warnings: [],
      about: [
        'Balances as of',
        `${mirrorAsOf}: the balances the mirror knew at that instant (its history), not today's`,
      ],
    };
  const endOfDay = zonedToUtc(common.asOf, 23, 59, 59, 999, common.timezone);
  const firstRun = await db
    .selectFrom('sync_run')
    .select((eb) => eb.fn.min('started_at').as('first'))
    .executeTakeFirst();
  const newest = await reportDb(db)
    .selectFrom('invoice')
    .select((eb) => eb.fn.max('synced_at').as('newest'))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  const first = parse(firstRun?.first);
  const read = parse(newest?.newest);
  const warnings: string[] = [];
  if (first !== null && endOfDay < first)
    warnings.push(
      `AS-OF BEFORE THE MIRROR: the as-of date ${common.asOfText} is before the mirror's first sync (${formatInstant(first)}); read with --present, every balance is today's, not the balance of ${common.asOfText}: do not use these figures as of that date`,
    );
  else if (read !== null && read > endOfDay)
    warnings.push(
      `BALANCES NEWER THAN THE AS-OF DATE: the balances were read at ${formatInstant(read)}, after the as-of date ${common.asOfText}; read with --present, invoices are aged to ${common.asOfText} with today's balances (payments since then already deducted); leave out --present for the balances the mirror knew then`,
    );
  return {
    warnings,
    about: [
      'Balances as of',
      read === null
        ? 'no invoice synced'
        : `${formatInstant(read)} (the last invoice sync): the present balances, so ${warnings.length === 0 ? 'the balances are those known at the as-of date' : 'the balances are NOT those of the as-of date (see Warnings)'}`,
    ],
  };
}

function parse(v: unknown): number | null {
  if (typeof v !== 'string' || v === '') return null;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? null : ms;
}
