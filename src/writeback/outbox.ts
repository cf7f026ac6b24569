import type { Mirror, OutboxState, OutboxTable } from '../mirror/index.js';
import { OutboxItemError } from './errors.js';
import { opNames, ops } from './ops/index.js';

/** `ohs outbox`: list items; `ohs outbox resolve ID --applied|--retry`: decide an unknown one. */
export const outboxStates = ['queued', 'sending', 'sent', 'applied', 'failed', 'unknown'] as const;

export type OutboxItem = OutboxTable & { id: number };

export async function listOutbox(mirror: Mirror, state?: OutboxState): Promise<OutboxItem[]> {
  let q = mirror.db.selectFrom('outbox').selectAll();
  if (state !== undefined) q = q.where('state', '=', state);
  return (await q.orderBy('id').execute()) as OutboxItem[];
}

/**
 * Settles an item by hand: `applied` (someone checked the service and it was carried out) or
 * `retry` (it was not: back to queued, sent by the next apply). Only unknown items, failed ones
 * (retry only) and sent ones (older versions) can be decided; an item `sending` belongs to an
 * apply (a stopped one's become unknown when the next apply starts).
 */
export async function resolveItem(
  mirror: Mirror,
  id: number,
  decision: 'applied' | 'retry',
  now = new Date().toISOString(),
): Promise<OutboxItem> {
  const item = (await mirror.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst()) as
    | OutboxItem
    | undefined;
  if (item === undefined) throw new OutboxItemError(`no outbox item ${id}`);
  const allowed: OutboxState[] = decision === 'applied' ? ['unknown', 'sent'] : ['unknown', 'sent', 'failed'];
  if (!allowed.includes(item.state))
    throw new OutboxItemError(
      `outbox item ${id} is ${item.state}: only ${allowed.join(' or ')} items can be marked ${decision}`,
    );
  const state: OutboxState = decision === 'applied' ? 'applied' : 'queued';
  // Conditional on the state read: an apply settling it meanwhile wins, and this says so.
  const r = await mirror.db
    .updateTable('outbox')
    .set({ state, resolution: `manual-${decision}`, updated_at: now })
    .where('id', '=', id)
    .where('state', '=', item.state)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1)
    throw new OutboxItemError(`outbox item ${id} changed meanwhile (an apply settled it): see ohs outbox`);
  return { ...item, state, resolution: `manual-${decision}` };
}

/** The ops whose declaration says they are permanent (person.delete). */
const destructiveOps = opNames.filter((op) => ops[op].destructive === true);

/** Items of a destructive op (person.delete) queued and not confirmed yet. */
export async function unconfirmedDeletes(mirror: Mirror): Promise<OutboxItem[]> {
  if (destructiveOps.length === 0) return [];
  return (await mirror.db
    .selectFrom('outbox')
    .selectAll()
    .where('op', 'in', destructiveOps)
    .where('state', '=', 'queued')
    .where('confirmed_at', 'is', null)
    .orderBy('id')
    .execute()) as OutboxItem[];
}

export async function confirmDeletes(
  mirror: Mirror,
  ids: number[],
  now = new Date().toISOString(),
): Promise<void> {
  if (ids.length === 0) return;
  await mirror.db
    .updateTable('outbox')
    .set({ confirmed_at: now, updated_at: now })
    .where('id', 'in', ids)
    .execute();
}
