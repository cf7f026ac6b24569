import { type AliasedSelectQueryBuilder, type Kysely, sql } from 'kysely';
import { DAY } from '../dates.js';
import { OhsError } from '../errors.js';
import type { Database, ResourceRow, ResourceTableName } from './db-types.js';
import type { EngineDdl } from './ddl.js';
import { metaKeys, readMeta, writeMeta } from './meta.js';
import { columnKind, q, type TableDef, tableDefs } from './tables.js';

/**
 * The mirror's memory: every version of every mirrored record as the mirror observed
 * it, in `h_<table>` beside the table, with the interval it held: `valid_from` the sync instant
 * that wrote it, `valid_to` the instant a later write replaced it or found it gone (null: the
 * current version). The engines' writers add a version in the same statement or transaction as
 * the page that changed the row (sqlite/writer.ts, postgres/page.ts); an unchanged record adds
 * nothing. Versions hold the row exactly as the table does (the values the writer's `prepare`
 * masked), so masking is the current table's. Child tables (Applicant's info[]) have no history
 * of their own: the parent's `raw` holds them in each version.
 *
 * Reads go through `asOf`, which gives a table as it stood at an instant with the table's own
 * columns, so a report query switches by naming `asOf(db, 'invoice', at)` instead of `'invoice'`.
 */
export const historyTableOf = (table: string): string => `h_${table}`;
/** The view BI users read: the typed columns (no `raw`) with the interval. */
export const historyViewOf = (table: string): string => `${table}_history`;

const historyMeta = { since: metaKeys.historySince, prunedBefore: metaKeys.historyPrunedBefore } as const;

/** Creates the history tables and views, and makes the present of an existing mirror its first version. */
export async function createHistory(db: Kysely<Database>, ddl: EngineDdl): Promise<void> {
  let seeded = false;
  for (const def of tableDefs) {
    const h = historyTableOf(def.table);
    let t = db.schema.createTable(h);
    for (const c of def.columns) t = t.addColumn(c.name, ddl.type(columnKind(c)));
    await t
      .addColumn('raw', ddl.type('json'), (col) => col.notNull())
      .addColumn('valid_from', ddl.type('text'), (col) => col.notNull())
      .addColumn('valid_to', ddl.type('text'))
      .execute();
    // The versions of an id, read by each write that closes the open one. Not partial (`WHERE
    // valid_to IS NULL`) and nothing on valid_to: closing a version then changes no index (on
    // PostgreSQL it may be a HOT update); the nightly prune reads the table through.
    await db.schema.createIndex(`${h}_id_idx`).on(h).column('id').execute();
    // The upgrade: each row's present version from the instant it was last written (synced_at:
    // unchanged re-reads do not rewrite it, so that is when the mirror saw this version begin),
    // a deleted row's ending when it was found gone.
    const cols = [...def.columns.map((c) => q(c.name)), 'raw'].join(', ');
    const r = await sql`INSERT INTO ${sql.raw(q(h))} (${sql.raw(cols)}, valid_from, valid_to)
      SELECT ${sql.raw(cols)}, synced_at, deleted_at FROM ${sql.raw(q(def.table))}
      WHERE deleted_at IS NULL OR deleted_at > synced_at`.execute(db);
    if (Number(r.numAffectedRows ?? 0) > 0) seeded = true;
    await createHistoryView(db, def);
  }
  // Versions before the upgrade were never kept: the history of an upgraded mirror begins now.
  if (seeded) await writeMeta(db, historyMeta.since, new Date().toISOString());
}

async function createHistoryView(db: Kysely<Database>, def: TableDef): Promise<void> {
  const cols = def.columns.map((c) => q(c.name)).join(', ');
  await sql`CREATE VIEW ${sql.raw(q(historyViewOf(def.table)))} AS
    SELECT ${sql.raw(cols)}, valid_from, valid_to, CASE WHEN valid_to IS NULL THEN 1 ELSE 0 END AS is_current
    FROM ${sql.raw(q(historyTableOf(def.table)))}`.execute(db);
}

/**
 * A resource table as the mirror knew it at `instant` (ISO 8601 UTC), with the table's columns
 * (`synced_at` the instant that version was written, `deleted_at` null, `seen_pass` null): name
 * it where the query named the table. `undefined`: the table as it is now. Refuse instants
 * before the history begins with `checkAsOf` first. `alias`: the name the query gives it
 * (`orderitem as o`); default the table's.
 */
export function asOf<DB, T extends ResourceTableName & keyof DB & string, A extends string = T>(
  db: Kysely<DB>,
  table: T,
  instant: string | undefined,
  alias?: A,
): AliasedSelectQueryBuilder<DB[T], A> {
  const mirror = db as unknown as Kysely<Database>;
  const current =
    instant === undefined
      ? mirror.selectFrom(table).selectAll()
      : mirror
          .selectFrom(sql<ResourceRow>`${sql.raw(q(historyTableOf(table)))}`.as('h'))
          .select(versionColumns(table))
          .where(sql.ref('valid_from'), '<=', instant)
          .where((eb) => eb.or([eb(sql.ref('valid_to'), 'is', null), eb(sql.ref('valid_to'), '>', instant)]));
  return current.as(alias ?? table) as unknown as AliasedSelectQueryBuilder<DB[T], A>;
}

/**
 * Every version of a table that the mirror held at some instant from `from` to `to` (ISO 8601
 * UTC), with the table's columns as `asOf` gives them and `valid_from`, `valid_to`: one read for
 * many instants (a trend at each month end), each instant's rows then picked with `heldAt`.
 */
export function asOfSpan<DB, T extends ResourceTableName & keyof DB & string>(
  db: Kysely<DB>,
  table: T,
  from: string,
  to: string,
): AliasedSelectQueryBuilder<DB[T] & { valid_from: string; valid_to: string | null }, T> {
  const mirror = db as unknown as Kysely<Database>;
  return mirror
    .selectFrom(sql<ResourceRow>`${sql.raw(q(historyTableOf(table)))}`.as('h'))
    .select([
      ...versionColumns(table),
      sql.ref('valid_from').as('valid_from'),
      sql.ref('valid_to').as('valid_to'),
    ])
    .where(sql.ref('valid_from'), '<=', to)
    .where((eb) => eb.or([eb(sql.ref('valid_to'), 'is', null), eb(sql.ref('valid_to'), '>', from)]))
    .as(table) as unknown as AliasedSelectQueryBuilder<
    DB[T] & { valid_from: string; valid_to: string | null },
    T
  >;
}

/** Whether a version read by `asOfSpan` is the one the mirror held at `instant` (asOf's rule). */
export function heldAt(version: { valid_from: string; valid_to: string | null }, instant: string): boolean {
  return version.valid_from <= instant && (version.valid_to === null || version.valid_to > instant);
}

const versionColumnCache = new Map<string, ReturnType<typeof buildVersionColumns>>();

function buildVersionColumns(table: string) {
  const def = tableDefs.find((d) => d.table === table);
  if (def === undefined) throw new Error(`no mirror table ${table}`);
  return [
    ...def.columns.map((c) => sql.ref(c.name).as(c.name)),
    sql.ref('raw').as('raw'),
    sql.ref('valid_from').as('synced_at'),
    sql<string | null>`NULL`.as('deleted_at'),
    sql<string | null>`NULL`.as('seen_pass'),
  ];
}

function versionColumns(table: string) {
  let cols = versionColumnCache.get(table);
  if (cols === undefined) {
    cols = buildVersionColumns(table);
    versionColumnCache.set(table, cols);
  }
  return cols;
}

/** An as-of instant the mirror cannot answer for: before its history begins, or no history yet. */
export class AsOfBeforeHistoryError extends OhsError {
  override name = 'AsOfBeforeHistoryError';
  override readonly exitCode = 2;
  constructor(message: string) {
    super('AS_OF_BEFORE_HISTORY', message);
  }
}

/**
 * The first instant the mirror's history answers for, or null when it has none: the upgrade
 * instant of a mirror made before history (its earlier versions were never kept), else the end
 * of its first successful sync (earlier, the mirror held a part of the service at most); never
 * before the cutoff of the last prune.
 */
export async function historyStart(db: Kysely<Database>): Promise<string | null> {
  let since: string | null | undefined;
  let pruned: string | undefined;
  try {
    since = await readMeta(db, historyMeta.since);
    pruned = await readMeta(db, historyMeta.prunedBefore);
    await db
      .selectFrom(sql.raw(q(historyTableOf('invoice'))).as('h'))
      .select(sql`1`.as('x'))
      .limit(1)
      .execute();
  } catch (err) {
    // A mirror opened read-only that has not been upgraded to keep history: no history. Any
    // other failure (a lost connection) is not an answer.
    if (/no such table|does not exist/i.test(err instanceof Error ? err.message : '')) return null;
    throw err;
  }
  if (since === undefined) {
    const first = await db
      .selectFrom('sync_run')
      .select((eb) => eb.fn.min('ended_at').as('at'))
      .where('outcome', '=', 'ok')
      .executeTakeFirst();
    since = (first?.at as string | null | undefined) ?? null;
  }
  if (since === null) return null;
  return pruned !== undefined && pruned > since ? pruned : since;
}

/**
 * The latest instant at which any of these resources' history changed (a version began or ended:
 * a sync or a write-back answer observed it), or null when none has a version. Names that are no
 * resource table are passed over.
 */
export async function latestChange(db: Kysely<Database>, tables: readonly string[]): Promise<string | null> {
  let latest: string | null = null;
  for (const { table } of tableDefs.filter((d) => tables.includes(d.table))) {
    const row = await db
      .selectFrom(sql.raw(q(historyTableOf(table))).as('h'))
      .select([
        sql<string | null>`max(valid_from)`.as('began'),
        sql<string | null>`max(valid_to)`.as('ended'),
      ])
      .executeTakeFirst();
    for (const t of [row?.began, row?.ended])
      if (typeof t === 'string' && (latest === null || Date.parse(t) > Date.parse(latest))) latest = t;
  }
  return latest;
}

/** Refuses an as-of instant the history cannot answer for (AS_OF_BEFORE_HISTORY), naming both instants. */
export async function checkAsOf(db: Kysely<Database>, instant: string, what: string): Promise<void> {
  const start = await historyStart(db);
  if (start === null)
    throw new AsOfBeforeHistoryError(
      `${what} ${instant}: the mirror has no history yet (no complete sync since it began keeping one): run ohs sync, or leave out the as-of to read the present`,
    );
  if (instant < start)
    throw new AsOfBeforeHistoryError(
      `${what} ${instant} is before the mirror's history begins (${start}): the mirror did not know then what it holds; give a later instant, or --present to age today's figures`,
    );
}

/**
 * Removes versions that ended more than `days` before `now` (never a current one), in the
 * caller's transaction; returns how many. Instants before the cutoff are refused afterwards.
 */
export async function pruneHistory(db: Kysely<Database>, days: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - days * DAY).toISOString();
  let n = 0;
  for (const def of tableDefs) {
    const r =
      await sql`DELETE FROM ${sql.raw(q(historyTableOf(def.table)))} WHERE valid_to IS NOT NULL AND valid_to < ${cutoff}`.execute(
        db,
      );
    n += Number(r.numAffectedRows ?? 0);
  }
  const before = await readMeta(db, historyMeta.prunedBefore);
  if (before === undefined || before < cutoff) await writeMeta(db, historyMeta.prunedBefore, cutoff);
  return n;
}
