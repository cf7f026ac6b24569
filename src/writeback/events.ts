import type { Kysely } from 'kysely';
import type { Database, OutboxState } from '../mirror/index.js';

/**
 * Records that outbox items entered a state at `at` (their `updated_at` of that change): the
 * outbox row keeps only the last state, `outbox_event` each one, so a report of a period reads the
 * state an item had at the period's end (what changed). Written right after the change.
 */
export async function stateEntered(
  db: Kysely<Database>,
  ids: readonly number[],
  state: OutboxState,
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .insertInto('outbox_event')
    .values(ids.map((outbox_id) => ({ outbox_id, state, at })))
    .execute();
}
