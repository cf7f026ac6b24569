import { type ResourceName, resources } from '../../schema/index.js';
import { historyTableOf } from '../history.js';
import { maskRecord } from '../mask.js';
import { type CheckpointRow, seenState } from '../store.js';
import { q, tableOf } from '../tables.js';
import { type PageMethod, type PgClientLike, upsertPage } from './page.js';
import { pgValue, rawJson, rounds } from './values.js';

/**
 * The writes of the PostgreSQL mirror, each a whole page (or list) in one statement where the
 * SQLite engine runs a prepared statement per row: the same semantics (see
 * src/mirror/sqlite/writer.ts), one round trip per call. Every method runs on the client of the
 * write transaction under way (PgMirror.write), so a page, its checkpoint and its history
 * commit together.
 */
export interface Counts {
  inserted: number;
  updated: number;
  unchanged: number;
}

type Rec = Record<string, unknown>;

/** sync_pass_seen's state of an id seen upstream. */
const SEEN = seenState.seen;

export class PgStatements {
  /** Resources being bulk-loaded into a table that was empty: pages are written, not staged. */
  private readonly fresh = new Set<ResourceName>();

  constructor(
    private readonly storeSensitive: boolean,
    /** How a page travels: unnest (the default, measured faster) or COPY + merge. */
    private readonly method: PageMethod = 'unnest',
    /** Keep every version of the records (history.ts); off only to measure its cost (bench). */
    private readonly keepHistory = true,
  ) {}

  /** The record as the mirror keeps it: sensitive fields masked unless configured otherwise. */
  prepare(resource: ResourceName, record: Rec): Rec {
    return this.storeSensitive ? record : maskRecord(resources[resource].spec, record);
  }

  async upsert(
    c: PgClientLike,
    resource: ResourceName,
    records: readonly Rec[],
    options: { now: string; pass?: string | undefined; prepared?: boolean },
  ): Promise<Counts> {
    if (records.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    const prepared = options.prepared === true ? records : records.map((r) => this.prepare(resource, r));
    const r = await upsertPage(
      c,
      tableOf(resource),
      prepared,
      options.now,
      options.pass ?? null,
      this.method,
      this.keepHistory,
    );
    return { inserted: r.inserted, updated: r.updated, unchanged: r.unchanged };
  }

  /**
   * Status history of order items, a page in one statement: the latest history row of each item
   * read, touched when the status is the same, a new row inserted when it differs (or there is
   * none), in the page's order (history ids as SQLite gives them). An item twice in one page is
   * handled in two rounds, as one by one.
   */
  async recordStatus(c: PgClientLike, records: readonly Rec[], now: string): Promise<void> {
    for (const round of rounds(records, (r) => String(r.id))) {
      if (round.length === 0) continue;
      await c.query(
        `WITH i AS (
           SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY
             AS u(orderitem_id, status_id, status_code, status_name, n)),
         latest AS (
           SELECT DISTINCT ON (h.orderitem_id) h.orderitem_id, h.id, h.status_id
           FROM orderitem_status_history h JOIN i ON h.orderitem_id = i.orderitem_id
           ORDER BY h.orderitem_id, h.id DESC),
         touched AS (
           UPDATE orderitem_status_history h SET last_seen_at = $5
           FROM i JOIN latest l ON l.orderitem_id = i.orderitem_id
           WHERE h.id = l.id AND l.status_id IS NOT DISTINCT FROM i.status_id)
         INSERT INTO orderitem_status_history (orderitem_id, status_id, status_code, status_name, first_seen_at, last_seen_at)
         SELECT i.orderitem_id, i.status_id, i.status_code, i.status_name, $5, $5
         FROM i LEFT JOIN latest l ON l.orderitem_id = i.orderitem_id
         WHERE l.id IS NULL OR l.status_id IS DISTINCT FROM i.status_id
         ORDER BY i.n`,
        [
          round.map((r) => pgValue('id', r.id)),
          round.map((r) => pgValue('id', r.CurrentStatusId)),
          round.map((r) => pgValue('text', r.c_currentStatusCodeId)),
          round.map((r) => pgValue('text', r.c_currentStatusCodeName)),
          now,
        ],
      );
    }
  }

  /** Soft-deletes rows with one audit row each (one statement); returns how many changed. */
  async softDelete(
    c: PgClientLike,
    resource: ResourceName,
    ids: readonly (number | string)[],
    audit: { runId: number; stream: string; now: string },
  ): Promise<number> {
    if (ids.length === 0) return 0;
    const def = tableOf(resource);
    const idType = def.idType === 'TEXT' ? 'text[]' : 'bigint[]';
    const keys = ids.map((id) => (def.idType === 'TEXT' ? String(id) : pgValue('id', id)));
    // The deletion ends the record's open version (history.ts).
    const closed = this.keepHistory
      ? `, closed AS (UPDATE ${q(historyTableOf(def.table))} SET valid_to = $2
           WHERE id IN (SELECT id FROM d) AND valid_to IS NULL)`
      : '';
    const r = await c.query(
      `WITH d AS (
         UPDATE ${q(def.table)} SET deleted_at = $2
         WHERE id = ANY($1::${idType}) AND deleted_at IS NULL RETURNING id)${closed}
       INSERT INTO sync_deletion (run_id, stream, table_name, row_id, deleted_at)
       SELECT $3, $4, $5, d.id::text, $2 FROM d ORDER BY array_position($1::${idType}, d.id)`,
      [keys, audit.now, audit.runId, audit.stream, def.table],
    );
    return r.rowCount ?? 0;
  }

  /** Starts a bulk load when the table is empty (pages are then written, not staged). */
  async beginBulk(c: PgClientLike, resource: ResourceName): Promise<boolean> {
    const def = tableOf(resource);
    const r = await c.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM ${q(def.table)}) AS empty`);
    if (r.rows[0]?.empty !== true) return false;
    this.fresh.add(resource);
    return true;
  }

  endBulk(resource: ResourceName): void {
    this.fresh.delete(resource);
  }

  /**
   * One page of a pass, one statement: every id noted seen; a record equal to the active row is
   * unstaged (left alone), any other staged until the pass ends. Counts are what the pass will
   * write. While the table is bulk-loaded from empty, the page is written at once.
   */
  async stagePage(
    c: PgClientLike,
    resource: ResourceName,
    stream: string,
    records: readonly Rec[],
    now: string,
    options: { statusHistory?: boolean } = {},
  ): Promise<Counts> {
    if (records.length === 0) return { inserted: 0, updated: 0, unchanged: 0 };
    if (this.fresh.has(resource)) {
      await this.markSeen(
        c,
        stream,
        records.map((r) => String(pgKey(r.id))),
        SEEN,
      );
      const counts = await this.upsert(c, resource, records, { now });
      if (options.statusHistory === true) await this.recordStatus(c, records, now);
      return counts;
    }
    const def = tableOf(resource);
    const out: Counts = { inserted: 0, updated: 0, unchanged: 0 };
    const prepared = records.map((r) => this.prepare(resource, r));
    for (const round of rounds(prepared, (r) => String(pgKey(r.id)))) {
      if (round.length === 0) continue;
      const key = def.idType === 'TEXT' ? 'i.id' : 'i.id::bigint';
      const r = await c.query<Counts>(
        `WITH i AS (SELECT * FROM unnest($1::text[], $2::text[]) AS u(id, raw)),
         cur AS (SELECT i.id, t.raw, t.deleted_at FROM i JOIN ${q(def.table)} t ON t.id = ${key}),
         j AS (SELECT i.id, i.raw, c.id IS NOT NULL AS existed,
                 c.id IS NOT NULL AND c.deleted_at IS NULL AND c.raw = i.raw::jsonb AS same
               FROM i LEFT JOIN cur c ON c.id = i.id),
         seen AS (
           INSERT INTO sync_pass_seen (stream, id, state) SELECT $3, id, ${SEEN} FROM i
           ON CONFLICT (stream, id) DO UPDATE SET state = excluded.state),
         unstaged AS (
           DELETE FROM sync_pass_stage s USING j
           WHERE s.stream = $3 AND s.id = j.id AND j.same),
         staged AS (
           INSERT INTO sync_pass_stage (stream, id, raw) SELECT $3, id, raw FROM j WHERE NOT same
           ON CONFLICT (stream, id) DO UPDATE SET raw = excluded.raw)
         SELECT count(*) FILTER (WHERE NOT existed)::int AS inserted,
           count(*) FILTER (WHERE existed AND NOT same)::int AS updated,
           count(*) FILTER (WHERE same)::int AS unchanged
         FROM j`,
        [round.map((x) => String(pgKey(x.id))), round.map(rawJson), stream],
      );
      const n = r.rows[0];
      out.inserted += n?.inserted ?? 0;
      out.updated += n?.updated ?? 0;
      out.unchanged += n?.unchanged ?? 0;
    }
    return out;
  }

  /** Notes ids of the pass under way in a state (one statement). */
  async markSeen(
    c: PgClientLike,
    stream: string,
    ids: readonly (number | string)[],
    state: number,
  ): Promise<void> {
    if (ids.length === 0) return;
    const unique = [...new Set(ids.map((id) => String(id)))];
    await c.query(
      `INSERT INTO sync_pass_seen (stream, id, state) SELECT $1, id, $3 FROM unnest($2::text[]) AS u(id)
       ON CONFLICT (stream, id) DO UPDATE SET state = excluded.state`,
      [stream, unique, state],
    );
  }

  async seenIds(c: PgClientLike, stream: string, state: number): Promise<string[]> {
    const r = await c.query<{ id: string }>(
      'SELECT id FROM sync_pass_seen WHERE stream = $1 AND state = $2',
      [stream, state],
    );
    return r.rows.map((x) => x.id);
  }

  async stagedCount(c: PgClientLike, stream: string): Promise<number> {
    const r = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM sync_pass_stage WHERE stream = $1',
      [stream],
    );
    return r.rows[0]?.n ?? 0;
  }

  /**
   * Writes the staged records of a pass into the mirror, a thousand at a time (their status
   * history too when asked), then forgets the pass's ids.
   */
  async applyPass(
    c: PgClientLike,
    resource: ResourceName,
    stream: string,
    now: string,
    options: { statusHistory?: boolean } = {},
  ): Promise<void> {
    let after = '';
    for (;;) {
      const r = await c.query<{ id: string; raw: string }>(
        'SELECT id, raw FROM sync_pass_stage WHERE stream = $1 AND id > $2 ORDER BY id LIMIT 1000',
        [stream, after],
      );
      if (r.rows.length === 0) break;
      const records = r.rows.map((row) => JSON.parse(row.raw) as Rec);
      await this.upsert(c, resource, records, { now, prepared: true });
      if (options.statusHistory === true) await this.recordStatus(c, records, now);
      after = r.rows[r.rows.length - 1]?.id ?? after;
    }
    await this.clearPassIds(c, stream);
  }

  async clearPassIds(c: PgClientLike, stream: string): Promise<void> {
    await c.query(
      `WITH a AS (DELETE FROM sync_pass_seen WHERE stream = $1) DELETE FROM sync_pass_stage WHERE stream = $1`,
      [stream],
    );
  }

  async saveCheckpoint(c: PgClientLike, row: CheckpointRow, now: string): Promise<void> {
    await c.query(
      `INSERT INTO sync_checkpoint (stream, part, pass_id, mode, cursor, upper, done, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (stream, part) DO UPDATE SET pass_id = excluded.pass_id, mode = excluded.mode,
         cursor = excluded.cursor, upper = excluded.upper, done = excluded.done, updated_at = excluded.updated_at`,
      [row.stream, row.part, row.pass_id, row.mode, row.cursor, row.upper, row.done, now],
    );
  }

  /** Starts (passId) or ends (null) a stream's pass; `completed` also stamps the last full pass. */
  async setPass(
    c: PgClientLike,
    stream: string,
    passId: string | null,
    now: string,
    completed?: 'full' | 'other',
  ): Promise<void> {
    await c.query(
      `WITH s AS (
         INSERT INTO sync_stream_state (stream, pass_id, pass_started_at, last_full_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (stream) DO UPDATE SET pass_id = excluded.pass_id, pass_started_at = excluded.pass_started_at,
           last_full_at = coalesce(excluded.last_full_at, sync_stream_state.last_full_at))
       DELETE FROM sync_checkpoint WHERE $2::text IS NULL AND stream = $1`,
      [stream, passId, passId === null ? null : now, completed === 'full' ? now : null],
    );
  }

  async setRereadCursor(
    c: PgClientLike,
    stream: string,
    cursor: string | null,
    roundAt: string | null,
  ): Promise<void> {
    await c.query(
      `INSERT INTO sync_stream_state (stream, reread_cursor, reread_round_at) VALUES ($1, $2, $3)
       ON CONFLICT (stream) DO UPDATE SET reread_cursor = excluded.reread_cursor,
         reread_round_at = coalesce(excluded.reread_round_at, sync_stream_state.reread_round_at)`,
      [stream, cursor, roundAt],
    );
  }
}

/** An id as the pass tables key it: SQLite's String(toSql(id)). */
function pgKey(id: unknown): string | number | null {
  if (id === undefined || id === null) return null;
  if (typeof id === 'boolean') return id ? 1 : 0;
  if (typeof id === 'number' || typeof id === 'string') return id;
  return JSON.stringify(id);
}
