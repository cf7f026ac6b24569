import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { RunningSim } from '../../src/sim/index.js';
import { runOhs } from '../helpers/cli.js';
import { type EngineName, engines, withTargets } from '../helpers/engines.js';
import { streamTables, withMirror } from '../helpers/mirror.js';
import { TEST_ANCHOR, WRITE_TOKEN } from '../helpers/sim.js';

/**
 * The sandbox synced by `ohs sync` into a new mirror of each engine, and `ohs report all` run on
 * it (once per engine and test file): the end-to-end reports tests read its files back.
 */
export interface Synced {
  /** The working folder (its config/local.json points at the sandbox). */
  dir: string;
  db: string;
  /** stderr of `ohs report all`. */
  stderr: string;
  stdout: string;
}

/**
 * The moment the sync saw the truth, set to one fixed instant: each engine's sync ran at its own
 * wall-clock time, and the reports read that time (order ageing: the time in status since an
 * item was first seen; the as-of instant from the last sync; unpaid invoices: whether the
 * balances are newer than the as-of date), as they read the as-of date. With both fixed, what
 * remains to differ between the engines is the engines.
 */
export const SYNC_TIME = `${TEST_ANCHOR}T02:00:00.000Z`;
export async function observedAt(db: string, at: string): Promise<void> {
  await withMirror(db, async (m) => {
    for (const { table } of streamTables)
      await sql`UPDATE ${sql.table(table)} SET synced_at = ${at}`.execute(m.db);
    await sql`UPDATE orderitem_status_history SET first_seen_at = ${at}, last_seen_at = ${at}`.execute(m.db);
    await sql`UPDATE sync_stream_state SET last_success_at = ${at}, last_full_at = ${at}`.execute(m.db);
    await sql`UPDATE sync_run SET started_at = ${at}, ended_at = ${at}`.execute(m.db);
  });
}

export const env = { OHS_TOKEN: WRITE_TOKEN, OHS_DB: '' };

/** Call at the top of a test file (it registers the targets' cleanup). */
export function syncedSandbox(sim: () => RunningSim): (engine: EngineName) => Promise<Synced> {
  const targets = new Map(engines.map((e) => [e, withTargets(e)] as const));
  const syncs = new Map<EngineName, Promise<Synced>>();
  return (engine) => {
    let p = syncs.get(engine);
    if (p === undefined) {
      p = (async () => {
        const db = await (targets.get(engine) as () => Promise<string>)();
        const dir = mkdtempSync(join(tmpdir(), `ohs-reports-e2e-${engine}-`));
        mkdirSync(join(dir, 'config'));
        writeFileSync(
          join(dir, 'config', 'local.json'),
          JSON.stringify({
            baseUrl: sim().url,
            db,
            api: { requestsPerSecond: 5000 },
            sync: { idStart: { invoice: 240001, staff: 6001, applicant: 9001 } },
          }),
        );
        const synced = await runOhs(['sync'], { cwd: dir, env, timeoutMs: 240_000 });
        expect(synced.code, synced.stderr).toBe(0);
        await observedAt(db, SYNC_TIME);
        const r = await runOhs(['report', 'all', '--as-of', TEST_ANCHOR, '--present', '--out', 'out'], {
          cwd: dir,
          env,
        });
        expect(r.code, r.stderr).toBe(0);
        return { dir, db, stderr: r.stderr, stdout: r.stdout };
      })();
      syncs.set(engine, p);
    }
    return p;
  };
}

export function csv(file: string): Record<string, string>[] {
  return parse(readFileSync(file, 'utf8'), { columns: true, bom: true }) as Record<string, string>[];
}
