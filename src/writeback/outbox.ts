import { basename } from 'node:path';
import type { Mirror, OutboxState, OutboxTable } from '../mirror/index.js';
import { OutboxItemError } from './errors.js';
import { stateEntered } from './events.js';
import { opNames, ops } from './ops/index.js';
import { redaction } from './privacy.js';

/**
 * `ohs outbox`: list items; `ohs outbox resolve ID --applied|--retry|--abandon`: decide an unknown,
 * failed or held one; `ohs apply --release ID`: send a held one as it is.
 */
export const outboxStates = [
  'queued',
  'sending',
  'sent',
  'applied',
  'conflict',
  'failed',
  'unknown',
  'held',
  'abandoned',
] as const;

type Decision = 'applied' | 'retry' | 'abandon';
/** The states each decision may settle, and the state it leaves. */
const decisions: Record<Decision, { from: OutboxState[]; to: OutboxState }> = {
  // A conflict too: a person checked the service, and the change stands as it is.
  applied: { from: ['unknown', 'sent', 'conflict'], to: 'applied' },
  retry: { from: ['unknown', 'sent', 'failed'], to: 'queued' },
  // Not unknown: a change that may have been carried out is settled by --applied or --retry.
  abandon: { from: ['held', 'failed', 'queued'], to: 'abandoned' },
};

export type OutboxItem = OutboxTable & { id: number };

export async function listOutbox(mirror: Mirror, state?: OutboxState): Promise<OutboxItem[]> {
  let q = mirror.db.selectFrom('outbox').selectAll();
  if (state !== undefined) q = q.where('state', '=', state);
  return (await q.orderBy('id').execute()) as OutboxItem[];
}

/**
 * Settles an item by hand: `applied` (someone checked the service and it was carried out),
 * `retry` (it was not: back to queued, sent by the next apply) or `abandon` (a held, failed or
 * queued change that is not wanted any more: never sent). Only unknown items, failed ones and sent
 * ones (older versions) can be retried or marked applied; an item `sending` belongs to an apply (a
 * stopped one's become unknown when the next apply starts). Applied and abandoned are terminal:
 * the body keeps no personal values, and an item whose values were removed is not retried (its
 * file is planned again).
 */
export async function resolveItem(
  mirror: Mirror,
  id: number,
  decision: Decision,
  now = new Date().toISOString(),
): Promise<OutboxItem> {
  const item = await itemOf(mirror, id);
  const { from, to } = decisions[decision];
  if (!from.includes(item.state))
    throw new OutboxItemError(
      `outbox item ${id} is ${item.state}: only ${from.join(', ')} items can be marked ${decision === 'abandon' ? 'abandoned' : decision}`,
    );
  if (to === 'queued' && item.redacted_at !== null)
    throw new OutboxItemError(
      `outbox item ${id}: its personal values were removed when it ${item.state === 'held' ? 'was held' : 'failed'}; plan its row again (from a copy of ${basename(item.file)} with another name)`,
    );
  const set = {
    state: to,
    resolution: `manual-${decision}`,
    updated_at: now,
    ...(to === 'queued' ? {} : redaction(item.body, now)),
  };
  // Conditional on the state read: an apply settling it meanwhile wins, and this says so.
  const r = await mirror.db
    .updateTable('outbox')
    .set(set)
    .where('id', '=', id)
    .where('state', '=', item.state)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1)
    throw new OutboxItemError(`outbox item ${id} changed meanwhile (an apply settled it): see ohs outbox`);
  await stateEntered(mirror.db, [id], to, now);
  return { ...item, ...set };
}

async function itemOf(mirror: Mirror, id: number): Promise<OutboxItem> {
  const item = (await mirror.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirst()) as
    | OutboxItem
    | undefined;
  if (item === undefined) throw new OutboxItemError(`no outbox item ${id}`);
  return item;
}

/**
 * `ohs apply --release ID`: held items a person says are meant, queued to be sent by the apply
 * that releases them, under its locks (apply.ts; held again if it does not send them). Who and
 * when are recorded; `--allow-overpayment` given with it is said in `resolution`. All or none:
 * an id that is not held is refused before anything is released.
 */
export async function releaseHeld(
  mirror: Mirror,
  ids: number[],
  release: { by: string; allowOverpayment: boolean; now: string },
) {
  const { now } = release;
  const items = await Promise.all(ids.map((id) => itemOf(mirror, id)));
  for (const item of items) {
    if (item.state !== 'held')
      throw new OutboxItemError(`outbox item ${item.id} is ${item.state}: only held items can be released`);
    if (item.redacted_at !== null)
      throw new OutboxItemError(
        `outbox item ${item.id}: its personal values were removed when it was held; plan its row again`,
      );
  }
  await mirror.db.transaction().execute(async (trx) => {
    for (const item of items) {
      const r = await trx
        .updateTable('outbox')
        .set({
          state: 'queued',
          released_at: now,
          released_by: release.by,
          resolution: release.allowOverpayment ? 'released, overpayment allowed' : 'released',
          updated_at: now,
        })
        .where('id', '=', item.id)
        .where('state', '=', 'held')
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1)
        throw new OutboxItemError(`outbox item ${item.id} changed meanwhile: see ohs outbox`);
    }
    await stateEntered(trx, ids, 'queued', now);
  });
  return items;
}

/** The outbox states that wait for a person, counted for the job's notice and the dashboard. */
export interface OutboxAttention {
  /** Sent, but the service's state read back is not the change's own effect (paid twice?). */
  conflict: number;
  held: number;
  unknown: number;
  failed: number;
}

/** How many items of the outbox wait for a person, per state (counts only: no item's content). */
export async function outboxAttention(db: Mirror['db']): Promise<OutboxAttention> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => ['state', eb.fn.countAll<number | string>().as('n')])
    .where('state', 'in', ['conflict', 'held', 'unknown', 'failed'])
    .groupBy('state')
    .execute();
  const n = (state: OutboxState) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { conflict: n('conflict'), held: n('held'), unknown: n('unknown'), failed: n('failed') };
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
