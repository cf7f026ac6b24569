import type { Kysely } from 'kysely';
import type { ResourceName } from '../../schema/index.js';
import type { Database as MirrorDb } from '../db-types.js';
import type {
  CheckpointRow,
  DeletionAudit,
  MirrorWriter,
  SeenState,
  UpsertCounts,
  UpsertOptions,
  WriteOptions,
} from '../store.js';
import type { SqliteStatements } from './writer.js';

/**
 * The writer of one SQLite write transaction: the synchronous statements behind the async
 * interface (one promise per call, each call a whole page), `db` bound to the transaction's
 * connection.
 */
export class SqliteWriter implements MirrorWriter {
  constructor(
    readonly db: Kysely<MirrorDb>,
    private readonly s: SqliteStatements,
  ) {}

  async upsert(
    resource: ResourceName,
    records: readonly Record<string, unknown>[],
    options: UpsertOptions,
  ): Promise<UpsertCounts> {
    return this.s.upsert(resource, records, options);
  }

  async recordStatus(records: readonly Record<string, unknown>[], now: string): Promise<void> {
    this.s.recordStatus(records, now);
  }

  async softDelete(
    resource: ResourceName,
    ids: readonly (number | string)[],
    audit: DeletionAudit,
  ): Promise<number> {
    return this.s.softDelete(resource, ids, audit);
  }

  async stagePage(
    resource: ResourceName,
    stream: string,
    records: readonly Record<string, unknown>[],
    now: string,
    options?: WriteOptions,
  ): Promise<UpsertCounts> {
    return this.s.stagePage(resource, stream, records, now, options);
  }

  async markSeen(stream: string, ids: readonly (number | string)[], state: SeenState): Promise<void> {
    this.s.markSeen(stream, ids, state);
  }

  async applyPass(
    resource: ResourceName,
    stream: string,
    now: string,
    options?: WriteOptions,
  ): Promise<void> {
    this.s.applyPass(resource, stream, now, options);
  }

  async clearPassIds(stream: string): Promise<void> {
    this.s.clearPassIds(stream);
  }

  async saveCheckpoint(row: CheckpointRow, now: string): Promise<void> {
    this.s.saveCheckpoint(row, now);
  }

  async setPass(
    stream: string,
    passId: string | null,
    now: string,
    completed?: 'full' | 'other',
  ): Promise<void> {
    this.s.setPass(stream, passId, now, completed);
  }

  async setRereadCursor(stream: string, cursor: string | null, roundAt: string | null): Promise<void> {
    this.s.setRereadCursor(stream, cursor, roundAt);
  }
}
