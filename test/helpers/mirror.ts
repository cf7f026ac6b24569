import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, expect } from 'vitest';
import type { ClientOptions } from '../../src/api/index.js';
import { createLogger } from '../../src/log.js';
import { type Mirror, maskRecord, openMirror, tableOf } from '../../src/mirror/index.js';
import type { ObjectSpec, ResourceName } from '../../src/schema/index.js';
import { operations, resources } from '../../src/schema/index.js';
import type { RunningSim, SimRecord } from '../../src/sim/index.js';
import { type RunSyncOptions, runSync, type SyncReport } from '../../src/sync/index.js';
import { clientFor } from './client.js';
import { defaults } from './defaults.js';
import { WRITE_TOKEN } from './sim.js';

import { streamTables } from './stream-tables.js';

export { streamTables };

/**
 * Fixtures of the sync tests: temporary mirror files, one sync in-process (the real client over
 * real HTTP into a real SQLite file), the CLI's environment, and the comparison of a mirror with
 * the sandbox's truth.
 */

/** The sandbox's first ids of the streams without a list operation (src/sim/seed/: each resource's IdSequence). */
export const ID_START = { invoice: 240001, staff: 6001, applicant: 9001 } as const;

/** A temporary directory for this test file, removed after it. */
export function withTmpDir(prefix = 'ohs-sync-'): () => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  return () => join(dir, `mirror-${++n}.sqlite`);
}

export const silentLogger = createLogger({ level: 'silent', pretty: false });

/** One `runSync` in-process: opens the mirror, syncs with a fast client, closes both. */
export async function syncInto(
  sim: RunningSim,
  file: string,
  options: Partial<RunSyncOptions> = {},
  client: Partial<ClientOptions> = {},
): Promise<SyncReport> {
  const c = clientFor(sim, { concurrency: 8, requestsPerSecond: 5000, maxRateLimitRetries: 200, ...client });
  const mirror = await openMirror(file);
  try {
    return await runSync(c, mirror, silentLogger, {
      ...defaults.sync,
      idStart: { ...ID_START },
      progress: false,
      ...options,
    });
  } finally {
    await c.close();
    await mirror.close();
  }
}

/** Opens a mirror, runs `fn`, closes it. */
export async function withMirror<T>(file: string, fn: (m: Mirror) => Promise<T> | T): Promise<T> {
  const m = await openMirror(file);
  try {
    return await fn(m);
  } finally {
    await m.close();
  }
}

/** Writes the CLI config for the sandbox (fast client, the sandbox's first ids) and returns its path. */
export function cliConfig(dir: string, api: Record<string, unknown> = {}): string {
  const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      logLevel: 'warn',
      api: {
        requestsPerSecond: 5000,
        concurrency: 8,
        retryBaseMs: 5,
        retryMaxMs: 200,
        timeoutMs: 5000,
        ...api,
      },
      sync: { idStart: { ...ID_START } },
    }),
  );
  return file;
}

/** Environment of `ohs` against the sandbox. */
export function cliEnv(sim: RunningSim): NodeJS.ProcessEnv {
  return { OHS_BASE_URL: sim.url, OHS_TOKEN: WRITE_TOKEN, OHS_DB: '', OHS_LOG_LEVEL: '' };
}

type Row = Record<string, unknown>;

/**
 * Engine-neutral reads of a mirror for assertions (kysely's `sql` template: `${value}` is a
 * parameter; `sql.table(name)` / `sql.ref(name)` for identifiers), so a test runs on any engine.
 */
export async function rows<T = Row>(m: Mirror, query: RawBuilder<unknown>): Promise<T[]> {
  return (await query.execute(m.db)).rows as T[];
}

/** The first row of a query (undefined when none). */
export async function one<T = Row>(m: Mirror, query: RawBuilder<unknown>): Promise<T | undefined> {
  return (await rows<T>(m, query))[0];
}

/** The first column of every row of a query. */
export async function values<T = unknown>(m: Mirror, query: RawBuilder<unknown>): Promise<T[]> {
  return (await rows<Row>(m, query)).map((r) => Object.values(r)[0] as T);
}

/** The first column of the first row of a query (undefined when none). */
export async function value<T = unknown>(m: Mirror, query: RawBuilder<unknown>): Promise<T | undefined> {
  return (await values<T>(m, query))[0];
}

/** Rows of a table (all of them, or those `where` selects), as a count. */
export async function count(m: Mirror, table: string, where?: RawBuilder<unknown>): Promise<number> {
  const n = await value(
    m,
    where === undefined
      ? sql`SELECT count(*) FROM ${sql.table(table)}`
      : sql`SELECT count(*) FROM ${sql.table(table)} WHERE ${where}`,
  );
  return Number(n);
}

/** A value as the mirror stores it in a typed column (see src/mirror/sqlite/writer.ts toSql). */
export function sqlValue(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

function byId(a: Row, b: Row): number {
  return Number(a.id) - Number(b.id);
}

export interface CompareOptions {
  /** Tables to compare; default all of `ohs sync`. */
  tables?: readonly string[];
}

/**
 * Asserts the mirror equals the truth: per table, the active rows (deleted_at null) are exactly
 * the truth's ids, each `raw` equals the masked truth record, every typed column holds the
 * record's value, and Applicant's child tables hold exactly its nested info[] / infoItem[].
 * Rows no longer in the truth must be soft-deleted (kept, with their data).
 */
export async function expectMirrorEqualsTruth(
  mirror: Mirror,
  truth: Record<ResourceName, SimRecord[]>,
  options: CompareOptions = {},
): Promise<void> {
  const wanted = options.tables ?? streamTables.map((t) => t.table);
  for (const { table, resource } of streamTables.filter((t) => wanted.includes(t.table))) {
    const def = tableOf(resource);
    const spec = resources[resource].spec;
    const all = await rows(mirror, sql`SELECT * FROM ${sql.table(table)}`);
    const records = [...truth[resource]].sort((a, b) => Number(a.id) - Number(b.id));
    const truthIds = records.map((r) => String(r.id));
    const truthSet = new Set(truthIds);
    const active = all.filter((r) => r.deleted_at === null).sort(byId);
    // Which ids differ, and how: absent from the mirror, soft-deleted, or active but gone upstream.
    const byKey = new Map(all.map((r) => [String(r.id), r]));
    const activeSet = new Set(active.map((r) => String(r.id)));
    const diff = [
      ...truthIds
        .filter((id) => !activeSet.has(id))
        .map(
          (id) =>
            `${id} ${byKey.has(id) ? `soft-deleted at ${String(byKey.get(id)?.deleted_at)}` : 'absent'}`,
        ),
      ...[...activeSet].filter((id) => !truthSet.has(id)).map((id) => `${id} active but gone upstream`),
    ];
    expect(
      active.map((r) => String(r.id)),
      `${table}: active ids (${diff.join('; ')})`,
    ).toEqual(truthIds);
    // Ids are keys: no duplicates anywhere in the table.
    expect(new Set(all.map((r) => String(r.id))).size, `${table}: duplicate ids`).toBe(all.length);
    for (const row of all) {
      if (!truthSet.has(String(row.id))) {
        expect(
          row.deleted_at,
          `${table} ${String(row.id)}: gone upstream, must be soft-deleted`,
        ).not.toBeNull();
        expect(JSON.parse(String(row.raw)), `${table} ${String(row.id)}: data kept`).toHaveProperty('id');
      }
    }
    const mirrored = new Map(active.map((r) => [String(r.id), r]));
    for (const record of records) {
      const row = mirrored.get(String(record.id));
      if (row === undefined) continue;
      const masked = maskRecord(spec, answered(resource, record));
      expect(JSON.parse(String(row.raw)), `${table} ${String(record.id)}: raw`).toEqual(masked);
      const columns: Row = {};
      const expected: Row = {};
      for (const c of def.columns) {
        columns[c.name] = row[c.name];
        expected[c.name] = sqlValue(masked[c.field]);
      }
      expect(columns, `${table} ${String(record.id)}: typed columns`).toEqual(expected);
    }
    if (resource === 'Applicant') await expectApplicantChildren(mirror, records, new Set(mirrored.keys()));
  }
}

/**
 * The record as the service answers it: a read by id asks the fields its resource declares
 * alone (src/api/client.ts get), so fields the sandbox holds beyond those (an invoice's `amount`)
 * are not sent; lists and queries send the whole record.
 */
function answered(resource: ResourceName, record: SimRecord): SimRecord {
  if (!Object.values(operations).some((o) => o.kind === 'get' && o.resource === resource)) return record;
  const spec: ObjectSpec = resources[resource].spec;
  const out: SimRecord = { id: record.id };
  for (const [k, v] of Object.entries(record))
    if (Object.hasOwn(spec.fields, k) || Object.hasOwn(spec.arrays ?? {}, k)) out[k] = v;
  return out;
}

/** applicant_info / applicant_info_item hold exactly the nested arrays of the active applicants. */
async function expectApplicantChildren(
  mirror: Mirror,
  applicants: readonly SimRecord[],
  active: Set<string>,
): Promise<void> {
  const infos = (await rows(mirror, sql`SELECT * FROM applicant_info`)).filter((r) =>
    active.has(String(r.applicant_id)),
  );
  const items = (await rows(mirror, sql`SELECT * FROM applicant_info_item`)).filter((r) =>
    active.has(String(r.applicant_id)),
  );
  const wantInfos: Row[] = [];
  const wantItems: Row[] = [];
  for (const a of applicants) {
    const masked = maskRecord(resources.Applicant.spec, a);
    for (const info of (masked.info as Row[] | undefined) ?? []) {
      const { infoItem, ...flat } = info;
      wantInfos.push({ id: info.id, applicant_id: a.id, raw: flat });
      for (const item of (infoItem as Row[] | undefined) ?? []) {
        wantItems.push({ id: item.id, applicant_id: a.id, info_id: info.id, raw: item });
      }
    }
  }
  expect(
    infos.map((r) => ({ id: r.id, applicant_id: r.applicant_id, raw: JSON.parse(String(r.raw)) })).sort(byId),
    'applicant_info rows',
  ).toEqual(wantInfos.sort(byId));
  expect(
    items
      .map((r) => ({
        id: r.id,
        applicant_id: r.applicant_id,
        info_id: r.info_id,
        raw: JSON.parse(String(r.raw)),
      }))
      .sort(byId),
    'applicant_info_item rows',
  ).toEqual(wantItems.sort(byId));
  expect(wantInfos.length, 'the data set has applicant info').toBeGreaterThan(0);
  expect(wantItems.length, 'the data set has info items').toBeGreaterThan(0);
}

/** Active row count per table. */
export async function activeCounts(mirror: Mirror): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const { table } of streamTables) out[table] = await count(mirror, table, sql`deleted_at IS NULL`);
  return out;
}
