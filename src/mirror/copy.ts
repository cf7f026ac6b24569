import type { Kysely } from 'kysely';
import { OhsError } from '../errors.js';
import type { Database } from './db-types.js';
import type { EngineDdl } from './ddl.js';
import { historyTableOf } from './history.js';
import { postgresDdl } from './postgres/ddl.js';
import { pgValue, rawJson } from './postgres/values.js';
import { sqliteDdl } from './sqlite/ddl.js';
import type { Mirror } from './store.js';
import { type ChildTableDef, type ColumnDef, columnKind, tableDefs } from './tables.js';

/**
 * Copies a whole mirror into another, empty one, whatever their engines (SQLite to PostgreSQL and
 * back), so a team moves its mirror without a full re-sync: every table the migrations make but
 * the data dictionary (each mirror writes its own) and the SQLite lock rows, with their ids, run
 * history, outbox and pass state. Portable Kysely only; what differs per engine is in its ddl
 * (values coerced to PostgreSQL's types, identity keys moved past the copied ids).
 */
export class MirrorCopyError extends OhsError {
  override name = 'MirrorCopyError';
  override readonly exitCode = 2;
  constructor(message: string) {
    super('MIRROR_COPY_FAILED', message);
  }
}

type Row = Record<string, unknown>;
type Db = Kysely<Database>;

interface CopyTable {
  table: string;
  /** Key columns (keyset pagination on a single `id`; offset on composite keys). */
  key: string[];
  /** Typed columns of a resource or child table (values coerced for PostgreSQL). */
  columns?: readonly ColumnDef[];
}

function copyTables(): CopyTable[] {
  const out: CopyTable[] = [
    { table: 'mirror_meta', key: ['key'] },
    { table: 'rate_budget', key: ['key'] },
    { table: 'org_policy', key: ['org_id'] },
    { table: 'h_org_policy', key: ['org_id', 'valid_from'] },
    { table: 'sync_run', key: ['id'] },
    { table: 'sync_stream_run', key: ['id'] },
    { table: 'sync_checkpoint', key: ['stream', 'part'] },
    { table: 'sync_stream_state', key: ['stream'] },
    { table: 'sync_deletion', key: ['id'] },
    { table: 'sync_pass_seen', key: ['stream', 'id'] },
    { table: 'sync_pass_stage', key: ['stream', 'id'] },
    { table: 'sync_failed_id', key: ['stream', 'id'] },
    { table: 'sync_type_error', key: ['run_id', 'stream', 'field'] },
    { table: 'orderitem_status_history', key: ['id'] },
    { table: 'job_run', key: ['id'] },
    { table: 'outbox', key: ['id'] },
    { table: 'outbox_event', key: ['id'] },
  ];
  const children = (list: readonly ChildTableDef[]) => {
    for (const c of list) {
      out.push({ table: c.table, key: ['id'], columns: c.columns });
      children(c.children);
    }
  };
  for (const def of tableDefs) {
    out.push({ table: def.table, key: ['id'], columns: def.columns });
    children(def.children);
    // Its history (history.ts): an id has several versions, told apart by their interval.
    out.push({
      table: historyTableOf(def.table),
      key: ['id', 'valid_from', 'valid_to'],
      columns: def.columns,
    });
  }
  return out;
}

/** The tables with generated keys, whose next key must follow the copied ones. */
export const serialTables = [
  'sync_run',
  'sync_stream_run',
  'sync_deletion',
  'orderitem_status_history',
  'job_run',
  'outbox',
  'outbox_event',
];

function coerce(t: CopyTable, row: Row, to: EngineDdl): Row {
  if (to.engine !== 'postgres' || t.columns === undefined) return row;
  const out: Row = { ...row };
  for (const c of t.columns) out[c.name] = pgValue(columnKind(c), row[c.name]);
  if (typeof row.raw === 'string') out.raw = rawJson(JSON.parse(row.raw) as Row);
  return out;
}

async function readChunk(
  from: Db,
  t: CopyTable,
  after: unknown,
  offset: number,
  size: number,
): Promise<Row[]> {
  // The table names are the mirror's own (copyTables), typed loosely as the resource tables are.
  let q = from.selectFrom(t.table as 'outbox').selectAll();
  for (const k of t.key) q = q.orderBy(k as 'id');
  if (t.key.length === 1 && t.key[0] === 'id') {
    if (after !== undefined) q = q.where('id', '>', after as number);
    return (await q.limit(size).execute()) as Row[];
  }
  return (await q.limit(size).offset(offset).execute()) as Row[];
}

/**
 * Copies `from` into `to` (both migrated; `to` must hold no rows in the copied tables), in one
 * transaction on `to`. Returns the rows copied per table.
 */
export async function copyMirror(from: Db, to: Db, toDdl: EngineDdl): Promise<Record<string, number>> {
  const tables = copyTables();
  for (const t of tables) {
    const any = await to
      .selectFrom(t.table as 'outbox')
      .select(t.key[0] as 'id')
      .limit(1)
      .execute();
    if (any.length > 0)
      throw new MirrorCopyError(`the target mirror is not empty (table ${t.table} has rows)`);
  }
  const counts: Record<string, number> = {};
  await to.transaction().execute(async (trx) => {
    for (const t of tables) {
      const first = (await readChunk(from, t, undefined, 0, 1))[0];
      const width = Math.max(1, Object.keys(first ?? {}).length);
      // Under both engines' limit of bound parameters (PostgreSQL 65535, SQLite 32766).
      const size = Math.max(1, Math.min(2000, Math.floor(30000 / width)));
      let n = 0;
      let after: unknown;
      for (;;) {
        const rows = await readChunk(from, t, after, n, size);
        if (rows.length === 0) break;
        await trx
          .insertInto(t.table as 'outbox')
          .values(rows.map((r) => coerce(t, r, toDdl)) as never[])
          .execute();
        n += rows.length;
        after = rows[rows.length - 1]?.id;
        if (rows.length < size) break;
      }
      counts[t.table] = n;
    }
    await toDdl.afterCopy?.(trx, serialTables);
  });
  return counts;
}

/** Copies one open mirror into another (empty) one, on their engines (`ohs mirror copy`). */
export function copyMirrorInto(from: Mirror, to: Mirror): Promise<Record<string, number>> {
  if (to.readonly) throw new MirrorCopyError(`${to.location} is open read-only`);
  return copyMirror(from.db, to.db, to.engine === 'postgres' ? postgresDdl : sqliteDdl);
}
