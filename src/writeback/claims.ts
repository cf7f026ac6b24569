import type { Mirror, OutboxState, OutboxTable } from '../mirror/index.js';
import { stateEntered } from './events.js';
import type { Json, Reading } from './ops/types.js';
import { maskDeep, redaction } from './privacy.js';

/**
 * The outbox's state changes during an apply, each one conditional UPDATE in its own committed
 * statement, checked by the number of rows it changed: a change that finds the item in another
 * state than expected changes nothing and says so. Plain Kysely, no engine-specific SQL.
 */
export type OutboxItem = OutboxTable & { id: number };
export type OutboxChange = Partial<Omit<OutboxTable, 'id'>>;

export interface EvidenceRead {
  at: string;
  run: string;
  verdict: Reading['verdict'];
  evidence: Json;
  note: string;
}

export class Claims {
  constructor(
    private readonly mirror: Mirror,
    /** `pid@host run-id` of this apply run. */
    readonly claimant: string,
    readonly run: string,
    private readonly now: () => string,
  ) {}

  private async change(
    id: number,
    from: OutboxState,
    set: OutboxChange,
    claimedBy?: string,
  ): Promise<boolean> {
    const at = this.now();
    let q = this.mirror.db
      .updateTable('outbox')
      .set({ ...set, updated_at: at })
      .where('id', '=', id)
      .where('state', '=', from);
    if (claimedBy !== undefined) q = q.where('claimed_by', '=', claimedBy);
    const r = await q.executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    if (set.state !== undefined && set.state !== from)
      await stateEntered(this.mirror.db, [id], set.state, at);
    return true;
  }

  /**
   * `queued -> sending`, with the evidence read just before: only the process whose update
   * changed the row may send the item. Committed before any byte of the request leaves.
   */
  async claim(item: OutboxItem, before: Json | null, request: Json): Promise<boolean> {
    const at = this.now();
    const set = {
      state: 'sending' as const,
      claimed_by: this.claimant,
      claimed_at: at,
      balance_before: typeof before?.balance === 'number' ? before.balance : null,
      verify: before === null ? null : JSON.stringify({ before: maskDeep(evidenceOnly(before)) }),
      request: JSON.stringify(request),
      error: null,
      updated_at: at,
    };
    const r = await this.mirror.db
      .updateTable('outbox')
      .set((eb) => ({ ...set, attempts: eb('attempts', '+', 1) }))
      .where('id', '=', item.id)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await stateEntered(this.mirror.db, [item.id], 'sending', at);
    Object.assign(item, set, { attempts: item.attempts + 1 });
    return true;
  }

  /**
   * `queued -> held`: the check at the moment of sending found the change wrong. The evidence
   * read is recorded as a claim's would be (both balances stay on the item); not sent.
   */
  async hold(item: OutboxItem, before: Json | null, reason: string): Promise<boolean> {
    const set: OutboxChange = {
      state: 'held',
      balance_before: typeof before?.balance === 'number' ? before.balance : null,
      verify: before === null ? null : JSON.stringify({ before: maskDeep(evidenceOnly(before)) }),
      hold_reason: reason,
      error: null,
      ...redaction(item.body, this.now()),
    };
    const ok = await this.change(item.id, 'queued', set);
    if (ok) Object.assign(item, set);
    return ok;
  }

  /**
   * The answer came: applied (or refused: failed). Only from `sending`, only by its claimant.
   * Either is terminal: the body keeps no personal values.
   */
  finish(
    item: OutboxItem,
    state: 'applied' | 'conflict' | 'failed' | 'queued',
    set: OutboxChange,
  ): Promise<boolean> {
    const redacted = state === 'queued' ? {} : redaction(item.body, this.now());
    return this.change(item.id, 'sending', { ...redacted, ...set, state }, this.claimant);
  }

  /** No answer that tells: the outcome is unknown, produced by this run. */
  unknown(id: number, error: string): Promise<boolean> {
    return this.change(
      id,
      'sending',
      { state: 'unknown', error, unknown_at: this.now(), unknown_run: this.run },
      this.claimant,
    );
  }

  /**
   * Items left `sending` (or `sent`, by older versions) by an apply that is gone: their request
   * may or may not have left. Called while holding the apply lock, so no live apply owns them.
   */
  async orphansToUnknown(): Promise<number> {
    const orphans = await this.mirror.db
      .selectFrom('outbox')
      .select(['id', 'state', 'claimed_by', 'claimed_at', 'updated_at'])
      .where('state', 'in', ['sending', 'sent'])
      .execute();
    let n = 0;
    for (const o of orphans) {
      const run = o.claimed_by?.split(' ')[1] ?? 'earlier';
      const ok = await this.change(o.id, o.state, {
        state: 'unknown',
        error: `the apply that sent it (${o.claimed_by ?? 'an older version'}) stopped before the answer`,
        unknown_at: o.claimed_at ?? o.updated_at,
        unknown_run: run,
      });
      if (ok) n++;
    }
    return n;
  }

  /** Records one reconciliation read on the item and settles it as the reads allow. */
  async recordRead(
    item: OutboxItem,
    read: EvidenceRead,
    next: { state: OutboxState; set?: OutboxChange },
  ): Promise<boolean> {
    const reads = [...readsOf(item), { ...read, evidence: maskDeep(read.evidence) as Json }];
    const ok = await this.change(item.id, 'unknown', {
      ...(next.state === 'applied' ? redaction(item.body, this.now()) : {}),
      ...next.set,
      state: next.state,
      evidence: JSON.stringify(reads),
    });
    if (ok) item.evidence = JSON.stringify(reads);
    return ok;
  }

  /**
   * Releases that are over: items a person released (`ohs apply --release`) still queued and not
   * claimed since, held again with their release's who and when in `resolution`. All of them at
   * the start of an apply (a release lasts for the apply it was given to, which failed or was
   * killed), or `ids` at the end of the apply that released them.
   */
  async lapseReleases(ids?: number[]): Promise<number> {
    if (ids !== undefined && ids.length === 0) return 0;
    let q = this.mirror.db
      .selectFrom('outbox')
      .select(['id', 'released_at', 'released_by'])
      .where('state', '=', 'queued')
      .where('released_at', 'is not', null)
      .where((eb) => eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', eb.ref('released_at'))]));
    if (ids !== undefined) q = q.where('id', 'in', ids);
    let n = 0;
    for (const r of await q.execute()) {
      const ok = await this.change(r.id, 'queued', {
        state: 'held',
        released_at: null,
        released_by: null,
        resolution: `release by ${r.released_by ?? 'a person'} at ${r.released_at ?? '?'} lapsed: the apply it was given to ended without sending it`,
      });
      if (ok) n++;
    }
    return n;
  }

  /** An idempotent item whose outcome is unknown: safe to send again. */
  requeue(id: number, note: string): Promise<boolean> {
    return this.change(id, 'unknown', { state: 'queued', resolution: note });
  }

  async load(): Promise<OutboxItem[]> {
    return (await this.mirror.db
      .selectFrom('outbox')
      .selectAll()
      .where('state', 'in', ['queued', 'unknown'])
      .orderBy('id')
      .execute()) as OutboxItem[];
  }

  async state(id: number): Promise<OutboxState | undefined> {
    const r = await this.mirror.db
      .selectFrom('outbox')
      .select('state')
      .where('id', '=', id)
      .executeTakeFirst();
    return r?.state;
  }
}

export function readsOf(item: Pick<OutboxTable, 'evidence'>): EvidenceRead[] {
  if (item.evidence === null) return [];
  return JSON.parse(item.evidence) as EvidenceRead[];
}

/** The recorded `before` evidence of an item (what its claim read). */
export function beforeOf(item: Pick<OutboxTable, 'verify'>): Json | null {
  if (item.verify === null) return null;
  const v = JSON.parse(item.verify) as { before?: Json };
  return v.before ?? null;
}

/** The whole invoice record is read for the mirror, but only its balance is evidence. */
export function evidenceOnly(before: Json): Json {
  const { invoice: _invoice, ...rest } = before;
  return rest;
}
