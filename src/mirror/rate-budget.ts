import { createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type {
  CubicState,
  LeaseRequest,
  LeaseResult,
  RateBudgetStore,
  SharedRate,
} from '../api/rate/index.js';
import type { Database, RateBudgetTable } from './db-types.js';
import { metaKeys, readMeta, writeMeta } from './meta.js';

/** A cut within this long of another process's belongs to the same episode: not cut twice. */
const EPISODE_MS = 1000;
/** Optimistic updates retried this often before giving up (another process kept winning). */
const ATTEMPTS = 8;

const finite = (n: number | null): number => (n === null ? Number.POSITIVE_INFINITY : n);
const stored = (n: number): number | null => (Number.isFinite(n) ? n : null);

function shared(row: RateBudgetTable): SharedRate {
  return {
    rate: finite(row.rate),
    wMax: row.w_max,
    cutAt: row.cut_at,
    goodRate: row.good_rate ?? undefined,
    updatedAt: row.updated_ms,
    version: row.version,
  };
}

/**
 * The shared rate budget in the mirror (table `rate_budget`, migration 0009): one row per service
 * and token hash, holding the controller's state and the shared schedule (GCRA's theoretical
 * arrival time `tat`: the token bucket in virtual time, so that a lease is one write that never
 * has to be refused and retried). Every change is a
 * conditional update on the row's `version` (read, compute, `UPDATE ... WHERE version = ?`, retry
 * when another process got there first): atomic on SQLite and on PostgreSQL alike, with no lock
 * held across a network call and no engine-specific SQL.
 */
export class MirrorRateBudget implements RateBudgetStore {
  private secret: Promise<string> | undefined;
  private readonly keys = new Map<string, string>();

  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The row key of a budget key (`URL#sha256(token)`, in memory only): the URL and an HMAC of
   * the token's hash with this mirror's random secret (mirror_meta `rate.key_secret`, made once),
   * so a token guessed offline cannot be confirmed from the rate_budget table alone, nor the
   * same token recognised across mirrors.
   */
  async rowKey(key: string): Promise<string> {
    const known = this.keys.get(key);
    if (known !== undefined) return known;
    this.secret ??= (async () => {
      await writeMeta(this.db, metaKeys.rateKeySecret, randomBytes(32).toString('hex'), true);
      const stored = await readMeta(this.db, metaKeys.rateKeySecret);
      if (stored === undefined) throw new Error('mirror_meta: no rate key secret after writing one');
      return stored;
    })();
    const cut = key.lastIndexOf('#');
    const mac = createHmac('sha256', await this.secret)
      .update(key.slice(cut + 1))
      .digest('hex')
      .slice(0, 32);
    const row = `${key.slice(0, cut)}#${mac}`;
    this.keys.set(key, row);
    return row;
  }

  async load(budget: string): Promise<SharedRate | undefined> {
    const key = await this.rowKey(budget);
    const row = await this.read(key);
    return row === undefined ? undefined : shared(row);
  }

  async lease(budget: string, req: LeaseRequest): Promise<LeaseResult> {
    const key = await this.rowKey(budget);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const row = await this.read(key);
      const now = Date.now();
      if (row === undefined) {
        await this.create(key, req.state, now);
        continue;
      }
      // The caller's state becomes the shared one, unless another process cut since it last looked.
      const state: CubicState =
        row.cut_at > req.seenCutAt || row.cut_at > req.state.cutAt
          ? { rate: finite(row.rate), wMax: row.w_max, cutAt: row.cut_at }
          : req.state;
      const rate = finite(row.rate);
      // GCRA: the schedule may lag behind now by the burst at most (an idle budget's credit).
      const begin = Math.max(row.tat, now - req.burstMs);
      const tat = Number.isFinite(rate) ? begin + (req.want * 1000) / rate : now;
      const next = {
        tat,
        rate: stored(state.rate),
        w_max: state.wMax,
        cut_at: state.cutAt,
        version: row.version + 1,
        updated_ms: now,
      };
      if (await this.update(key, row.version, next)) {
        const waitMs = Number.isFinite(rate) ? Math.max(0, Math.ceil(begin - now)) : 0;
        return { granted: req.want, waitMs, shared: shared({ ...row, ...next }) };
      }
    }
    // Contention this heavy: grant nothing now, the caller asks again shortly.
    const row = await this.read(key);
    if (row === undefined) throw new Error('rate budget row vanished');
    return { granted: 0, waitMs: 10, shared: shared(row) };
  }

  async cut(budget: string, state: CubicState): Promise<SharedRate> {
    const key = await this.rowKey(budget);
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const row = await this.read(key);
      const now = Date.now();
      if (row === undefined) {
        await this.create(key, state, now);
        continue;
      }
      if (row.cut_at > state.cutAt - EPISODE_MS) return shared(row);
      const next = {
        rate: stored(state.rate),
        w_max: state.wMax,
        cut_at: state.cutAt,
        version: row.version + 1,
        updated_ms: now,
      };
      if (await this.update(key, row.version, next)) return shared({ ...row, ...next });
    }
    const row = await this.read(key);
    if (row === undefined) throw new Error('rate budget row vanished');
    return shared(row);
  }

  async saveGood(budget: string, rate: number, now: number): Promise<void> {
    const key = await this.rowKey(budget);
    await this.db
      .updateTable('rate_budget')
      .set({ good_rate: rate, updated_ms: now })
      .where('key', '=', key)
      .execute();
  }

  private read(key: string): Promise<RateBudgetTable | undefined> {
    return this.db.selectFrom('rate_budget').selectAll().where('key', '=', key).executeTakeFirst();
  }

  private async create(key: string, state: CubicState, now: number): Promise<void> {
    await this.db
      .insertInto('rate_budget')
      .values({
        key,
        rate: stored(state.rate),
        w_max: state.wMax,
        cut_at: state.cutAt,
        tat: now,
        good_rate: null,
        version: 0,
        updated_ms: now,
      })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  }

  private async update(key: string, version: number, set: Partial<RateBudgetTable>): Promise<boolean> {
    const result = await this.db
      .updateTable('rate_budget')
      .set(set)
      .where('key', '=', key)
      .where('version', '=', version)
      .executeTakeFirst();
    return result.numUpdatedRows === 1n;
  }
}
