import { historyTableOf } from '../history.js';
import type { ChildTableDef, TableDef } from '../tables.js';
import { columnKind, q } from '../tables.js';
import { arrayType, columnArray, type PgValue, pgValue, rawJson, rounds } from './values.js';

/**
 * The hot path of the PostgreSQL mirror: a page of records written in one statement (one round
 * trip), whatever its size. The page travels as one typed array per column and `unnest` turns
 * them back into rows, merged with INSERT ... ON CONFLICT DO UPDATE; the rows there before are
 * read in the same statement (a CTE sees the table as it was), which gives the counts and lets a
 * record whose JSON is unchanged go unwritten (not even locked: it never reaches the INSERT),
 * exactly as on SQLite. The alternative, COPY into
 * a temporary table then the same merge, is here too: `npm run bench -- mirror` measures both.
 */
export interface PgClientLike {
  query<R>(text: string, values?: readonly unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** What a page write did: the counts, and the ids it inserted or rewrote (children, history). */
export interface PageResult {
  inserted: number;
  updated: number;
  unchanged: number;
  written: string[];
}

export type PageMethod = 'unnest' | 'copy';

interface TableSql {
  /** unnest(...) AS i(cols) over $1..$k. */
  columns: string[];
  types: string[];
  merge: (source: string, now: string, pass: string, returnIds: boolean) => string;
}

const tableSql = new Map<string, TableSql>();

function sqlOf(def: TableDef, history: boolean): TableSql {
  const key = `${def.table}:${history}`;
  const cached = tableSql.get(key);
  if (cached !== undefined) return cached;
  const t = q(def.table);
  const cols = [...def.columns.map((c) => q(c.name)), 'raw'];
  const types = [...def.columns.map((c) => arrayType(columnKind(c))), 'jsonb[]'];
  const sets = [
    ...def.columns.filter((c) => c.field !== 'id').map((c) => `${q(c.name)} = excluded.${q(c.name)}`),
    'raw = excluded.raw',
    'synced_at = excluded.synced_at',
    'deleted_at = NULL',
    'seen_pass = coalesce(excluded.seen_pass, t.seen_pass)',
  ];
  // j: each record of the page beside the row there before (one join, read once), with what
  // to do: 'i' insert, 'u' rewrite, 's' same JSON (written only to restore or mark a pass).
  const merge = (source: string, now: string, pass: string, returnIds: boolean) => `
    WITH i AS (${source}),
    j AS (
      SELECT i.*, CASE WHEN c.id IS NULL THEN 'i' WHEN c.raw = i.raw THEN 's' ELSE 'u' END AS op,
        c.deleted_at IS NOT NULL AS was_deleted
      FROM i LEFT JOIN ${t} c ON c.id = i.id),
    w AS (
      INSERT INTO ${t} AS t (${cols.join(', ')}, synced_at, deleted_at, seen_pass)
      SELECT ${cols.map((c) => `j.${c}`).join(', ')}, ${now}, NULL, ${pass} FROM j
      WHERE j.op <> 's' OR j.was_deleted OR ${pass} IS NOT NULL
      ON CONFLICT (id) DO UPDATE SET ${sets.join(', ')}
      WHERE t.raw IS DISTINCT FROM excluded.raw OR t.deleted_at IS NOT NULL OR excluded.seen_pass IS NOT NULL
    )${history ? versionCtes(def, now) : ''}
    SELECT count(*) FILTER (WHERE op = 'i')::int AS inserted,
      count(*) FILTER (WHERE op = 'u')::int AS updated,
      count(*) FILTER (WHERE op = 's')::int AS unchanged
      ${returnIds ? `, array_agg(id::text) FILTER (WHERE op <> 's') AS written` : ''}
    FROM j`;
  const out = { columns: cols, types, merge };
  tableSql.set(key, out);
  return out;
}

/**
 * History (src/mirror/history.ts) in the page's statement: the open version of each record
 * written (new, changed, or restored) closed at `now`, and the record's version opened. The
 * CTEs see the table as it was, so the two never meet; an unchanged record adds nothing.
 */
function versionCtes(def: TableDef, now: string): string {
  const h = q(historyTableOf(def.table));
  const cols = [...def.columns.map((c) => q(c.name)), 'raw'];
  const changed = "(j.op <> 's' OR j.was_deleted)";
  return `,
    closed AS (
      UPDATE ${h} h SET valid_to = ${now} FROM j
      WHERE h.id = j.id AND h.valid_to IS NULL AND j.op <> 'i' AND ${changed}),
    opened AS (
      INSERT INTO ${h} (${cols.join(', ')}, valid_from)
      SELECT ${cols.map((c) => `j.${c}`).join(', ')}, ${now} FROM j WHERE ${changed})`;
}

interface Counts {
  inserted: number;
  updated: number;
  unchanged: number;
  written?: string[] | null;
}

/** The page as column arrays: the typed columns, then raw. */
function pageArrays(def: TableDef, records: readonly Record<string, unknown>[]): PgValue[][] {
  return [...def.columns.map((c) => columnArray(c, records)), records.map(rawJson)];
}

const idKey = (r: Record<string, unknown>) => String(r.id);

/**
 * Writes a page of records (already masked) into a resource table. A record whose JSON equals
 * the row's is not rewritten unless the row was soft-deleted (restored) or a pass marks it
 * (`pass`); a new or changed one is written whole. One statement per page.
 */
export async function upsertPage(
  client: PgClientLike,
  def: TableDef,
  records: readonly Record<string, unknown>[],
  now: string,
  pass: string | null,
  method: PageMethod = 'unnest',
  history = true,
): Promise<PageResult> {
  const out: PageResult = { inserted: 0, updated: 0, unchanged: 0, written: [] };
  const s = sqlOf(def, history);
  const wantIds = def.children.length > 0;
  for (const round of rounds(records, idKey)) {
    if (round.length === 0) continue;
    const arrays = pageArrays(def, round);
    let counts: Counts | undefined;
    if (method === 'unnest') {
      const n = arrays.length;
      const source = `SELECT * FROM unnest(${s.types.map((ty, k) => `$${k + 1}::${ty}`).join(', ')}) AS u(${s.columns.join(', ')})`;
      const text = s.merge(source, `$${n + 1}`, `$${n + 2}::text`, wantIds);
      counts = (await client.query<Counts>(text, [...arrays, now, pass])).rows[0];
    } else {
      const temp = await copyPage(client, def, arrays);
      const text = s.merge(`SELECT * FROM ${temp}`, '$1', '$2::text', wantIds);
      counts = (await client.query<Counts>(text, [now, pass])).rows[0];
    }
    out.inserted += counts?.inserted ?? 0;
    out.updated += counts?.updated ?? 0;
    out.unchanged += counts?.unchanged ?? 0;
    if (counts?.written) out.written.push(...counts.written);
  }
  if (wantIds && out.written.length > 0) {
    const byId = new Map(records.map((r) => [idKey(r), r]));
    const changed = out.written.map((id) => byId.get(id)).filter((r) => r !== undefined);
    await writeChildren(client, def, changed);
  }
  return out;
}

/** COPY text format: tab-separated, `\N` for null, backslash and control characters escaped. */
function copyField(v: PgValue): string {
  if (v === null) return '\\N';
  const s = String(v);
  return /[\\\t\n\r]/.test(s)
    ? s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r')
    : s;
}

/** COPYs the page into a session temporary table (emptied at commit) and returns its name. */
async function copyPage(client: PgClientLike, def: TableDef, arrays: PgValue[][]): Promise<string> {
  const temp = `pg_temp.${q(`page_${def.table}`)}`;
  const cols = sqlOf(def, false).columns;
  const raw = client as PgClientLike & { query(stream: unknown): unknown };
  // One round trip (simple protocol, two statements); inside the page's transaction, so a
  // rollback takes the table away with it and the next page makes it again.
  await client.query(
    `CREATE TEMP TABLE IF NOT EXISTS ${q(`page_${def.table}`)} AS SELECT ${cols.join(', ')} FROM ${q(def.table)} WITH NO DATA; TRUNCATE ${temp}`,
  );
  const rows = arrays[0]?.length ?? 0;
  const lines: string[] = [];
  for (let r = 0; r < rows; r++) lines.push(arrays.map((a) => copyField(a[r] ?? null)).join('\t'));
  // Loaded here: COPY is the benchmark's alternative only, so pg-copy-streams is a dev dependency.
  const { from: copyFrom } = await import('pg-copy-streams');
  const stream = raw.query(copyFrom(`COPY ${temp} (${cols.join(', ')}) FROM STDIN`)) as NodeJS.WritableStream;
  await new Promise<void>((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', resolve);
    stream.end(`${lines.join('\n')}\n`);
  });
  return temp;
}

/**
 * Rewrites the child rows of the records written (Applicant's info[] and their infoItem[]): the
 * old rows of those parents deleted, the new ones inserted level by level, each row keeping its
 * parents' ids (a child id met again replaces the row, as SQLite's INSERT OR REPLACE).
 */
async function writeChildren(
  client: PgClientLike,
  def: TableDef,
  records: readonly Record<string, unknown>[],
): Promise<void> {
  const levels: { def: ChildTableDef; parents: string[] }[] = [];
  const addLevels = (children: readonly ChildTableDef[], parents: string[]) => {
    for (const child of children) {
      const parentCols = [...new Set([...parents, child.parentColumn])];
      levels.push({ def: child, parents: parentCols });
      addLevels(child.children, parentCols);
    }
  };
  addLevels(def.children, ['applicant_id']);
  const ids = records.map((r) => pgValue('id', r.id));
  const deletes = levels.map(
    (l, k) => `d${k} AS (DELETE FROM ${q(l.def.table)} WHERE applicant_id = ANY($1::bigint[]))`,
  );
  await client.query(`WITH ${deletes.join(', ')} SELECT 1`, [ids]);
  const rowsOf: Record<string, unknown>[][] = levels.map(() => []);
  const parentsOf: Record<string, PgValue>[][] = levels.map(() => []);
  const walk = (items: unknown, depth: number, parentIds: Record<string, PgValue>) => {
    const level = levels[depth];
    if (level === undefined || !Array.isArray(items)) return;
    const next = levels[depth + 1];
    for (const item of items) {
      if (typeof item !== 'object' || item === null) continue;
      const row = item as Record<string, unknown>;
      const flat =
        next === undefined
          ? row
          : Object.fromEntries(Object.entries(row).filter(([k]) => k !== next.def.arrayField));
      rowsOf[depth]?.push(flat);
      parentsOf[depth]?.push(parentIds);
      if (next !== undefined)
        walk(row[next.def.arrayField], depth + 1, {
          ...parentIds,
          [next.def.parentColumn]: pgValue('id', row.id),
        });
    }
  };
  const first = levels[0];
  if (first === undefined) return;
  for (const r of records) walk(r[first.def.arrayField], 0, { applicant_id: pgValue('id', r.id) });
  for (const [k, level] of levels.entries()) {
    const all = (rowsOf[k] ?? []).map((row, i) => ({ row, parents: parentsOf[k]?.[i] ?? {} }));
    for (const round of rounds(all, (x) => String(x.row.id))) {
      if (round.length === 0) continue;
      const rows = round.map((x) => x.row);
      const arrays = [
        ...level.def.columns.map((c) => columnArray(c, rows)),
        ...level.parents.map((p) => round.map((x) => x.parents[p] ?? null)),
        rows.map(rawJson),
      ];
      const cols = [...level.def.columns.map((c) => q(c.name)), ...level.parents.map(q), 'raw'];
      const types = [
        ...level.def.columns.map((c) => arrayType(columnKind(c))),
        ...level.parents.map(() => 'bigint[]'),
        'jsonb[]',
      ];
      const sets = cols.filter((c) => c !== '"id"').map((c) => `${c} = excluded.${c}`);
      await client.query(
        `INSERT INTO ${q(level.def.table)} (${cols.join(', ')})
         SELECT * FROM unnest(${types.map((ty, i) => `$${i + 1}::${ty}`).join(', ')})
         ON CONFLICT (id) DO UPDATE SET ${sets.join(', ')}`,
        arrays,
      );
    }
  }
}
